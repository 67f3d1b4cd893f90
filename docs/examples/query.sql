-- sqlite3 t.db < query.sql: a count over the index, then an order by
-- into a temporary table (docs/results.md, "Your own program").
select count(*), sum(length(b)) from t where k < 100;
create temp table u as select id, k, b from t order by k, id;
select count(*), sum(length(b)) from u;
