/* test_uninstall.c - "make uninstall" removes exactly what "make install"
 * put there, for the same variables: an install into a scratch DESTDIR
 * (with BINDIR and MANDIR moved, which the build does not depend on),
 * then an uninstall, leaves no file or link of ours and keeps a file of
 * someone else's; and a dry run names LIBDIR's and SHIMDIR's files.  Run
 * from the repository root, as tests/run.sh does. */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

/* make, without the settings of a make that may be running this test. */
#define MAKE "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s"

static const char *build_dir(void)
{
	static char dir[4096];
	snprintf(dir, sizeof dir, "%s", t_ntmem());
	return dirname(dir);
}

/* Files and links under root, one a line (malloc'd), or NULL. */
static char *tree(const char *root)
{
	char cmd[4400], *out = NULL;
	snprintf(cmd, sizeof cmd, "cd '%s' && find . \\( -type f -o -type l \\) | sort", root);
	if (t_run(cmd, &out, NULL)) {
		free(out);
		return NULL;
	}
	return out;
}

static int lines(const char *text)
{
	int n = 0;
	for (const char *p = text; p && *p; p++)
		n += *p == '\n';
	return n;
}

static void test_install_uninstall(void)
{
	const char *name = "uninstall: removes every file install put there, "
			   "and nothing else";
	char root[4200], vars[8800], cmd[9000], want[64], *err = NULL;
	snprintf(root, sizeof root, "%s", t_scratch_path("root"));
	snprintf(vars, sizeof vars, "O=%s DESTDIR=%s BINDIR=/opt/ntmem-bin "
		 "MANDIR=/opt/ntmem-man", build_dir(), root);
	/* NO_BUILD: install what the build holds, never rebuild it. */
	snprintf(cmd, sizeof cmd, MAKE " NO_BUILD=1 %s install 2>&1", vars);
	int st = t_run(cmd, &err, NULL);
	char *installed = tree(root);
	snprintf(want, sizeof want, "/usr/local/lib/libntmem.so.%d\n", NTMEM_VERSION_MAJOR);
	int ok = st == 0 && installed && strstr(installed, "./opt/ntmem-bin/ntmem\n") &&
		 strstr(installed, "./opt/ntmem-man/man1/ntmem.1\n") &&
		 strstr(installed, "./usr/local/include/ntmem.h\n") &&
		 strstr(installed, want) &&
		 strstr(installed, "/usr/local/lib/libntmem-preload.so\n") &&
		 strstr(installed, "/usr/local/lib/cmake/ntmem/ntmemConfig.cmake\n");
	t_check(ok, "uninstall: the install first puts its files in the DESTDIR, "
		"BINDIR and MANDIR honoured", "status %d: %s\n%s", st, err,
		installed ? installed : "(no tree)");
	free(err);
	if (!ok) {
		free(installed);
		return;
	}
	/* Someone else's file beside ours. */
	char foreign[4300];
	snprintf(foreign, sizeof foreign, "%s/usr/local/lib/theirs.so", root);
	FILE *f = fopen(foreign, "w");
	if (f)
		fclose(f);
	snprintf(cmd, sizeof cmd, MAKE " %s uninstall 2>&1", vars);
	st = t_run(cmd, &err, NULL);
	char *left = tree(root);
	char dirs[4400];
	snprintf(dirs, sizeof dirs, "%s/usr/local/lib/cmake/ntmem", root);
	t_check(st == 0 && left && !strcmp(left, "./usr/local/lib/theirs.so\n") &&
		access(dirs, F_OK) != 0, name,
		"status %d (%d files installed): %s\nleft:\n%s", st, lines(installed),
		err, left ? left : "(no tree)");
	free(err);
	free(left);
	free(installed);
}

/* LIBDIR and SHIMDIR (which the build bakes into the tool, so not
 * installed here) reach the files uninstall removes. */
static void test_dirs_honoured(void)
{
	char cmd[4400], *out = NULL, want[2][64];
	snprintf(cmd, sizeof cmd, MAKE " -n O=%s DESTDIR=/d LIBDIR=/l SHIMDIR=/s "
		 "uninstall", build_dir());
	int st = t_run(cmd, &out, NULL);
	snprintf(want[0], sizeof want[0], " /d/l/libntmem.so.%d ", NTMEM_VERSION_MAJOR);
	snprintf(want[1], sizeof want[1], " /d/s/libntmem-preload.so");
	t_check(st == 0 && out && strstr(out, want[0]) && strstr(out, want[1]) &&
		strstr(out, " /d/l/cmake/ntmem/ntmemConfig.cmake"),
		"uninstall: LIBDIR, SHIMDIR and DESTDIR name the files it removes",
		"status %d: %s", st, out ? out : "");
	free(out);
}

int main(void)
{
	const char *name = "uninstall";
	if (t_run("command -v make >/dev/null", NULL, NULL)) {
		t_skip(name, "make is not installed");
		return t_finish();
	}
	if (t_under_qemu()) {
		t_skip(name, "the build under test is another architecture's, which "
		       "this make (the host's compiler) does not describe");
		return t_finish();
	}
	if (t_scratch_make("uninstall"))
		return t_finish();
	test_install_uninstall();
	test_dirs_honoured();
	t_scratch_remove();
	return t_finish();
}
