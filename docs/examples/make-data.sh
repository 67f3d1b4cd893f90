#!/bin/sh
# make-data.sh DIR - the inputs of docs/results.md's "Your own program":
# a 67.5 MB text file, t.db (200 000 rows of 1000 bytes and an indexed
# integer) and s.db (40 000 rows of 200 bytes).  Needs sqlite3.
set -eu
dir=${1:-.}
head -c 50000000 /dev/urandom | base64 > "$dir/big.txt"
rm -f "$dir/t.db" "$dir/s.db"
sqlite3 "$dir/t.db" "create table t(id integer primary key, k integer, b blob);
  with recursive c(x) as (select 1 union all select x + 1 from c where x < 200000)
  insert into t select x, abs(random()) % 1000, randomblob(1000) from c;
  create index tk on t(k);"
sqlite3 "$dir/s.db" "create table t(id integer primary key, b blob);
  with recursive c(x) as (select 1 union all select x + 1 from c where x < 40000)
  insert into t select x, randomblob(200) from c;"
