#!/bin/sh
# tools/record.sh NTMEM [NAME] - record this machine for the built-in ladders
# ("make record"): the full bench tables for memset of zeros, memset of
# 0x5a and memcpy, 64 B to 1 GiB, every function, medians of 9 interleaved
# runs (RECORD_RUNS; the host's drift makes 5 too few), twice, minutes
# apart (RECORD_PASSES: the second pass's files are NAME.2.json; the
# replay counts a size as failed only if it fails in both), with the built-in
# policy (NTMEM_PROFILE=none), each with the CPU's identity in its
# "machine" object; and "ntmem info" beside them, in data/machines/NAME
# (by default vendor-family-model, e.g. AuthenticAMD-25-1).  tests/test_replay.c
# replays every directory of data/machines/ in make check.
set -eu
ntmem=$1
name=${2:-}
if [ -z "$name" ]; then
	name=$("$ntmem" info --json | awk -F'"' '
		/"vendor"/ && !v { v = $4 }
		/"family"/ && !f { f = $3; gsub(/[^0-9]/, "", f) }
		/"model"/ && !m { m = $3; gsub(/[^0-9]/, "", m) }
		END { print v "-" f "-" m }')
fi
dir=data/machines/$name
sizes=${RECORD_SIZES:-64B,256B,1KB,4KB,32KB,256KB,1MB,4MB,16MB,64MB,256MB,1GB}
runs=${RECORD_RUNS:-9}
mkdir -p "$dir"
export NTMEM_PROFILE=none
unset NTMEM_TUNABLES
"$ntmem" info >"$dir/info.txt"
passes=${RECORD_PASSES:-2}
echo "recording into $dir: $passes passes of three tables of every function (about $((passes * 3)) minutes)"
pass=1
while [ "$pass" -le "$passes" ]; do
	suffix=
	[ "$pass" -gt 1 ] && suffix=.$pass
	"$ntmem" bench memset -s "$sizes" -f all -r "$runs" --json >"$dir/set0$suffix.json"
	"$ntmem" bench memset -s "$sizes" -f all -r "$runs" --value 0x5a --json >"$dir/set5a$suffix.json"
	"$ntmem" bench memcpy -s "$sizes" -f all -r "$runs" --json >"$dir/cpy$suffix.json"
	pass=$((pass + 1))
done
echo "recorded $dir: info.txt, and set0, set5a and cpy .json ($passes passes)"
