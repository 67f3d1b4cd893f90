#!/bin/sh
# tests/run.sh BUILD_DIR [TEST ...] - run test programs of one build.
#
# Runs BUILD_DIR/tests/test_* (or only the named ones) from the repository
# root, each under $TEST_WRAPPER if set (e.g. "qemu-x86_64 -cpu Nehalem").
# Prints every failure and skip, one summary line per program, and adds
# the counts to $TEST_TOTALS (a file of "passed failed skipped" lines).
# Exit status: 0 if nothing failed.
set -u
dir=$1
shift
# By default every test whose source is here: a binary whose source is
# gone is left over from an older build.
[ $# -gt 0 ] || set -- $(ls "$dir/tests" 2>/dev/null | grep '^test_' | grep -v '\.[od]$' |
	while read -r t; do [ -f "tests/$t.c" ] && echo "$t"; done)
logdir=$dir/test-logs${TEST_LOG_SUFFIX:-}
mkdir -p "$logdir"
status=0
# The tool runs under the same wrapper as the tests: NTMEM_BIN is then a
# script beside it, so that the tool's directory is still NTMEM_BIN's.
bin=$dir/ntmem
if [ -n "${TEST_WRAPPER:-}" ]; then
	bin=$dir/ntmem-wrapped
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$TEST_WRAPPER" \
		"$(cd "$dir" && pwd)/ntmem" >"$bin" && chmod +x "$bin"
fi
for t in "$@"; do
	log=$logdir/$t.log
	# The built-in policy only: neither the user's profile nor tunables.
	# A hung test fails on its own (exit 124) instead of holding up CI.
	# shellcheck disable=SC2086  # the wrapper is a command with arguments
	timeout "${TEST_TIMEOUT:-900}" \
		env -u NTMEM_TUNABLES NTMEM_PROFILE=none NTMEM_BIN=$bin \
		${TEST_WRAPPER:-} "$dir/tests/$t" >"$log" 2>&1
	rc=$?
	[ "$rc" -eq 124 ] && echo "timed out after ${TEST_TIMEOUT:-900} s" >>"$log"
	# qemu warns about features TCG lacks; that is not our output.
	grep -E '^(FAIL|skip) ' "$log" | sed "s|^|  $t: |"
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	if [ -z "$summary" ]; then
		echo "  $t: FAIL: ended without a summary (exit status $rc); see $log"
		tail -n 5 "$log" | sed 's/^/    /'
		summary="0 passed, 1 failed, 0 skipped"
	elif [ "$rc" -ne 0 ] && echo "$summary" | grep -q ' 0 failed'; then
		echo "  $t: FAIL: exit status $rc after '$summary'; see $log"
		summary=$(echo "$summary" | sed 's/ 0 failed/ 1 failed/')
	fi
	printf '  %-18s %s\n' "$t" "$summary"
	echo "$summary" | sed 's/[^0-9 ]//g' >>"${TEST_TOTALS:-/dev/null}"
	echo "$summary" | grep -q ' 0 failed' || status=1
done
exit $status
