/*
 * test_preload_real.c - real programs under "ntmem run --stream-above 0",
 * where every memset and memcpy beyond the small path streams, give
 * byte-identical output to a run without the shim:
 *
 *   python3   tests/preload/bytes.py: bytes, bytearray, memoryview,
 *             slicing, joining, hashed
 *   gzip      gzip -9 | gunzip over 50 MB of generated text
 *   sort      a generated file, in a small buffer, so it merges
 *   perf      perf bench mem memcpy and memset (the Debian package
 *             linux-perf is installed when missing and this is root)
 *
 * Each also runs once with --report-json, which must show the program's
 * own calls reaching the shim's streaming rungs: proof that the output
 * compared is the output of streamed copies.  A program that is missing
 * is a skip, with the reason.
 */
#include "preload/spawn.h"

static struct places at;
static char scratch[] = "/tmp/ntmem-preload-real-XXXXXX";

/* The program name on PATH, into path; -1 if there is none. */
static int find_program(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
		size_t n = strcspn(d, ":");
		snprintf(path, len, "%.*s/%s", (int)n, d, name);
		if (n && access(path, X_OK) == 0)
			return 0;
		d += n + (d[n] == ':');
	}
	return -1;
}

/* A path in the scratch directory. */
static const char *in_scratch(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", scratch, name);
	return buf;
}

/* Whether files a and b hold the same bytes; why says where not. */
static int same_bytes(const char *a, const char *b, char *why, size_t len)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	static char x[1 << 16], y[1 << 16];
	long long at = 0;
	int same = f && g;
	while (same) {
		size_t n = fread(x, 1, sizeof x, f), m = fread(y, 1, sizeof y, g);
		same = n == m && !memcmp(x, y, n);
		if (!same || n == 0)
			break;
		at += (long long)n;
	}
	snprintf(why, len, "%s and %s differ near byte %lld", a, b, at);
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

/* Text of words and numbers, as a log or a corpus, from a fixed seed. */
static int write_text(const char *path, size_t bytes, uint64_t seed)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	char word[16];
	for (size_t n = 0; n < bytes;) {
		int words = 3 + (int)(seed % 12);
		for (int w = 0; w < words; w++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			int len = 2 + (int)((seed >> 59) & 7);
			for (int i = 0; i < len; i++)
				word[i] = (char)('a' + (seed >> (7 * i % 50)) % 26);
			n += (size_t)fprintf(f, "%.*s ", len, word);
		}
		n += (size_t)fprintf(f, "%llu\n", (unsigned long long)(seed >> 44));
	}
	return fclose(f);
}

/* The report r shows calls of the program (of function, if not NULL)
 * reaching a streaming rung. */
static void check_streamed(const char *name, const struct report *r,
			   const char *function)
{
	int rungs, streaming;
	unsigned long long streamed;
	report_rungs(r, function, &rungs, &streaming, &streamed);
	t_check(r->json && streamed > 0, name, "%llu streamed calls; %s", streamed,
		r->why);
}

/* Lines in s. */
static int count_newlines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The report r shows the program's calls reaching the shim, and any
 * that went beyond the small path streamed. */
static void check_served(const char *name, const struct report *r)
{
	int rungs, streaming;
	unsigned long long calls, bytes, streamed;
	report_sum(r, NULL, "any", &calls, &bytes);
	report_rungs(r, NULL, &rungs, &streaming, &streamed);
	t_check(r->json && calls > 0 && streaming == rungs, name,
		"%llu calls, %d of %d rung paths streaming; %s", calls, streaming,
		rungs, r->why);
}

static void test_python(void)
{
	char python[PATH_MAX], script[PATH_MAX];
	if (find_program("python3", python, sizeof python)) {
		t_skip("python3", "python3 is not installed");
		return;
	}
	if (!realpath("tests/preload/bytes.py", script)) {
		t_fail("python3", "tests/preload/bytes.py not found from %s", ".");
		return;
	}
	struct outcome plain, shim;
	static struct report r;
	const char *args[] = {python, script, NULL};
	const char *no_shim[] = {"-LD_PRELOAD", NULL};
	const char *opts[] = {"--stream-above", "0", "--report-json", r.path, NULL};
	spawn(run_argv(&at, NULL, NULL, args) + 3, no_shim, 120, &plain);
	report_file(&r);
	spawn(run_argv(&at, opts, NULL, args), NULL, 120, &shim);
	report_read(&r);
	char line[256];
	t_check(exited(&plain, 0) && exited(&shim, 0) &&
			count_newlines(plain.out) >= 37 && !strcmp(plain.out, shim.out),
		"python3: bytes, bytearray, memoryview and slices hash the same",
		"status 0x%x and 0x%x; %s", plain.status, shim.status,
		first_line(shim.err, line, sizeof line));
	check_streamed("python3: its copies streamed through the shim", &r, NULL);
	report_free(&r);
	outcome_free(&plain);
	outcome_free(&shim);
}

