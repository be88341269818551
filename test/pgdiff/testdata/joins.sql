-- Joins: inner, left, right, full, cross, comma, USING, NATURAL, self joins, NULL keys,
-- conditions in ON versus WHERE, join of three tables, joins with aggregates.
CREATE TABLE emp (id integer, name text, dept integer, boss integer, salary numeric(8,2));
CREATE TABLE dept (id integer, dname text, city text);
CREATE TABLE city (city text, country text);
INSERT INTO emp VALUES
  (1, 'ann', 10, NULL, 5000),
  (2, 'bob', 10, 1, 4000),
  (3, 'cid', 20, 1, 4500),
  (4, 'dan', NULL, 2, 3000),
  (5, 'eve', 30, 3, 3500),
  (6, 'fay', 20, 3, NULL);
INSERT INTO dept VALUES (10, 'sales', 'paris'), (20, 'dev', 'berlin'), (40, 'ops', 'paris'), (NULL, 'ghost', NULL);
INSERT INTO city VALUES ('paris', 'fr'), ('berlin', 'de'), ('rome', 'it');

SELECT e.name, d.dname FROM emp e JOIN dept d ON e.dept = d.id ORDER BY e.name;
SELECT e.name, d.dname FROM emp e INNER JOIN dept d ON d.id = e.dept AND d.city = 'paris' ORDER BY e.name;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id ORDER BY e.name;
SELECT e.name, d.dname FROM emp e LEFT OUTER JOIN dept d ON e.dept = d.id AND d.city = 'berlin' ORDER BY e.name;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id WHERE d.city = 'berlin' ORDER BY e.name;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id WHERE d.id IS NULL ORDER BY e.name;
SELECT e.name, d.dname FROM emp e RIGHT JOIN dept d ON e.dept = d.id ORDER BY d.dname, e.name;
SELECT e.name, d.dname FROM emp e RIGHT JOIN dept d ON e.dept = d.id WHERE e.id IS NULL ORDER BY d.dname;
SELECT e.name, d.dname FROM emp e FULL JOIN dept d ON e.dept = d.id ORDER BY e.name NULLS LAST, d.dname;
SELECT e.name, d.dname FROM emp e FULL OUTER JOIN dept d ON e.dept = d.id AND e.salary > 4000 ORDER BY e.name NULLS LAST, d.dname;
SELECT count(*) FROM emp CROSS JOIN dept;
SELECT e.name, d.dname FROM emp e CROSS JOIN dept d WHERE e.id <= 2 ORDER BY e.name, d.dname NULLS FIRST;
SELECT e.name, d.dname FROM emp e, dept d WHERE e.dept = d.id AND e.salary >= 4000 ORDER BY e.name;
SELECT e.name, d.dname, c.country FROM emp e, dept d, city c WHERE e.dept = d.id AND d.city = c.city ORDER BY e.name;
SELECT e.name, d.dname, c.country FROM emp e JOIN dept d ON e.dept = d.id JOIN city c ON c.city = d.city ORDER BY e.name;
SELECT e.name, d.dname, c.country FROM emp e LEFT JOIN dept d ON e.dept = d.id LEFT JOIN city c ON c.city = d.city ORDER BY e.name;
SELECT d.dname, c.country FROM dept d FULL JOIN city c USING (city) ORDER BY d.dname NULLS FIRST, c.country;
SELECT city, d.dname, c.country FROM dept d FULL JOIN city c USING (city) ORDER BY city NULLS FIRST, d.dname;
SELECT * FROM dept JOIN city USING (city) ORDER BY id;
SELECT * FROM dept NATURAL JOIN city ORDER BY id;
SELECT * FROM dept NATURAL LEFT JOIN city ORDER BY id NULLS LAST, dname;
SELECT e.name, b.name AS boss FROM emp e JOIN emp b ON e.boss = b.id ORDER BY e.name;
SELECT e.name, b.name AS boss FROM emp e LEFT JOIN emp b ON e.boss = b.id ORDER BY e.name;
SELECT b.name, count(e.id) FROM emp b LEFT JOIN emp e ON e.boss = b.id GROUP BY b.name ORDER BY b.name;
SELECT a.name, b.name FROM emp a JOIN emp b ON a.dept = b.dept AND a.id < b.id ORDER BY a.name, b.name;
SELECT d.dname, count(e.id), sum(e.salary), avg(e.salary) FROM dept d LEFT JOIN emp e ON e.dept = d.id GROUP BY d.dname ORDER BY d.dname;
SELECT d.city, count(*) FROM emp e JOIN dept d ON e.dept = d.id GROUP BY d.city ORDER BY d.city;
SELECT e.name FROM emp e JOIN dept d ON e.dept = d.id OR e.dept IS NULL AND d.id = 40 ORDER BY e.name;
SELECT e.name, d.dname FROM emp e JOIN dept d ON e.dept < d.id ORDER BY e.name, d.dname;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON false ORDER BY e.name;
SELECT e.name, d.dname FROM emp e JOIN dept d ON true WHERE e.id = 1 ORDER BY d.dname;
SELECT e1.id, e2.id FROM emp e1 JOIN emp e2 ON e1.dept IS NOT DISTINCT FROM e2.dept AND e1.id <> e2.id ORDER BY 1, 2;
SELECT x.n, y.n FROM (VALUES (1), (2), (NULL)) x(n) JOIN (VALUES (2), (NULL), (3)) y(n) ON x.n = y.n;
SELECT x.n, y.n FROM (VALUES (1), (2), (NULL)) x(n) FULL JOIN (VALUES (2), (NULL), (3)) y(n) ON x.n = y.n ORDER BY x.n NULLS LAST, y.n NULLS LAST;
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) x(k, v) JOIN (VALUES (1, 'x'), (1, 'y')) y(k, w) USING (k) ORDER BY w;
SELECT e.name, d.dname FROM emp e JOIN (SELECT * FROM dept WHERE city = 'paris') d ON d.id = e.dept ORDER BY e.name;
SELECT e.name, s.total FROM emp e JOIN (SELECT dept, sum(salary) AS total FROM emp GROUP BY dept) s ON s.dept = e.dept ORDER BY e.name;
SELECT d.dname, e.name FROM dept d LEFT JOIN LATERAL (SELECT name FROM emp WHERE emp.dept = d.id ORDER BY salary DESC NULLS LAST LIMIT 1) e ON true ORDER BY d.dname;
SELECT d.dname, x.n FROM dept d, LATERAL (SELECT count(*) AS n FROM emp WHERE emp.dept = d.id) x ORDER BY d.dname;
SELECT count(*) FROM emp a, emp b, emp c WHERE a.id < b.id AND b.id < c.id;
SELECT e.name FROM emp e JOIN dept d ON e.dept = d.id JOIN city c ON c.city = d.city AND c.country = 'de' ORDER BY 1;
-- @error
SELECT id FROM emp JOIN dept ON emp.dept = dept.id;
-- @error
SELECT * FROM emp JOIN dept USING (nosuch);
-- LATERAL subqueries with ORDER BY … LIMIT, aggregates, GROUP BY, DISTINCT, set operations and
-- nested correlation; correlated subqueries in the ON condition of outer joins.
SELECT d.dname, e.name, e.salary FROM dept d JOIN LATERAL (SELECT name, salary FROM emp WHERE emp.dept = d.id ORDER BY salary NULLS FIRST LIMIT 2) e ON true ORDER BY 1, 2;
SELECT d.dname, e.* FROM dept d LEFT JOIN LATERAL (SELECT name, salary FROM emp WHERE emp.dept = d.id ORDER BY salary DESC LIMIT 2) e ON e.salary > 4000 ORDER BY 1, 2;
SELECT d.dname, x.* FROM dept d CROSS JOIN LATERAL (SELECT max(salary) AS m, min(name) AS n, count(*) AS c FROM emp e WHERE e.dept = d.id) x ORDER BY 1;
SELECT d.dname, x.* FROM dept d, LATERAL (SELECT e.boss, count(*) AS n FROM emp e WHERE e.dept = d.id GROUP BY e.boss) x ORDER BY 1, 2 NULLS FIRST;
SELECT d.dname, x.boss FROM dept d LEFT JOIN LATERAL (SELECT DISTINCT boss FROM emp e WHERE e.dept = d.id) x ON true ORDER BY 1, 2;
SELECT d.dname, x.c FROM dept d, LATERAL (SELECT count(*) AS c FROM emp e WHERE e.salary > (SELECT avg(salary) FROM emp e2 WHERE e2.dept = d.id)) x ORDER BY 1;
SELECT d.dname, x.name FROM dept d, LATERAL (SELECT name FROM emp WHERE dept = d.id UNION SELECT city FROM city WHERE city.city = d.city) x ORDER BY 1, 2;
SELECT d.dname, (SELECT e.name FROM emp e WHERE e.dept = d.id ORDER BY e.salary DESC NULLS LAST LIMIT 1) AS top FROM dept d ORDER BY 1;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON d.id = (SELECT max(x.dept) FROM emp x WHERE x.boss = e.id) ORDER BY e.name;
SELECT e.name, c.country FROM emp e JOIN dept d ON d.id = e.dept LEFT JOIN city c ON c.city = d.city AND EXISTS (SELECT 1 FROM emp x WHERE x.dept = d.id AND x.salary > 4400) ORDER BY 1;
SELECT * FROM dept d LEFT JOIN city c ON c.country = (SELECT min(x.country) FROM city x WHERE x.city = d.city) ORDER BY d.dname;
-- a bigint joined with a numeric with a fraction: keys compared exactly, no overflow
CREATE TABLE jb (id integer, g bigint);
CREATE TABLE jn (id integer, n numeric(5,2));
INSERT INTO jb VALUES (1, -9223372036854775808), (2, 5), (3, 9223372036854775807);
INSERT INTO jn VALUES (1, 5), (2, 999.99), (3, 5.5);
SELECT jb.id, jn.id FROM jb JOIN jn ON jb.g = jn.n ORDER BY 1, 2;
SELECT id FROM jb WHERE g IN (SELECT n FROM jn) ORDER BY id;
SELECT id FROM jn WHERE n NOT IN (SELECT g FROM jb) ORDER BY id;
-- a LEFT JOIN beside other tables: those joined to its preserved side are joined below it,
-- and the columns keep the order written
SELECT * FROM emp e LEFT JOIN dept d ON e.dept = d.id, city c WHERE c.city = 'paris' AND e.salary > 3000 ORDER BY e.id, c.city;
SELECT * FROM city c, emp e LEFT JOIN dept d ON e.dept = d.id WHERE d.city IS NULL ORDER BY e.id, c.city;
SELECT e.name, d.dname, b.name FROM emp e LEFT JOIN dept d ON e.dept = d.id AND d.city = 'paris', emp b WHERE b.id = e.boss ORDER BY e.name;
SELECT e.name, d.dname, c.country FROM emp e LEFT JOIN dept d ON e.dept = d.id JOIN city c ON c.city = d.city ORDER BY e.name;
SELECT e.name, d.dname, b.name FROM emp e LEFT JOIN dept d ON e.dept = d.id JOIN emp b ON b.id = e.boss WHERE d.id IS NULL OR b.salary > 4000 ORDER BY e.name;
SELECT count(*), count(d.id), sum(c.country IS NULL::int) FROM emp e LEFT JOIN dept d ON e.dept = d.id, city c;
-- the ON condition still reads only the two tables it joins
-- @error
SELECT e.name FROM emp e LEFT JOIN dept d ON e.dept = d.id AND c.city = d.city, city c;
-- @error
SELECT e.name FROM emp e LEFT JOIN dept d ON e.dept = d.id AND country = 'fr', city c;
SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.id AND dname <> 'dev', city WHERE city.city = d.city ORDER BY 1;
-- city in ON is dept's column, not city's: city is not in reach of ON
SELECT e.name, d.dname, c.city FROM emp e LEFT JOIN dept d ON e.dept = d.id AND city = 'paris', city c ORDER BY 1, 3;
-- ... with a correlated subquery in WHERE, whose columns come after the FROM items'
SELECT * FROM emp e LEFT JOIN dept d ON e.dept = d.id, city c WHERE 20 >= ANY (SELECT d.id) ORDER BY e.id, c.city;
SELECT * FROM emp e LEFT JOIN dept d ON e.dept = d.id, city c WHERE e.id NOT IN (SELECT length(c.city)) AND c.country <> 'it' ORDER BY e.id, c.city;
