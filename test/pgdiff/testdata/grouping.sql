-- GROUPING SETS, ROLLUP, CUBE and grouping(): the super-aggregate rows, NULL keys versus
-- rolled-up keys, ordering of the result.
CREATE TABLE g (region text, product text, year integer, amount numeric(8,2));
INSERT INTO g VALUES
  ('east', 'apple', 2023, 10.00), ('east', 'apple', 2024, 12.50), ('east', 'pear', 2024, 3.00),
  ('west', 'apple', 2023, 7.25), ('west', 'plum', 2024, 4.00), (NULL, 'pear', 2023, 1.00),
  ('west', NULL, 2024, 2.00);

SELECT region, sum(amount) FROM g GROUP BY ROLLUP (region) ORDER BY grouping(region), region NULLS LAST;
SELECT region, product, sum(amount) FROM g GROUP BY ROLLUP (region, product) ORDER BY grouping(region, product), region NULLS LAST, product NULLS LAST;
SELECT region, product, sum(amount), grouping(region), grouping(product), grouping(region, product) FROM g GROUP BY ROLLUP (region, product) ORDER BY 4, 5, region NULLS LAST, product NULLS LAST;
SELECT region, product, count(*) FROM g GROUP BY CUBE (region, product) ORDER BY grouping(region, product), region NULLS LAST, product NULLS LAST;
SELECT region, year, sum(amount) FROM g GROUP BY GROUPING SETS ((region), (year), ()) ORDER BY grouping(region, year), region NULLS LAST, year NULLS LAST;
SELECT region, year, sum(amount), grouping(region, year) FROM g GROUP BY GROUPING SETS ((region, year), (region), ()) ORDER BY grouping(region, year), region NULLS LAST, year;
SELECT year, count(*) FROM g GROUP BY GROUPING SETS (year, ()) ORDER BY year NULLS FIRST;
SELECT region, product, year, sum(amount) FROM g GROUP BY ROLLUP (region, product, year) HAVING sum(amount) > 10 ORDER BY grouping(region, product, year), 1 NULLS LAST, 2 NULLS LAST, 3 NULLS LAST;
SELECT region, product, sum(amount) FROM g GROUP BY region, ROLLUP (product) ORDER BY grouping(product), region NULLS LAST, product NULLS LAST;
SELECT CASE WHEN grouping(region) = 1 THEN 'ALL' ELSE coalesce(region, '(none)') END AS r, sum(amount) FROM g GROUP BY ROLLUP (region) ORDER BY r;
SELECT region, count(DISTINCT product) FROM g GROUP BY CUBE (region) ORDER BY grouping(region), region NULLS LAST;
SELECT year, product, max(amount) FROM g GROUP BY GROUPING SETS ((year, product), (product)) ORDER BY product NULLS LAST, year NULLS LAST;
SELECT sum(amount) FROM g GROUP BY GROUPING SETS (());
SELECT region, sum(amount) FROM g GROUP BY GROUPING SETS ((region), (region)) ORDER BY region NULLS LAST;
SELECT region, year, sum(amount) FROM g GROUP BY CUBE (region, year) ORDER BY grouping(region, year), 1 NULLS LAST, 2 NULLS LAST;
SELECT region, product, grouping(product) FROM g GROUP BY ROLLUP (region, product) HAVING grouping(product) = 1 ORDER BY grouping(region), region NULLS LAST;
-- grouping() inside window functions over ROLLUP (the shape of TPC-DS q70 and q86)
SELECT region, product, grouping(region) + grouping(product) AS lochierarchy,
  rank() OVER (PARTITION BY grouping(region) + grouping(product), CASE WHEN grouping(product) = 0 THEN region END ORDER BY sum(amount) DESC) AS rank_within_parent
  FROM g GROUP BY ROLLUP (region, product) ORDER BY lochierarchy DESC, region NULLS LAST, rank_within_parent, product NULLS LAST;
SELECT region, grouping(region), sum(amount), rank() OVER (ORDER BY grouping(region), sum(amount)), sum(grouping(region)) OVER (), first_value(grouping(region) * 10) OVER (ORDER BY region NULLS FIRST) FROM g GROUP BY ROLLUP (region) ORDER BY region NULLS LAST;
SELECT region, year, row_number() OVER (PARTITION BY grouping(region, year) ORDER BY region NULLS LAST, year NULLS LAST) FROM g GROUP BY CUBE (region, year) ORDER BY grouping(region, year), 3;
