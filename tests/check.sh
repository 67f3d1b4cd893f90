#!/bin/sh
# tests/check.sh - "make check": build and test the project every way it
# must work, and end with the line "N passed, N failed, N skipped".
#
#   gcc      -Wall -Wextra -Werror, every test
#   clang    the same build with clang, every test
#   sanitize ASan + UBSan build, every test (fewer cases)
#   tsan     ThreadSanitizer build, the tests that run threads (fewer
#            cases); its signal handling differs, so not the signal tests
#   fuzz     each libFuzzer target in tests/fuzz for FUZZ_SECONDS (20) s
#   qemu     the dispatch, API, variant, small-path, safe and shim tests
#            on CPUs this machine is not: qemu-x86_64 -cpu Nehalem (SSE2
#            only) and -cpu Haswell (AVX2, no AVX-512), with fewer cases
#   aarch64  cross-built; every test under qemu-aarch64 -cpu cortex-a57
#            (64-byte DC ZVA blocks), the CPU-dependent ones under a64fx
#            (256-byte blocks and lines) and max (512-byte blocks) too;
#            DC ZVA prohibited (DZP) only through test_dczva's stand-in
#            DCZID_EL0, as qemu-user never sets DZP
#   riscv64  cross-built; every test under qemu-riscv64: the portable
#            variants alone
#
# Anything missing (clang, qemu-user, the cross compilers and C libraries)
# is installed with apt-get when that is possible, and otherwise counted
# as skipped with the reason.
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

# apt_install WHAT PACKAGE: install PACKAGE, which provides WHAT, when
# this is root on a system with apt-get.
apt_install() {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "  $1 is missing: installing the Debian package $2 (apt-get install -y $2)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 ||
			{ apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1; }
	fi
}

# install_if_missing COMMAND PACKAGE: 0 when COMMAND is (now) available.
install_if_missing() {
	command -v "$1" >/dev/null 2>&1 && return 0
	apt_install "$1" "$2"
	command -v "$1" >/dev/null 2>&1
}

# install_file_if_missing FILE PACKAGE: 0 when FILE is (now) there.
install_file_if_missing() {
	[ -e "$1" ] && return 0
	apt_install "$1" "$2"
	[ -e "$1" ]
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

# bench's pmem peer is opened with dlopen where PMDK's libpmem is
# installed; test_peers checks its results then, and skips them, with
# dlopen's reason, where it is not.
if ! ldconfig -p 2>/dev/null | grep -q 'libpmem\.so\.1 '; then
	apt_install libpmem.so.1 libpmem1
fi

# test_valgrind runs safe calls under valgrind where it is installed, and
# skips, with the reason, where it is not.
install_if_missing valgrind valgrind >/dev/null

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

stage "tsan: ThreadSanitizer, the tests that run threads"
TSAN="-fsanitize=thread"
mkdir -p build
if ! printf 'int main(void){return 0;}\n' |
	gcc $TSAN -x c -o build/tsan-probe - >/dev/null 2>&1 || ! build/tsan-probe; then
	skip_stage "gcc cannot build or run a ThreadSanitizer program here (libtsan missing, or an address-space layout it cannot use)"
elif build tsan CC=gcc CFLAGS="-O1 -g $TSAN" LDFLAGS="$TSAN"; then
	NTMEM_TEST_QUICK=1 TSAN_OPTIONS=halt_on_error=1 tests/run.sh build/tsan \
		test_api test_hot test_parallel test_policy test_populate test_split \
		test_numa test_safe_edges
fi
rm -f build/tsan-probe

stage "fuzz: each libFuzzer target for ${FUZZ_SECONDS:-20} s (clang)"
if install_if_missing clang clang; then
	tests/fuzz/run.sh build/fuzz "${FUZZ_SECONDS:-20}"
else
	skip_stage "clang is not installed and could not be installed (apt-get install clang): no libFuzzer"
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
			tests/run.sh build/gcc test_dispatch test_api test_variants test_small \
				test_safe test_safe_handler test_safe_edges test_preload
	done
else
	skip_stage "qemu-x86_64 is missing and could not be installed (apt-get install qemu-user)"
fi

# cross ARCH TRIPLET LIBC_PACKAGE MODEL...: build build/ARCH with
# TRIPLET-gcc, run every test under qemu-ARCH -cpu MODEL (the first one;
# "default": qemu's own CPU), then the tests that depend on the CPU under
# each further model.  NTMEM_EXPECT_CPU tells test_dispatch the model
# ("portable" for the default), NTMEM_EMULATED tells the tool that its
# numbers are an emulator's.
cross() {
	arch=$1 triplet=$2 libc=$3
	shift 3
	if [ "$(uname -m)" != x86_64 ]; then
		skip_stage "cross-built stages run on x86-64 hosts only"
		return
	fi
	if ! install_if_missing "$triplet-gcc" "gcc-$triplet"; then
		skip_stage "$triplet-gcc is missing and could not be installed (apt-get install gcc-$triplet)"
		return
	fi
	if ! install_file_if_missing "/usr/$triplet/include/stdio.h" "$libc"; then
		skip_stage "the $arch C library is missing and could not be installed (apt-get install $libc)"
		return
	fi
	if ! install_if_missing "qemu-$arch" qemu-user; then
		skip_stage "qemu-$arch is missing and could not be installed (apt-get install qemu-user)"
		return
	fi
	build "$arch" CC="$triplet-gcc" || return
	only=
	for model in "$@"; do
		wrapper="qemu-$arch -cpu $model" expect=$model
		[ "$model" = default ] && wrapper=qemu-$arch expect=portable
		echo "  $wrapper: ${only:-every test}"
		# shellcheck disable=SC2086  # $only is a list of test names
		QEMU_LD_PREFIX=/usr/$triplet NTMEM_EMULATED=1 NTMEM_TEST_QUICK=1 \
			NTMEM_EXPECT_CPU=$expect TEST_LOG_SUFFIX=-$model \
			TEST_WRAPPER="$wrapper" tests/run.sh "build/$arch" $only
		only="test_dispatch test_api test_variants test_small test_dczva test_fence"
	done
}

stage "aarch64: cross-built, every test under qemu-aarch64"
cross aarch64 aarch64-linux-gnu libc6-dev-arm64-cross cortex-a57 a64fx max

stage "riscv64: cross-built, every test under qemu-riscv64 (portable variants only)"
cross riscv64 riscv64-linux-gnu libc6-dev-riscv64-cross default

printf '\n'
awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$TEST_TOTALS"
