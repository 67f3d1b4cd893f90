/* test_build.c - what the build promises a new user: one version
 * everywhere it is written (the header, ntmem_version(), ntmem --version,
 * the shared object's name, ntmem.pc, the CMake package's version file,
 * debian/changelog, the man pages); "make bench"
 * builds the shim "ntmem run" needs; and "make install"'s hints about the
 * loader's path and the Debian packages it shadows.  Run from the repository root, as tests/run.sh does. */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "ntmem.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* The header's version, spelled out here from the macros alone. */
static const char header_version[] = STR(NTMEM_VERSION_MAJOR) "." STR(
	NTMEM_VERSION_MINOR) "." STR(NTMEM_VERSION_PATCH);

/* The directory the tool under test was built in. */
static const char *build_dir(void)
{
	static char dir[4096];
	snprintf(dir, sizeof dir, "%s", t_ntmem());
	return dirname(dir);
}

static void test_library_and_tool(void)
{
	t_check(!strcmp(ntmem_version(), header_version),
		"version: ntmem_version() is the header's",
		"'%s' against '%s'", ntmem_version(), header_version);
	char cmd[4200], want[64], *out = NULL;
	snprintf(cmd, sizeof cmd, "%s --version", t_ntmem());
	int st = t_run(cmd, &out, NULL);
	snprintf(want, sizeof want, "ntmem %s\n", header_version);
	t_check(st == 0 && out && !strcmp(out, want),
		"version: ntmem --version is the header's", "status %d, '%s'", st,
		out ? out : "");
	free(out);
}

/* libntmem.so.MAJOR links to libntmem.so.VERSION, which exists. */
static void test_shared_object(void)
{
	char link[4200], target[256] = "", want[64], path[4400];
	snprintf(link, sizeof link, "%s/libntmem.so.%d", build_dir(),
		 NTMEM_VERSION_MAJOR);
	ssize_t n = readlink(link, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	snprintf(want, sizeof want, "libntmem.so.%s", header_version);
	snprintf(path, sizeof path, "%s/%s", build_dir(), want);
	struct stat sb;
	t_check(!strcmp(target, want) && !stat(path, &sb),
		"version: the soname links to libntmem.so.VERSION of the header",
		"%s -> '%s', want '%s'", link, target, want);
}

static void test_pkgconfig(void)
{
	char path[4200], want[64];
	snprintf(path, sizeof path, "%s/ntmem.pc", build_dir());
	snprintf(want, sizeof want, "\nVersion: %s\n", header_version);
	const char *pc = t_file_text(path);
	t_check(strstr(pc, want) != NULL, "version: the built ntmem.pc says it",
		"%s has no '%s'", path, want + 1);
}

/* The CMake version file find_package reads says it. */
static void test_cmake_version(void)
{
	char path[4200], want[64];
	snprintf(path, sizeof path, "%s/ntmemConfigVersion.cmake", build_dir());
	snprintf(want, sizeof want, "\nset(PACKAGE_VERSION \"%s\")\n", header_version);
	const char *text = t_file_text(path);
	t_check(strstr(text, want) != NULL,
		"version: the built ntmemConfigVersion.cmake says it",
		"%s has no 'set(PACKAGE_VERSION \"%s\")'", path, header_version);
}

/* debian/changelog's newest entry, "ntmem (VERSION) ...", gives the
 * packages their version: less any epoch ("1:") or Debian revision
 * ("-2"), the header's. */
static void test_debian_changelog(void)
{
	char line[256], first[256], *version = first;
	snprintf(line, sizeof line, "%s", t_file_text("debian/changelog"));
	line[strcspn(line, "\n")] = '\0';
	memcpy(first, line, sizeof first);
	char *open = strchr(first, '('), *close = strchr(first, ')');
	if (open && close > open) {
		*close = '\0';
		version = open + 1;
		if (strchr(version, ':'))
			version = strchr(version, ':') + 1;
		version[strcspn(version, "-")] = '\0';
	}
	t_check(!strncmp(line, "ntmem (", 7) && open && close > open &&
			!strcmp(version, header_version),
		"version: debian/changelog's newest entry",
		"'%s' says '%s', the header %s", line, version, header_version);
}

/* Each man page's .TH line names "ntmem VERSION". */
static void test_man_pages(void)
{
	static const char *const pages[] = {"docs/ntmem.1", "docs/ntmem.3"};
	for (size_t i = 0; i < 2; i++) {
		char want[64], name[96], first[256];
		snprintf(want, sizeof want, "\"ntmem %s\"", header_version);
		snprintf(first, sizeof first, "%s", t_file_text(pages[i]));
		first[strcspn(first, "\n")] = '\0';
		snprintf(name, sizeof name, "version: %s's .TH line", pages[i]);
		t_check(!strncmp(first, ".TH ", 4) && strstr(first, want), name,
			"'%s' lacks %s", first, want);
	}
}

/* A dry run of "make bench" in an empty build directory lists the link
 * of libntmem-preload.so among what it would build. */
static void test_bench_builds_shim(void)
{
	const char *name = "make bench builds libntmem-preload.so";
	if (t_run("command -v make >/dev/null", NULL, NULL)) {
		t_skip(name, "make is not installed");
		return;
	}
	if (t_scratch_make("build"))
		return;
	/* Not the settings of a make that may be running this test. */
	char cmd[4200], want[4200], *out = NULL;
	snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
		 "make -n O=%s bench 2>&1", t_scratch_dir());
	int st = t_run(cmd, &out, NULL);
	snprintf(want, sizeof want, "-o %s/libntmem-preload.so", t_scratch_dir());
	t_check(st == 0 && out && strstr(out, want), name,
		"status %d; '%s' not in the dry run", st, want);
	free(out);
	t_scratch_remove();
}

