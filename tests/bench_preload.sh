#!/bin/sh
# tests/bench_preload.sh [BUILD_DIR] - the shim's acceptance figures
# (issue 9), as docs/results.md quotes them.
#
#   1. No slowdown where nothing streams: python3 running a loop of small
#      bytes, bytearray and list operations, its wall time under
#      "ntmem run" (the policy in effect: profile or built-in) against
#      without the shim, the median of RUNS alternating runs each.
#   2. A program that recycles a large buffer (tests/preload/recycle.c):
#      it zeroes 256 MiB with a plain memset, then reads a 1 MiB hot
#      table.  With and without the shim, alternating: the table's
#      slowdown after the memset against warm, and the total time.
#
# A benchmark, not a test: it prints figures and ratios and asserts
# nothing.  Run it on a quiet machine; on a shared one the figures are
# noise.  RUNS (default 5) and PY_LOOPS (default 4000: about 3 s a run,
# so that starting the interpreter and the shim weighs nothing) size it;
# the whole takes about a minute.  ONLY=python or ONLY=recycle runs one.
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
RUNS=${RUNS:-5}
PY_LOOPS=${PY_LOOPS:-4000}
ONLY=${ONLY:-}
NTMEM=$B/ntmem
RECYCLE=$B/tests/preload/recycle
for f in "$NTMEM" "$RECYCLE" "$B/libntmem-preload.so"; do
	[ -e "$f" ] || { echo "bench_preload: $f is missing: make O=$B tests" >&2; exit 2; }
done
PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
	{ echo "bench_preload: python3 is not installed" >&2; exit 2; }

# The small-copy-heavy workload: thousands of copies of 1 to 350 bytes,
# nothing the policy streams.
WORKLOAD='
import os, sys
data = [bytes([i % 251]) * (i % 300 + 1) for i in range(1000)]
total = 0
for r in range(int(sys.argv[1])):
    out = []
    for d in data:
        y = bytearray(d + d[:50])
        y[10:20] = b"0123456789"
        out.append(bytes(y[::-1][:64]) + d[:r % 40])
    lst = sorted(out)
    total += len(b"".join(lst)) + len(lst[0])
t = os.times()
print(total, round(t.user + t.system, 4))
'

now_ns() { date +%s%N; }

# "WALL CPU": seconds of one run of the workload, with or without the
# shim; CPU is the interpreter's own user and system time, which other
# processes on a shared machine disturb less than the wall time.
python_run() {
	t0=$(now_ns)
	if [ "$1" = shim ]; then
		out=$("$NTMEM" run -- "$PYTHON" -c "$WORKLOAD" "$PY_LOOPS")
	else
		out=$("$PYTHON" -c "$WORKLOAD" "$PY_LOOPS")
	fi || { echo "bench_preload: the python workload failed" >&2; exit 1; }
	t1=$(now_ns)
	echo "$t0 $t1 $out" | awk '{ printf "%.4f %.4f\n", ($2 - $1) / 1e9, $4 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== the machine and the policy"
grep -m1 'model name' /proc/cpuinfo | sed 's/^/  /'
echo "  $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$NTMEM" run -- "$NTMEM" info | sed -n '/^Policy/,/^Ignored/p' | grep -E 'memset of zeros|memcpy|\[|profile|tunables' | sed 's/^/  /'

plain=$(mktemp) shim=$(mktemp) rec_plain=$(mktemp) rec_shim=$(mktemp)
trap 'rm -f "$plain" "$shim" "$rec_plain" "$rec_shim"' EXIT

python_figure() {
	echo
	echo "== 1. python3, small copies: $RUNS alternating runs each, $PY_LOOPS loops"
	python_run plain >/dev/null  # warm the page cache and the CPU
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ $((i % 2)) = 0 ]; then
			python_run plain >>"$plain"; python_run shim >>"$shim"
		else
			python_run shim >>"$shim"; python_run plain >>"$plain"
		fi
		i=$((i + 1))
	done
	for col in 1 2; do
		what=wall; [ $col = 2 ] && what=cpu
		mp=$(cut -d' ' -f$col "$plain" | median) ms=$(cut -d' ' -f$col "$shim" | median)
		echo "  $what time: without the shim median ${mp} s (runs: $(cut -d' ' -f$col "$plain" | tr '\n' ' '))"
		echo "  $what time: under ntmem run  median ${ms} s (runs: $(cut -d' ' -f$col "$shim" | tr '\n' ' '))"
		echo "$mp $ms $what" | awk '{ printf "  %s ratio %.3f (%+.1f%%); the acceptance bound is 3%% of the wall time\n", $3, $2 / $1, ($2 / $1 - 1) * 100 }'
	done
}

recycle_figure() {
	echo
	echo "== 2. recycle: memset of 256 MiB, then a 1 MiB hot table; $RUNS alternating runs each"
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ $((i % 2)) = 0 ]; then
			"$RECYCLE" 7 >>"$rec_plain"; "$NTMEM" run -- "$RECYCLE" 7 >>"$rec_shim"
		else
			"$NTMEM" run -- "$RECYCLE" 7 >>"$rec_shim"; "$RECYCLE" 7 >>"$rec_plain"
		fi
		i=$((i + 1))
	done
	field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2" | median; }
	printf "  %-18s %10s %10s %10s %10s %10s\n" "" memset_ms warm_us after_us slowdown total_ms
	for who in plain shim; do
		f=$rec_plain; name="without the shim"
		[ $who = shim ] && { f=$rec_shim; name="under ntmem run"; }
		printf "  %-18s %10s %10s %10s %10s %10s\n" "$name" "$(field memset_ms "$f")" \
			"$(field warm_us "$f")" "$(field after_us "$f")" "$(field slowdown "$f")" \
			"$(field total_ms "$f")"
	done
	sp=$(field slowdown "$rec_plain") ss=$(field slowdown "$rec_shim")
	tp=$(field total_ms "$rec_plain") ts=$(field total_ms "$rec_shim")
	echo "$sp $ss $tp $ts" | awk '{ printf "  victim slowdown %.2fx -> %.2fx; total time ratio %.3f (acceptance: the slowdown falls, the total does not grow)\n", $1, $2, $4 / $3 }'
}

[ "$ONLY" = recycle ] || python_figure
[ "$ONLY" = python ] || recycle_figure
