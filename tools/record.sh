#!/bin/sh
# tools/record.sh NTMEM [NAME] - record this machine for the built-in ladders
# ("make record"): the full bench tables for memset of zeros, memset of
# 0x5a and memcpy, 64 B to 1 GiB, every function, with the built-in
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
runs=${RECORD_RUNS:-5}
mkdir -p "$dir"
export NTMEM_PROFILE=none
unset NTMEM_TUNABLES
"$ntmem" info >"$dir/info.txt"
echo "recording into $dir (three tables of every function, a few minutes)"
"$ntmem" bench memset -s "$sizes" -f all -r "$runs" --json >"$dir/set0.json"
"$ntmem" bench memset -s "$sizes" -f all -r "$runs" --value 0x5a --json >"$dir/set5a.json"
"$ntmem" bench memcpy -s "$sizes" -f all -r "$runs" --json >"$dir/cpy.json"
echo "recorded $dir: info.txt set0.json set5a.json cpy.json"