/* The header in C++: tests/cxx/header.cc, which declares each struct that
 * shares its name with a function as the header's C++ note says, compiles
 * with warnings as errors.  Compiled only: a cross or sanitized build's
 * library would not link into the host's C++ program. */
static void test_cplusplus(void)
{
	const char *name = "C++: the header compiles, structs declared as its "
			   "note says";
	const char *cxx = NULL;
	static const char *const compilers[] = {"g++", "clang++", "c++"};
	for (size_t i = 0; !cxx && i < sizeof compilers / sizeof compilers[0]; i++) {
		char probe[64];
		snprintf(probe, sizeof probe, "command -v %s >/dev/null", compilers[i]);
		if (!t_run(probe, NULL, NULL))
			cxx = compilers[i];
	}
	if (!cxx) {
		t_skip(name, "no C++ compiler (g++, clang++ or c++) is installed");
		return;
	}
	char cmd[512], *err = NULL;
	snprintf(cmd, sizeof cmd, "%s -std=c++11 -Wall -Wextra -Werror -fsyntax-only "
		 "-Iinclude tests/cxx/header.cc", cxx);
	int st = t_run(cmd, NULL, &err);
	t_check(st == 0, name, "%s: status %d: %s", cxx, st, err ? err : "");
	free(err);
}

/* tools/install-hint.sh: silent for a directory the loader searches by
 * itself, the three ways out for one it does not. */
static void test_install_hint(void)
{
	char *out = NULL;
	int st = t_run("tools/install-hint.sh /nonexistent/ntmem-prefix/lib", &out,
		       NULL);
	t_check(st == 0 && out &&
		strstr(out, "-Wl,-rpath,/nonexistent/ntmem-prefix/lib") &&
		strstr(out, "LD_LIBRARY_PATH=/nonexistent/ntmem-prefix/lib") &&
		strstr(out, "ldconfig"),
		"install hint: rpath, LD_LIBRARY_PATH or ldconfig for a prefix "
		"off the loader's path", "status %d, '%s'", st, out ? out : "");
	free(out);
	out = NULL;
	st = t_run("tools/install-hint.sh /usr/lib", &out, NULL);
	t_check(st == 0 && out && !*out,
		"install hint: nothing for the loader's own /usr/lib",
		"status %d, '%s'", st, out ? out : "");
	free(out);
}

/* tools/install-hint.sh warns when the Debian packages' files are there
 * too (NTMEM_DEB_ROOT: a made-up tree of them), naming each, and not for
 * an install that is itself in their place. */
static void test_install_hint_deb(void)
{
	const char *name = "install hint: a warning naming the Debian packages' "
			   "files a /usr/local install shadows";
	if (t_scratch_make("deb-root"))
		return;
	char root[1024], cmd[6000], bin[1100], lib[1100], *out = NULL;
	snprintf(root, sizeof root, "%s", t_scratch_dir());
	snprintf(bin, sizeof bin, "%s/usr/bin/ntmem", root);
	snprintf(lib, sizeof lib, "%s/usr/lib/x86_64-linux-gnu/libntmem.so.0", root);
	snprintf(cmd, sizeof cmd, "mkdir -p %s/usr/bin %s/usr/lib/x86_64-linux-gnu && "
		 "touch %s %s", root, root, bin, lib);
	if (t_run(cmd, NULL, NULL)) {
		t_fail(name, "cannot make the tree in %s", root);
		t_scratch_remove();
		return;
	}
	snprintf(cmd, sizeof cmd, "NTMEM_DEB_ROOT=%s tools/install-hint.sh "
		 "/usr/local/lib /usr/local/bin", root);
	int st = t_run(cmd, &out, NULL);
	t_check(st == 0 && out && strstr(out, "warning: the Debian packages' ntmem is "
					  "installed too") &&
		strstr(out, bin) && strstr(out, lib) && strstr(out, "make uninstall"),
		name, "status %d, '%s'", st, out ? out : "");
	free(out);
	out = NULL;
	/* Installed into the packages' own places: nothing else to shadow. */
	snprintf(cmd, sizeof cmd, "NTMEM_DEB_ROOT=%s tools/install-hint.sh "
		 "%s/usr/lib/x86_64-linux-gnu %s/usr/bin", root, root, root);
	st = t_run(cmd, &out, NULL);
	t_check(st == 0 && out && !strstr(out, "warning"),
		"install hint: no warning for an install in the packages' own places",
		"status %d, '%s'", st, out ? out : "");
	free(out);
	out = NULL;
	/* No package there: no warning. */
	snprintf(cmd, sizeof cmd, "NTMEM_DEB_ROOT=%s/none tools/install-hint.sh "
		 "/usr/local/lib /usr/local/bin", root);
	st = t_run(cmd, &out, NULL);
	t_check(st == 0 && out && !strstr(out, "warning"),
		"install hint: no warning without the packages", "status %d, '%s'", st,
		out ? out : "");
	free(out);
	t_scratch_remove();
}

int main(void)
{
	test_library_and_tool();
	test_shared_object();
	test_pkgconfig();
	test_cmake_version();
	test_debian_changelog();
	test_man_pages();
	test_bench_builds_shim();
	test_install_hint();
	test_install_hint_deb();
	test_cplusplus();
	return t_finish();
}
