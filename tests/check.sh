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
#   install  make install into a DESTDIR: tests/consumer built against it
#            with pkg-config and with CMake, shared and static, and run;
#            which find_package(ntmem ...) requests CMake accepts
#   deb      make deb (debian/, lintian), the packages unpacked with dpkg -x:
#            ntmem info, the shim's place and the consumers from there
#
# Anything missing (clang, qemu-user, the cross compilers and C libraries,
# pkg-config, cmake, dpkg-dev, debhelper, lintian) is installed with
# apt-get when that is possible, and otherwise counted as skipped with the
# reason.
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
# passed WHAT, failed WHAT [LOG]: one part of a stage (and LOG's end).
passed() { echo "  passed: $1"; count 1 0 0; }
failed() {
	echo "  FAIL: $1"
	[ -n "${2:-}" ] && tail -n 15 "$2" | sed 's/^/    /'
	count 0 1 0
}

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
		test_api test_hot test_learn test_parallel test_policy test_populate \
		test_split test_numa test_safe_edges
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
				test_select test_safe test_safe_handler test_safe_edges test_preload
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

# consumer_pkgconfig WHERE SYSROOT PCDIR LIBDIR [static]: tests/consumer
# built with pkg-config's flags for the ntmem.pc in PCDIR (its paths below
# SYSROOT), linked with libntmem.so and run with LIBDIR on the loader's
# path; with "static", linked with pkg-config --static into a program
# that needs no libntmem.so at all.
consumer_pkgconfig() {
	where=$1 sysroot=$2 pcdir=$3 libdir=$4 how=${5:-shared}
	exe=$PKG_WORK/pkgconfig-$how-$(echo "$where" | tr 'A-Z ' 'a-z-')
	log=$exe.log
	static=
	[ "$how" = static ] && static=--static
	# shellcheck disable=SC2086  # pkg-config's flags are a list
	if flags=$(PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_LIBDIR=$pcdir \
			pkg-config --cflags --libs $static ntmem 2>"$log") &&
	   echo "cc ${static:+-static} $flags" >>"$log" &&
	   cc -O2 ${static:+-static} -o "$exe" tests/consumer/consumer.c $flags >>"$log" 2>&1 &&
	   { [ "$how" = shared ] || ! readelf -d "$exe" | grep -q 'NEEDED.*libntmem'; } &&
	   LD_LIBRARY_PATH=$libdir "$exe" >>"$log" 2>&1; then
		passed "pkg-config, $how, $where: $(tail -n 1 "$log")"
	else
		failed "pkg-config, $how, $where: the consumer's build or run failed" "$log"
	fi
}

