-- GROUP BY (columns, expressions, ordinals), HAVING, DISTINCT, count(DISTINCT), FILTER, and
-- the aggregates: sum, avg, min, max, count, string_agg, array_agg, bool_and/bool_or,
-- stddev/variance, percentile_cont/percentile_disc, mode.
CREATE TABLE sales (id integer, region text, product text, qty integer, price numeric(8,2), day date);
INSERT INTO sales VALUES
  (1, 'east', 'apple', 10, 1.20, '2024-01-01'),
  (2, 'east', 'pear', 5, 2.50, '2024-01-01'),
  (3, 'west', 'apple', 7, 1.10, '2024-01-02'),
  (4, 'west', 'apple', NULL, 1.10, '2024-01-02'),
  (5, 'north', 'plum', 3, 4.00, '2024-01-03'),
  (6, 'east', 'apple', 2, 1.25, '2024-01-03'),
  (7, NULL, 'pear', 8, 2.40, '2024-01-04'),
  (8, 'west', NULL, 1, NULL, '2024-01-04'),
  (9, 'east', 'plum', 4, 3.90, NULL),
  (10, 'north', 'apple', 6, 1.00, '2024-01-05');

SELECT region, count(*) FROM sales GROUP BY region ORDER BY region;
SELECT region, product, sum(qty), max(price) FROM sales GROUP BY region, product ORDER BY region, product;
SELECT region, sum(qty * price) AS revenue FROM sales GROUP BY region ORDER BY revenue DESC NULLS LAST;
SELECT product, count(*), count(qty), sum(qty), avg(qty), min(qty), max(qty) FROM sales GROUP BY product ORDER BY product NULLS FIRST;
SELECT product, avg(price), sum(price), avg(price * qty) FROM sales GROUP BY product ORDER BY product;
SELECT region, count(*) FROM sales GROUP BY 1 ORDER BY 2 DESC, 1;
SELECT upper(region) AS r, count(*) FROM sales GROUP BY upper(region) ORDER BY r;
SELECT qty % 2 AS odd, count(*), sum(qty) FROM sales GROUP BY qty % 2 ORDER BY odd NULLS LAST;
SELECT extract(day FROM day) AS d, count(*) FROM sales GROUP BY d ORDER BY d;
SELECT region, count(*) FROM sales GROUP BY region HAVING count(*) > 2 ORDER BY region;
SELECT region, sum(qty) FROM sales GROUP BY region HAVING sum(qty) > 10 AND region IS NOT NULL ORDER BY region;
SELECT region FROM sales GROUP BY region HAVING min(price) < 1.2 ORDER BY region;
SELECT count(*) FROM sales HAVING count(*) > 5;
SELECT count(*) FROM sales HAVING count(*) > 50;
SELECT sum(qty) FROM sales WHERE false;
SELECT region, sum(qty) FROM sales WHERE false GROUP BY region;
SELECT DISTINCT region FROM sales ORDER BY region;
SELECT DISTINCT region, product FROM sales ORDER BY region, product;
SELECT DISTINCT qty % 3 FROM sales ORDER BY 1;
SELECT count(DISTINCT region), count(DISTINCT product), count(DISTINCT (region, product)) FROM sales;
SELECT region, count(DISTINCT product), sum(DISTINCT qty) FROM sales GROUP BY region ORDER BY region;
SELECT avg(DISTINCT price), count(DISTINCT price) FROM sales;
SELECT region, count(*) FILTER (WHERE qty > 4), sum(qty) FILTER (WHERE product = 'apple') FROM sales GROUP BY region ORDER BY region;
SELECT count(*) FILTER (WHERE price IS NULL), avg(qty) FILTER (WHERE region <> 'east') FROM sales;
SELECT region, string_agg(product, ',' ORDER BY product) FROM sales GROUP BY region ORDER BY region;
SELECT string_agg(DISTINCT product, '|' ORDER BY product) FROM sales;
SELECT region, string_agg(product, ',' ORDER BY qty DESC, id) FROM sales GROUP BY region ORDER BY region;
SELECT string_agg(product, ',' ORDER BY product NULLS FIRST, id DESC), string_agg(region, ';' ORDER BY day DESC NULLS LAST, id) FROM sales;
SELECT string_agg(DISTINCT product, '|' ORDER BY product DESC) FROM sales;
-- @error
SELECT string_agg(DISTINCT product, '|' ORDER BY id) FROM sales;
SELECT region, string_agg(product || ':' || qty, ' ' ORDER BY price * qty) FILTER (WHERE qty > 2), sum(qty ORDER BY id) FROM sales GROUP BY region ORDER BY region;
SELECT region, array_agg(qty ORDER BY id) FROM sales GROUP BY region ORDER BY region;
SELECT array_agg(DISTINCT region ORDER BY region) FROM sales;
SELECT region, bool_and(qty > 2), bool_or(qty > 8) FROM sales GROUP BY region ORDER BY region;
SELECT stddev(qty), stddev_pop(qty), variance(qty), var_pop(qty) FROM sales;
SELECT region, stddev_samp(price), var_samp(price) FROM sales GROUP BY region ORDER BY region;
SELECT stddev(qty::float8), variance(qty::float8) FROM sales;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY qty), percentile_disc(0.5) WITHIN GROUP (ORDER BY qty) FROM sales;
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY price), percentile_disc(0.9) WITHIN GROUP (ORDER BY price) FROM sales;
SELECT region, percentile_cont(0.5) WITHIN GROUP (ORDER BY qty DESC) FROM sales GROUP BY region ORDER BY region;
SELECT mode() WITHIN GROUP (ORDER BY product), mode() WITHIN GROUP (ORDER BY region) FROM sales;
SELECT min(product), max(product), min(day), max(day) FROM sales;
SELECT region, min(day), max(day) - min(day) FROM sales GROUP BY region ORDER BY region;
SELECT count(*), count(1), count(NULL), count(region) FROM sales;
SELECT sum(1), sum(0.5), avg(1), max(1) FROM sales;
SELECT region, product, count(*) FROM sales GROUP BY product, region HAVING count(*) >= 2 ORDER BY 1, 2;
SELECT region, sum(qty) AS s FROM sales GROUP BY region ORDER BY s, region;
SELECT region || '-' || product AS k, count(*) FROM sales GROUP BY region || '-' || product ORDER BY k NULLS FIRST;
SELECT region, count(*) * 2 + 1, sum(qty) / count(*), round(avg(price), 1) FROM sales GROUP BY region ORDER BY region;
SELECT max(qty) - min(qty), sum(qty)::float8 / count(qty) FROM sales;
SELECT x, count(*) FROM (SELECT qty / 5 AS x FROM sales) s GROUP BY x ORDER BY x;
SELECT count(*) FROM (SELECT DISTINCT region FROM sales) s;
-- @error
SELECT region, qty FROM sales GROUP BY region;
-- @error
SELECT region FROM sales GROUP BY 5;
-- @error
SELECT sum(count(*)) FROM sales;
-- @error
SELECT region FROM sales WHERE count(*) > 1 GROUP BY region;
SELECT id, count(*) FROM sales GROUP BY id HAVING id < 3 ORDER BY id;
SELECT DISTINCT ON (region) region, product, qty FROM sales ORDER BY region, qty DESC;
SELECT DISTINCT ON (product) product, id FROM sales ORDER BY product NULLS FIRST, id DESC;
-- eager aggregation: a GROUP BY over a join whose sums and extremes read
-- one side is partly done before the join (sql/planner/eager_agg.go)
CREATE TABLE ea_fact AS SELECT n AS id, 1 + n % 40 AS dk, n % 7 AS wk, ((n % 13) * 0.25)::numeric(10,2) AS amt, 'p' || (n % 11) AS tag FROM generate_series(1, 3000) g(n);
CREATE TABLE ea_dim AS SELECT n AS dk, 'name ' || (n % 9) AS name FROM generate_series(1, 40) g(n);
INSERT INTO ea_fact VALUES (3001, NULL, 1, 2.5, NULL), (3002, 41, 2, 1.25, 'x'), (3003, 3, NULL, NULL, 'y');
SELECT name, wk, sum(amt), min(tag), max(amt) FROM ea_fact JOIN ea_dim ON ea_fact.dk = ea_dim.dk GROUP BY name, wk ORDER BY name, wk;
SELECT name, sum(amt) FROM ea_fact f, ea_dim d WHERE f.dk = d.dk GROUP BY name ORDER BY 1;
SELECT sum(amt), max(tag) FROM ea_fact JOIN ea_dim USING (dk);
SELECT d.dk, name, sum(amt), max(wk) FROM ea_fact f JOIN ea_dim d ON f.dk = d.dk GROUP BY d.dk, name ORDER BY 1 LIMIT 5;
SELECT name, wk + 1, sum(amt) FROM ea_fact JOIN ea_dim ON ea_fact.dk = ea_dim.dk GROUP BY name, wk + 1 HAVING sum(amt) > 40 ORDER BY 1, 2;
-- a dimension key met twice: every pair still counts
INSERT INTO ea_dim VALUES (5, 'twin');
SELECT name, sum(amt), min(amt), max(tag) FROM ea_fact JOIN ea_dim ON ea_fact.dk = ea_dim.dk GROUP BY name ORDER BY name;
