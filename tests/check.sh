#!/bin/sh
# tests/check.sh - "make check": build and test the project every way it
# must work, and end with the line "N passed, N failed, N skipped".
#
#   gcc      -Wall -Wextra -Werror, every test
#   clang    the same build with clang, every test
#   sanitize ASan + UBSan build, every test (fewer cases)
#   qemu     the dispatch, API and variant tests on CPUs this machine is
#            not: qemu-x86_64 -cpu Nehalem (SSE2 only) and -cpu Haswell
#            (AVX2, no AVX-512), with fewer cases
#
# Anything missing (clang, qemu-user) is installed with apt-get when that
# is possible, and otherwise counted as skipped with the reason.
set -u
cd "$(dirname "$0")/.." || exit 2
MAKE=${MAKE:-make}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
TEST_TOTALS=$(mktemp)
export TEST_TOTALS
trap 'rm -f "$TEST_TOTALS"' EXIT

stage() { printf '\n== %s\n' "$*"; }
count() { echo "$1 $2 $3" >>"$TEST_TOTALS"; }
skip_stage() { echo "  skipped: $1"; count 0 0 1; }

# install_if_missing COMMAND PACKAGE: 0 when COMMAND is (now) available.
install_if_missing() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "  $1 is missing: installing the Debian package $2 (apt-get install -y $2)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1; }
	fi
	command -v "$1" >/dev/null 2>&1
}

# build NAME MAKE-ARGS...: build the library, tool and tests into build/NAME.
build() {
	name=$1
	shift
	log=build/$name.build.log
	mkdir -p build
	if $MAKE -s -j"$JOBS" O="build/$name" "$@" tests >"$log" 2>&1; then
		echo "  built build/$name"
		return 0
	fi
	echo "  FAIL: the $name build failed; the end of $log:"
	tail -n 20 "$log" | sed 's/^/    /'
	count 0 1 0
	return 1
}

stage "gcc: -Wall -Wextra -Werror, every test"
if install_if_missing gcc gcc; then
	build gcc CC=gcc && tests/run.sh build/gcc
else
	skip_stage "gcc is not installed and could not be installed"
fi

stage "clang: -Wall -Wextra -Werror, every test"
if install_if_missing clang clang; then
	build clang CC=clang && tests/run.sh build/clang
else
	skip_stage "clang is not installed and could not be installed (apt-get install clang)"
fi

stage "sanitize: ASan + UBSan, every test with fewer cases"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
if build sanitize CC=gcc CFLAGS="-O1 -g $SAN" LDFLAGS="$SAN"; then
	NTMEM_TEST_QUICK=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run.sh build/sanitize
fi

stage "qemu: CPUs this machine is not"
if [ "$(uname -m)" != x86_64 ]; then
	skip_stage "not an x86-64 machine"
elif install_if_missing qemu-x86_64 qemu-user; then
	for cpu in Nehalem Haswell; do
		echo "  qemu-x86_64 -cpu $cpu"
		expect=$(echo "$cpu" | tr 'A-Z' 'a-z')
		NTMEM_TEST_QUICK=1 NTMEM_EXPECT_CPU=$expect TEST_LOG_SUFFIX=-$expect \
			TEST_WRAPPER="qemu-x86_64 -cpu $cpu" \
			tests/run.sh build/gcc test_dispatch test_api test_variants
	done
else
	skip_stage "qemu-x86_64 is missing and could not be installed (apt-get install qemu-user)"
fi

printf '\n'
awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$TEST_TOTALS"