static void test_gzip(void)
{
	char gzip[PATH_MAX], gunzip[PATH_MAX];
	if (find_program("gzip", gzip, sizeof gzip) ||
	    find_program("gunzip", gunzip, sizeof gunzip)) {
		t_skip("gzip", "gzip is not installed");
		return;
	}
	char in[PATH_MAX], a_gz[PATH_MAX], a_out[PATH_MAX], b_gz[PATH_MAX],
		b_out[PATH_MAX], c_gz[PATH_MAX], why[3][PATH_MAX * 2 + 64];
	size_t bytes = t_quick() ? (size_t)5e6 : (size_t)50e6;
	if (write_text(in_scratch("text", in, sizeof in), bytes, 42)) {
		t_fail("gzip", "cannot write %s", in);
		return;
	}
	const char *pipe = "gzip -9 -n -c \"$1\" | tee \"$2\" | gunzip -c > \"$3\"";
	const char *plain_args[] = {"sh", "-c", pipe, "sh", in,
		in_scratch("a.gz", a_gz, sizeof a_gz),
		in_scratch("a.out", a_out, sizeof a_out), NULL};
	const char *shim_args[] = {"sh", "-c", pipe, "sh", in,
		in_scratch("b.gz", b_gz, sizeof b_gz),
		in_scratch("b.out", b_out, sizeof b_out), NULL};
	const char *no_shim[] = {"-LD_PRELOAD", NULL};
	const char *stream[] = {"--stream-above", "0", NULL};
	struct outcome plain, shim;
	spawn(run_argv(&at, NULL, NULL, plain_args) + 3, no_shim, 600, &plain);
	spawn(run_argv(&at, stream, NULL, shim_args), NULL, 600, &shim);
	t_check(exited(&plain, 0) && exited(&shim, 0) &&
			same_bytes(a_gz, b_gz, why[0], sizeof why[0]) &&
			same_bytes(in, a_out, why[1], sizeof why[1]) &&
			same_bytes(in, b_out, why[2], sizeof why[2]),
		"gzip -9 | gunzip: the same compressed bytes, the text back",
		"status 0x%x and 0x%x; %s; %s; %s", plain.status, shim.status,
		why[0], why[1], why[2]);
	outcome_free(&plain);
	outcome_free(&shim);

	/* With a report, gzip alone: the report is its own. */
	static struct report r;
	const char *report[] = {"--stream-above", "0", "--report-json", r.path, NULL};
	const char *alone[] = {"gzip", "-9", "-n", "-c", in, NULL};
	report_file(&r);
	spawn_to(run_argv(&at, report, NULL, alone), NULL, 600,
		 in_scratch("c.gz", c_gz, sizeof c_gz), &shim);
	report_read(&r);
	t_check(exited(&shim, 0) && same_bytes(a_gz, c_gz, why[0], sizeof why[0]),
		"gzip -9 with --report: the same compressed bytes", "status 0x%x; %s",
		shim.status, why[0]);
	check_streamed("gzip: its copies streamed through the shim", &r, NULL);
	report_free(&r);
	outcome_free(&shim);
}

