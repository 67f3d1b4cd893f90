#!/bin/sh
# tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET ...] - build the libFuzzer
# targets (tests/fuzz/fuzz_*.c, or only the named ones) with clang
# -fsanitize=fuzzer,address,undefined against a library built the same way
# in BUILD_DIR, and run each for SECONDS.
#
# Each target starts from its seeds in tests/fuzz/corpus/NAME and keeps
# what it learns in BUILD_DIR/corpus/NAME.  An input that makes a target
# fail (a crash, a sanitizer report, an oracle mismatch) is copied into
# tests/fuzz/corpus/NAME/, where test_fuzz_replay runs it in every build
# from then on: commit it with the fix.
#
# Prints one line per target and adds "passed failed skipped" counts to
# $TEST_TOTALS, as tests/run.sh does.  Exit status: 0 if nothing failed.
# FUZZ_MAKE_ARGS passes more arguments to make (e.g. WERROR=).
set -u
cd "$(dirname "$0")/../.." || exit 2
dir=$1
seconds=$2
shift 2
[ $# -gt 0 ] || set -- $(cd tests/fuzz && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
totals=${TEST_TOTALS:-/dev/null}

if ! command -v clang >/dev/null 2>&1; then
	echo "  skipped: clang is not installed (apt-get install clang): no libFuzzer"
	echo "0 0 1" >>"$totals"
	exit 0
fi

mkdir -p "$dir"
# libFuzzer comes with clang's compiler-rt, which some installs lack.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
	>"$dir/probe.c"
if ! clang -fsanitize=fuzzer -o "$dir/probe" "$dir/probe.c" >/dev/null 2>&1; then
	echo "  skipped: clang cannot link -fsanitize=fuzzer here (its compiler-rt, libclang-rt-dev, is missing)"
	echo "0 0 1" >>"$totals"
	exit 0
fi

SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
CFLAGS_FUZZ="-O1 -g -fno-omit-frame-pointer $SAN"
log=$dir/build.log
# The library, brought up to date before each target is built: a header
# that changed since would otherwise give the two different layouts.
build_library() {
	# shellcheck disable=SC2086  # FUZZ_MAKE_ARGS is a list of arguments
	${MAKE:-make} -s -j"${JOBS:-2}" O="$dir" CC=clang CFLAGS="$CFLAGS_FUZZ" \
		LDFLAGS="-fsanitize=address,undefined" ${FUZZ_MAKE_ARGS:-} \
		"$dir/libntmem.a" >"$log" 2>&1 && return 0
	echo "  FAIL: the fuzzing build of the library failed; the end of $log:"
	tail -n 20 "$log" | sed 's/^/    /'
	echo "0 1 0" >>"$totals"
	return 1
}
build_library || exit 1

status=0
for t in "$@"; do
	bin=$dir/fuzz_$t
	build_library || exit 1
	if ! clang $CFLAGS_FUZZ -fsanitize=fuzzer -std=gnu11 -Wall -Wextra -Werror \
		-Iinclude -Isrc -Itests/fuzz -o "$bin" "tests/fuzz/fuzz_$t.c" \
		"$dir/libntmem.a" -pthread -lm -ldl >"$dir/fuzz_$t.build.log" 2>&1; then
		echo "  fuzz_$t: FAIL: does not build; see $dir/fuzz_$t.build.log"
		tail -n 10 "$dir/fuzz_$t.build.log" | sed 's/^/    /'
		echo "0 1 0" >>"$totals"
		status=1
		continue
	fi
	mkdir -p "$dir/corpus/$t" "$dir/artifacts"
	rm -f "$dir/artifacts/$t-"*
	# The variant target's inputs are a few dozen bytes; longer ones only
	# slow it down.
	maxlen=4096
	[ "$t" = variants ] && maxlen=64
	env -u NTMEM_TUNABLES NTMEM_PROFILE=none \
		ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
		UBSAN_OPTIONS=print_stacktrace=1 \
		"$bin" -max_total_time="$seconds" -max_len=$maxlen -timeout=20 \
		-artifact_prefix="$dir/artifacts/$t-" -print_final_stats=1 \
		"$dir/corpus/$t" "tests/fuzz/corpus/$t" >"$dir/fuzz_$t.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz_$t.log")
	found=$(ls "$dir/artifacts/$t-"* 2>/dev/null)
	if [ $rc -eq 0 ] && [ -z "$found" ]; then
		echo "  fuzz_$t: clean, ${runs:-?} runs in ${seconds} s"
		echo "1 0 0" >>"$totals"
		continue
	fi
	echo "  fuzz_$t: FAIL (exit status $rc); see $dir/fuzz_$t.log"
	grep -E 'ERROR|fuzz: |SUMMARY|runtime error' "$dir/fuzz_$t.log" | head -n 5 | sed 's/^/    /'
	for a in $found; do
		keep=tests/fuzz/corpus/$t/regress-$(basename "$a" | sed "s/^$t-//")
		cp "$a" "$keep"
		echo "    input kept as $keep (test_fuzz_replay runs it from now on)"
	done
	echo "0 1 0" >>"$totals"
	status=1
done
exit $status
