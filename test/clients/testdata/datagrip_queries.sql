-- DataGrip's own SQL on connect. DataGrip is not open source: these are only the statements
-- public issue threads quote verbatim from server logs of real DataGrip sessions, each with
-- its source; its further introspection queries are not published. It sends them through
-- pgJDBC's extended protocol; here psycopg 3 sends them (see sql_checks.py).

-- name: connect.database_schemas
-- from: https://github.com/datafusion-contrib/datafusion-postgres/issues/165 (DataGrip 2025.2.3)
select current_database() as a, current_schemas(false) as b

-- name: connect.isolation
-- from: https://github.com/datafusion-contrib/datafusion-postgres/issues/165 (DataGrip 2025.2.3)
SHOW TRANSACTION ISOLATION LEVEL

-- name: connect.session
-- from: https://github.com/datafusion-contrib/datafusion-postgres/issues/165 (DataGrip 2025.2.3)
select current_database(), current_schema(), current_user

-- name: introspect.schemas
-- from: https://github.com/dolthub/doltgresql/issues/2240 (as logged; also #791 and
-- https://github.com/risingwavelabs/risingwave/issues/14224): the schema list of the
-- introspector. state_number is xmin, a transaction id no two servers share.
-- ignore: state_number
select N.oid::bigint as id,
       N.xmin as state_number,
       nspname as name,
       D.description,
       pg_catalog.pg_get_userbyid(N.nspowner) as "owner"
from pg_catalog.pg_namespace N
  left join pg_catalog.pg_description D on N.oid = D.objoid
order by case when nspname = pg_catalog.current_schema() then -1::bigint else N.oid::bigint end
