// Package topology tests lakepg scaled out: several lakepg servers on one
// PostgreSQL catalog and one data directory, behind the connection pooler
// and load balancer people put in front of PostgreSQL.
//
// The cluster of each test is real: a fresh catalog database on the test
// PostgreSQL (LAKEPG_TEST_PG_DSN), two lakepg processes (the built binary)
// listening on one port at two loopback addresses (127.0.0.2 and 127.0.0.3,
// since a PgBouncer 1.18 database entry takes a list of hosts but one
// port), Debian's PgBouncer 1.18 in front of them, and HAProxy 2.6 as a
// TCP balancer with health checks between PgBouncer and lakepg for the
// pool that must survive a server going away. Logins are SCRAM-SHA-256 all
// the way: clients to PgBouncer, PgBouncer to lakepg (with the password in
// PgBouncer's auth file for one role, with lakepg's own SCRAM verifier,
// passed through, for the other).
//
// Real drivers talk to PgBouncer: pgx in session pooling (named, cached
// prepared statements) and in transaction pooling (unnamed statements or
// the simple protocol, as pgx documents for PgBouncer), psycopg 3 and
// pgJDBC. The tests assert that what is written through one server is read
// through the other, that transactions through the pooler are atomic (a
// money-transfer invariant read at every step, and a ledger of transfers
// committed in the same transaction as the balances), that acknowledged
// writes are all there exactly once and rolled-back ones never, that a
// cancel reaches the right server through PgBouncer, and that with one
// server down HAProxy routes the next transactions to the other.
//
// scripts/test.sh installs pgbouncer and haproxy from Debian; without them
// the tests fail, they do not skip.
package topology