# consumer_cmake WHERE PREFIX LIBDIR: tests/consumer configured with
# CMAKE_PREFIX_PATH=PREFIX and find_package(ntmem MAJOR.MINOR), both of
# its programs built and run (consumer_static needs no libntmem.so).
consumer_cmake() {
	where=$1 prefix=$2 libdir=$3
	dir=$PKG_WORK/cmake-$(echo "$where" | tr 'A-Z ' 'a-z-')
	log=$dir.log
	if ! cmake -S tests/consumer -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
		-DNTMEM_WANT="${PKG_VERSION%.*}" >"$log" 2>&1 ||
	   ! cmake --build "$dir" >>"$log" 2>&1; then
		failed "CMake, $where: find_package(ntmem ${PKG_VERSION%.*}) or the build failed" "$log"
		return
	fi
	for target in ntmem ntmem_static; do
		exe=$dir/consumer_${target#ntmem_}
		[ "$target" = ntmem ] && exe=$dir/consumer_shared
		if { [ "$target" = ntmem ] || ! readelf -d "$exe" | grep -q 'NEEDED.*libntmem'; } &&
		   LD_LIBRARY_PATH=$libdir "$exe" >>"$log" 2>&1; then
			passed "CMake, ntmem::$target, $where: $(tail -n 1 "$log")"
		else
			failed "CMake, ntmem::$target, $where: the consumer failed" "$log"
		fi
	done
}
# check_install: build/gcc installed into a DESTDIR below PKG_WORK: every
# file there, the installed ntmem run preloading the installed shim, the
# consumers with pkg-config and CMake, and which versions CMake accepts.
check_install() {
	stagedir=$PKG_WORK/destdir
	prefix=$stagedir/usr/local
	if [ ! -x build/gcc/ntmem ]; then
		skip_stage "build/gcc/ntmem was not built (see the gcc stage): nothing to install"
		return
	fi
	if ! $MAKE -s O=build/gcc CC=gcc DESTDIR="$stagedir" install >"$PKG_WORK/install.log" 2>&1; then
		failed "make install DESTDIR=$stagedir" "$PKG_WORK/install.log"
		return
	fi
	missing= widths=
	[ "$(gcc -dumpmachine | cut -d- -f1)" = x86_64 ] &&
		widths="lib/sse2/libntmem-preload.so lib/avx2/libntmem-preload.so lib/avx512/libntmem-preload.so"
	for f in include/ntmem.h lib/libntmem.a lib/libntmem.so lib/libntmem.so.0 \
		lib/pkgconfig/ntmem.pc lib/cmake/ntmem/ntmemConfig.cmake \
		lib/cmake/ntmem/ntmemConfigVersion.cmake lib/libntmem-preload.so \
		$widths bin/ntmem share/man/man1/ntmem.1 share/man/man3/ntmem.3; do
		[ -e "$prefix/$f" ] || missing="$missing $f"
	done
	# The installed tool finds the installed shim (../lib beside it): on
	# x86-64 the build of this CPU's width, below it.
	preload=$(env -u LD_PRELOAD "$prefix/bin/ntmem" run -- sh -c 'echo "$LD_PRELOAD"' 2>&1)
	libreal=$(cd "$prefix/lib" && pwd -P)
	if [ -n "$missing" ]; then
		failed "make install DESTDIR: not installed:$missing"
	elif [ "$preload" != "$libreal/libntmem-preload.so" ] &&
		! echo "$preload" | grep -qx "$libreal/\(sse2\|avx2\|avx512\)/libntmem-preload\.so"; then
		failed "make install DESTDIR: the installed ntmem run preloads '$preload', not the installed shim"
	else
		passed "make install DESTDIR: every file, and ntmem run preloads the installed shim"
	fi
	if install_if_missing pkg-config pkgconf; then
		consumer_pkgconfig "DESTDIR install" "$stagedir" "$prefix/lib/pkgconfig" "$prefix/lib"
		consumer_pkgconfig "DESTDIR install" "$stagedir" "$prefix/lib/pkgconfig" "$prefix/lib" static
	else
		skip_stage "pkg-config is missing and could not be installed (apt-get install pkgconf)"
	fi
	if install_if_missing cmake cmake; then
		log=$PKG_WORK/versions.log
		if cmake -S tests/consumer/versions -B "$PKG_WORK/versions" \
			-DCMAKE_PREFIX_PATH="$prefix" -DVERSION="$PKG_VERSION" >"$log" 2>&1; then
			passed "CMake: find_package(ntmem ...): $(grep 'requests as expected' "$log")"
		else
			failed "CMake: find_package(ntmem ...) requests" "$log"
		fi
		consumer_cmake "DESTDIR install" "$prefix" "$prefix/lib"
	else
		skip_stage "cmake is missing and could not be installed (apt-get install cmake): no CMake consumer"
	fi
}

# check_deb: make deb into PKG_WORK/deb and lintian's verdict, then
# check_unpacked.  Returns 1 when no packages were built.
check_deb() {
	debs=$PKG_WORK/deb
	if ! command -v dpkg >/dev/null 2>&1; then
		skip_stage "not a Debian system (no dpkg)"
		return 1
	fi
	if ! install_if_missing dpkg-buildpackage dpkg-dev; then
		skip_stage "dpkg-buildpackage is missing and could not be installed (apt-get install dpkg-dev)"
		return 1
	fi
	if ! install_if_missing dh debhelper; then
		skip_stage "dh is missing and could not be installed (apt-get install debhelper)"
		return 1
	fi
	command -v lintian >/dev/null 2>&1 || apt_install lintian lintian
	log=$PKG_WORK/deb.log
	$MAKE -s O="$PKG_WORK" deb >"$log" 2>&1
	n=$(ls "$debs"/*.deb 2>/dev/null | wc -l)
	if [ "$n" -ne 3 ]; then
		failed "make deb: $n packages built, not 3 (see $debs/build.log)" "$log"
		return 1
	fi
	passed "make deb: $(cd "$debs" && echo *.deb)"
	# Debian's flags are not the other builds': say what they warn of.
	grep ': warning: ' "$debs/build.log" | sort -u |
		sed 's/^/  note: the package build warns: /'
	if grep -q 'lintian found no errors' "$log"; then
		passed "lintian: no errors"
	elif grep -q 'lintian is missing' "$log"; then
		skip_stage "lintian is missing and could not be installed (apt-get install lintian)"
	else
		failed "lintian found errors" "$log"
	fi
}

# check_unpacked: the packages in PKG_WORK/deb unpacked into PKG_WORK/root
# with dpkg -x: ntmem info, where ntmem run looks for the shim, and the
# consumers built against them.
check_unpacked() {
	root=$PKG_WORK/root
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$root"
	done
	libdir=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	info=$(env -u NTMEM_TUNABLES NTMEM_PROFILE=none "$root/usr/bin/ntmem" info 2>&1)
	if [ "$(echo "$info" | head -n 1)" = "ntmem $PKG_VERSION" ]; then
		passed "ntmem info from the packages: '$(echo "$info" | head -n 1)', $(echo "$info" | wc -l) lines"
	else
		echo "$info" >"$PKG_WORK/info.log"
		failed "ntmem info from the packages" "$PKG_WORK/info.log"
	fi
	# The packaged tool looks for the shim where the package puts it: it
	# preloads it from there when the package is installed, and otherwise
	# says that it looked there.
	# (The dispatching shim's directory; each width's build is below it.)
	shim=$(dpkg -c "$debs"/ntmem_*.deb | sed -n 's|.* \./\(.*/ntmem/libntmem-preload\.so\)$|/\1|p')
	said=$(env -u LD_PRELOAD "$root/usr/bin/ntmem" run -- sh -c 'echo "$LD_PRELOAD"' 2>&1)
	if [ -n "$shim" ] && { [ "$said" = "$shim" ] ||
		[ "$(dirname "$(dirname "$said")")" = "$(dirname "$shim")" ] ||
		echo "$said" | grep -qF "nor in $(dirname "$shim");"; }; then
		passed "ntmem run looks for the shim in $(dirname "$shim"), where the package puts it"
	else
		failed "ntmem run and the packaged shim ($shim): '$said'"
	fi
	if command -v pkg-config >/dev/null 2>&1; then
		consumer_pkgconfig "packages" "$root" "$libdir/pkgconfig" "$libdir"
	else
		skip_stage "pkg-config is missing: no pkg-config consumer of the packages"
	fi
	if command -v cmake >/dev/null 2>&1; then
		consumer_cmake "packages" "$root/usr" "$libdir"
	else
		skip_stage "cmake is missing: no CMake consumer of the packages"
	fi
}

PKG_WORK=$PWD/build/pkgcheck
PKG_VERSION=$(sed -n 's/^#define NTMEM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
	include/ntmem.h | paste -sd. -)
rm -rf "$PKG_WORK"
mkdir -p "$PKG_WORK"

stage "install: make install into a DESTDIR; consumers with pkg-config and CMake"
check_install

stage "deb: make deb, lintian; the packages unpacked with dpkg -x"
check_deb && check_unpacked

printf '\n'
awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$TEST_TOTALS"