static void test_sort(void)
{
	char sort[PATH_MAX], in[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	char why[PATH_MAX * 2 + 64];
	if (find_program("sort", sort, sizeof sort)) {
		t_skip("sort", "sort is not installed");
		return;
	}
	size_t bytes = t_quick() ? (size_t)2e6 : (size_t)20e6;
	if (write_text(in_scratch("lines", in, sizeof in), bytes, 7)) {
		t_fail("sort", "cannot write %s", in);
		return;
	}
	/* A 1 MiB buffer: sort writes runs to temporary files and merges. */
	const char *args[] = {"sort", "-S", "1M", "-T", scratch, in, NULL};
	const char *plain_env[] = {"LC_ALL=C", "-LD_PRELOAD", NULL};
	const char *shim_env[] = {"LC_ALL=C", NULL};
	static struct report r;
	const char *opts[] = {"--stream-above", "0", "--report-json", r.path, NULL};
	struct outcome plain, shim;
	spawn_to(run_argv(&at, NULL, NULL, args) + 3, plain_env, 300,
		 in_scratch("a.sorted", a, sizeof a), &plain);
	report_file(&r);
	spawn_to(run_argv(&at, opts, NULL, args), shim_env, 300,
		 in_scratch("b.sorted", b, sizeof b), &shim);
	report_read(&r);
	t_check(exited(&plain, 0) && exited(&shim, 0) &&
			same_bytes(a, b, why, sizeof why),
		"sort: the same sorted bytes", "status 0x%x and 0x%x; %s",
		plain.status, shim.status, why);
	check_served("sort: its calls went through the shim", &r);
	report_free(&r);
	outcome_free(&plain);
	outcome_free(&shim);
}

/* perf, installed as tests/check.sh installs what it needs: only as
 * root, only with apt-get.  Returns 0 when it is there, else says why. */
static int get_perf(char *perf, size_t len, const char **why)
{
	char apt[PATH_MAX];
	if (!find_program("perf", perf, len))
		return 0;
	if (getuid() != 0 || find_program("apt-get", apt, sizeof apt)) {
		*why = "perf is not installed (as root: apt-get install linux-perf)";
		return -1;
	}
	const char *env[] = {"DEBIAN_FRONTEND=noninteractive", NULL};
	char *install[] = {apt, "install", "-y", "-qq", "linux-perf", NULL};
	char *update[] = {apt, "update", "-qq", NULL};
	struct outcome o;
	printf("perf is missing: installing the Debian package linux-perf\n");
	spawn(install, env, 600, &o);
	if (!exited(&o, 0)) {
		outcome_free(&o);
		spawn(update, env, 600, &o);
		outcome_free(&o);
		spawn(install, env, 600, &o);
	}
	outcome_free(&o);
	*why = "perf is not installed and apt-get install linux-perf failed";
	return find_program("perf", perf, len);
}

/* Numbers as '#' and blanks as one space: perf's figures, and so their
 * width, differ from run to run; the rest of its output must not. */
static void mask_numbers(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		if ((*r >= '0' && *r <= '9') || *r == '.') {
			while ((*r >= '0' && *r <= '9') || *r == '.')
				r++;
			*w++ = '#';  /* after the scan: w may have been at r */
		} else if (*r == ' ' || *r == '\t') {
			while (*r == ' ' || *r == '\t')
				r++;
			*w++ = ' ';
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static void test_perf(void)
{
	char perf[PATH_MAX], name[128];
	const char *why;
	if (get_perf(perf, sizeof perf, &why)) {
		t_skip("perf bench mem", why);
		return;
	}
	static const char *const benches[] = {"memcpy", "memset"};
	for (size_t i = 0; i < 2; i++) {
		const char *args[] = {perf, "bench", "mem", benches[i], "-s", "32MB",
				      "-l", "4", "-f", "default", NULL};
		const char *no_shim[] = {"-LD_PRELOAD", NULL};
		static struct report r;
		const char *opts[] = {"--stream-above", "0", "--report-json", r.path,
				      NULL};
		struct outcome plain, shim;
		spawn(run_argv(&at, NULL, NULL, args) + 3, no_shim, 300, &plain);
		report_file(&r);
		spawn(run_argv(&at, opts, NULL, args), NULL, 300, &shim);
		report_read(&r);
		mask_numbers(plain.out);
		mask_numbers(shim.out);
		snprintf(name, sizeof name, "perf bench mem %s: the same output "
			 "but for the figures", benches[i]);
		t_check(exited(&plain, 0) && exited(&shim, 0) &&
				strstr(plain.out, "GB/sec") && !strcmp(plain.out, shim.out),
			name, "status 0x%x and 0x%x:\n%s\n%s", plain.status,
			shim.status, plain.out, shim.out);
		snprintf(name, sizeof name, "perf bench mem %s: its %s streamed "
			 "through the shim", benches[i], benches[i]);
		check_streamed(name, &r, benches[i]);
		report_free(&r);
		outcome_free(&plain);
		outcome_free(&shim);
	}
}

int main(void)
{
	if (find_places(&at) || !mkdtemp(scratch)) {
		t_fail("real programs: the build's ntmem, the shim, a scratch "
		       "directory", "not found next to %s", t_ntmem());
		return t_finish();
	}
	if (spawn_unavailable()) {
		t_skip("real programs under the shim", spawn_unavailable());
	} else if (SHIM_SANITIZED) {
		t_skip("real programs under the shim", SHIM_SANITIZED_WHY);
	} else {
		test_python();
		test_gzip();
		test_sort();
		test_perf();
	}
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
	if (system(cmd))
		t_fail("real programs: removing the scratch directory", "%s", scratch);
	return t_finish();
}
