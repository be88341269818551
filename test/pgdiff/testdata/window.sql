-- Window functions: ranking, offsets, first/last/nth_value, aggregates over windows with
-- default, ROWS, RANGE and GROUPS frames, PARTITION BY, named windows, NULLs and peers.
CREATE TABLE w (id integer, grp text, v integer, x numeric(6,2));
INSERT INTO w VALUES
  (1, 'a', 10, 1.00), (2, 'a', 20, 2.50), (3, 'a', 20, NULL), (4, 'a', 40, 4.00),
  (5, 'b', 5, 0.50), (6, 'b', NULL, 1.50), (7, 'b', 15, 2.00), (8, 'c', 100, 10.00);

SELECT id, row_number() OVER (ORDER BY id) FROM w ORDER BY id;
SELECT id, grp, row_number() OVER (PARTITION BY grp ORDER BY id) FROM w ORDER BY id;
SELECT id, v, rank() OVER (ORDER BY v), dense_rank() OVER (ORDER BY v) FROM w ORDER BY id;
SELECT id, v, rank() OVER (ORDER BY v DESC NULLS LAST), dense_rank() OVER (ORDER BY v DESC) FROM w ORDER BY id;
SELECT id, v, percent_rank() OVER (ORDER BY v), cume_dist() OVER (ORDER BY v) FROM w ORDER BY id;
SELECT id, grp, v, rank() OVER (PARTITION BY grp ORDER BY v), percent_rank() OVER (PARTITION BY grp ORDER BY v) FROM w ORDER BY id;
SELECT id, ntile(3) OVER (ORDER BY id), ntile(5) OVER (ORDER BY id), ntile(1) OVER () FROM w ORDER BY id;
SELECT id, lag(v) OVER (ORDER BY id), lead(v) OVER (ORDER BY id), lag(v, 2, -1) OVER (ORDER BY id), lead(v, 3, 0) OVER (ORDER BY id) FROM w ORDER BY id;
SELECT id, grp, lag(id) OVER (PARTITION BY grp ORDER BY id), lead(id) OVER (PARTITION BY grp ORDER BY id) FROM w ORDER BY id;
SELECT id, first_value(v) OVER (ORDER BY id), last_value(v) OVER (ORDER BY id), nth_value(v, 2) OVER (ORDER BY id) FROM w ORDER BY id;
SELECT id, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 3) OVER w FROM w WINDOW w AS (PARTITION BY grp ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY id) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY v) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY v, id ROWS UNBOUNDED PRECEDING) FROM w ORDER BY v NULLS LAST, id;
SELECT id, v, sum(v) OVER () , count(*) OVER (), count(v) OVER () FROM w ORDER BY id;
SELECT id, grp, v, sum(v) OVER (PARTITION BY grp), avg(v) OVER (PARTITION BY grp), max(v) OVER (PARTITION BY grp) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY id;
SELECT id, v, avg(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w ORDER BY id;
SELECT id, v, min(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) FROM w ORDER BY id;
SELECT id, v, count(*) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w ORDER BY id;
SELECT id, x, sum(x) OVER (ORDER BY x RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY id;
SELECT id, v, count(*) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING EXCLUDE NO OTHERS) FROM w ORDER BY id;
SELECT id, v, sum(v) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM w WHERE v IS NOT NULL ORDER BY id;
SELECT id, v, count(*) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) FROM w ORDER BY id;
SELECT id, grp, x, sum(x) OVER (PARTITION BY grp ORDER BY id), round(avg(x) OVER (PARTITION BY grp ORDER BY id), 3) FROM w ORDER BY id;
SELECT id, v, last_value(v) OVER (ORDER BY v) FROM w ORDER BY id;
SELECT id, v, first_value(v) OVER (ORDER BY v DESC NULLS FIRST) FROM w ORDER BY id;
SELECT id, string_agg(id::text, ',') OVER (PARTITION BY grp ORDER BY id) FROM w ORDER BY id;
SELECT id, array_agg(v) OVER (ORDER BY id ROWS 2 PRECEDING) FROM w ORDER BY id;
SELECT id, v, v - lag(v) OVER (ORDER BY id) AS delta, v * 100 / sum(v) OVER () AS pct FROM w ORDER BY id;
SELECT grp, sum(v), rank() OVER (ORDER BY sum(v) DESC) FROM w GROUP BY grp ORDER BY grp;
SELECT grp, count(*), sum(count(*)) OVER () FROM w GROUP BY grp ORDER BY grp;
SELECT * FROM (SELECT id, grp, row_number() OVER (PARTITION BY grp ORDER BY v DESC NULLS LAST, id) AS rn FROM w) t WHERE rn = 1 ORDER BY grp;
SELECT id, rank() OVER w, dense_rank() OVER w, count(*) OVER w FROM w WINDOW w AS (ORDER BY grp) ORDER BY id;
SELECT id, sum(v) OVER (w ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w WINDOW w AS (PARTITION BY grp ORDER BY id) ORDER BY id;
SELECT id, count(*) FILTER (WHERE v > 10) OVER (ORDER BY id) FROM w ORDER BY id;
SELECT id, lag(x, 1, 0.00) OVER (ORDER BY id), lead(grp, 1, 'zz') OVER (ORDER BY id) FROM w ORDER BY id;
SELECT DISTINCT grp, max(v) OVER (PARTITION BY grp) FROM w ORDER BY grp;
SELECT id, row_number() OVER (ORDER BY id) FROM w ORDER BY id DESC LIMIT 3;
SELECT id, v FROM w ORDER BY rank() OVER (ORDER BY v DESC NULLS LAST), id;
-- @error
SELECT id FROM w WHERE row_number() OVER (ORDER BY id) = 1;
-- @error
SELECT ntile(0) OVER (ORDER BY id) FROM w;
SELECT id, lag(v, -1) OVER (ORDER BY id) FROM w ORDER BY id;
-- @error
SELECT id, sum(v) OVER (ORDER BY v RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM w;
-- @error
SELECT nth_value(v, 0) OVER (ORDER BY id) FROM w;
