pragma cache_size = -32000;  -- the whole database in sqlite's own cache
-- sqlite3 s.db "$(cat lookups.sql)": 300 000 point lookups (docs/results.md,
-- "Your own program"); given as an argument, so this file cannot start
-- with a comment, which sqlite3 would take for an option.
with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000)
select sum((select length(b) from t where id = (x * 7919) % 40000 + 1)) from c;
