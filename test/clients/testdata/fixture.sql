CREATE SCHEMA sales;
CREATE TABLE sales.orders (id integer NOT NULL, customer varchar(40) NOT NULL DEFAULT 'none', amount numeric(12,2), qty smallint DEFAULT 1, big bigint, ratio real, score double precision, note text, paid boolean, day date, created timestamp, created_tz timestamptz, span interval, payload bytea, ref uuid);
CREATE TABLE public.items (item_id bigint NOT NULL, name varchar, price numeric(10,3));
INSERT INTO sales.orders VALUES (1, 'alice', 100.50, 2, 5000000000, 1.5, 2.25, 'first', true, '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05+00', '1 day 02:00:00', '\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
INSERT INTO sales.orders VALUES (2, 'bob', -7.25, NULL, NULL, NULL, NULL, NULL, false, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.items VALUES (1, 'widget', 9.99), (2, 'gadget', 19.5);
