/* test_fuzz_replay.c - every input in tests/fuzz/corpus/NAME, run through
 * fuzz target NAME (tests/fuzz/fuzz_NAME.c) as a normal test, in every
 * build: the seeds, and each input that ever made a target fail, kept
 * there as a regression test.  A target that disagrees with its oracle
 * aborts; the input being replayed is named first. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#define FUZZ_REPLAY
#include "fuzz/fuzz_ladder.c"
#include "fuzz/fuzz_profile.c"
#include "fuzz/fuzz_size.c"
#include "fuzz/fuzz_tunables.c"
#include "fuzz/fuzz_variants.c"
#include "harness.h"

static const struct {
	const char *name;
	int (*run)(const uint8_t *data, size_t size);
} targets[] = {
	{"ladder", fuzz_ladder},       {"profile", fuzz_profile},
	{"size", fuzz_size},           {"tunables", fuzz_tunables},
	{"variants", fuzz_variants},
};

static char current[512];

/* A target aborted: say on which input, then die of it. */
static void on_abort(int sig)
{
	static const char msg[] = "FAIL  fuzz replay: this input made the target fail: ";
	ssize_t w = write(1, msg, sizeof msg - 1);
	w += write(1, current, strlen(current));
	w += write(1, "\n", 1);
	(void)w;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The whole of a file, malloc'd; NULL if it cannot be read. */
static uint8_t *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			uint8_t *b = realloc(buf, cap);
			if (!b)
				break;
			buf = b;
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	return buf;
}

static void replay(size_t t)
{
	char dir[128], name[256];
	snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", targets[t].name);
	snprintf(name, sizeof name, "fuzz replay: %s, every input in %s",
		 targets[t].name, dir);
	DIR *d = opendir(dir);
	if (!d) {
		t_fail(name, "cannot open %s (run from the repository root)", dir);
		return;
	}
	size_t count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(current, sizeof current, "%s/%s", dir, e->d_name);
		size_t len;
		uint8_t *data = slurp_file(current, &len);
		if (!data) {
			t_fail(name, "cannot read %s", current);
			continue;
		}
		fflush(stdout);
		targets[t].run(data, len);
		free(data);
		count++;
	}
	closedir(d);
	t_check(count > 0, name, "no inputs in %s", dir);
}

int main(void)
{
	signal(SIGABRT, on_abort);
	for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
		replay(t);
	return t_finish();
}
