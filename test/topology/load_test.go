//go:build linux

package topology

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// sqlState is the SQLSTATE of a server error, "" for any other error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// clientMode is how one client of a load reaches the lake.
type clientMode struct {
	name string
	pool string
	mode *pgx.QueryExecMode // nil: pgx's default, named prepared statements cached per connection
}

// The ways a pgx application goes through PgBouncer: session pooling takes
// anything; transaction pooling (PgBouncer 1.18 keeps no prepared
// statements across transactions) needs unnamed statements, sent with their
// Bind in one round trip (exec), or the simple protocol.
var loadModes = []clientMode{
	{"session/cached-statements", poolSession, nil},
	{"session/exec", poolSession, &modeExec},
	{"transaction/exec", poolTransaction, &modeExec},
	{"transaction/exec", poolTransaction, &modeExec},
	{"transaction/simple", poolTransaction, &modeSimple},
	{"haproxy/exec", poolHAProxy, &modeExec},
}

// loadClient is one client's ledger.
type loadClient struct {
	clientMode
	acked      []int64 // ids whose INSERT or COMMIT succeeded
	rolledBack []int64 // ids inserted in transactions that were rolled back
	reads      int     // read-your-writes checks made
	err        error
}

// testPoolModes: clients of every pooling mode insert at once, some rows
// autocommit, some two to a transaction, some in transactions they roll
// back, and every few statements each counts its own rows, which must be
// exactly those acknowledged so far: in transaction pooling consecutive
// statements of a client run on either server. At the end both servers
// hold exactly the acknowledged rows, each once, and no rolled-back one;
// and PgBouncer used both servers for its round-robin pools.
func testPoolModes(t *testing.T, c *cluster) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	exec1(t, c.pool(poolServer1, appUser, appPassword), "CREATE TABLE ev (id bigint, client int)")
	d := workload(t)
	clients := make([]*loadClient, len(loadModes))
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i, m := range loadModes {
		lc := &loadClient{clientMode: m}
		clients[i] = lc
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc.err = lc.run(ctx, c.pool(m.pool, appUser, appPassword), i+1, deadline)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	want := map[int64]bool{}
	gone := map[int64]bool{}
	var figures []string
	for i, lc := range clients {
		if lc.err != nil {
			t.Errorf("client %d (%s): %v", i+1, lc.name, lc.err)
		}
		for _, id := range lc.acked {
			want[id] = true
		}
		for _, id := range lc.rolledBack {
			gone[id] = true
		}
		figures = append(figures, fmt.Sprintf("%s %d rows, %d reads", lc.name, len(lc.acked), lc.reads))
	}
	t.Logf("%.1fs: %s", elapsed.Seconds(), strings.Join(figures, "; "))
	if len(want) == 0 {
		t.Fatal("no insert was acknowledged")
	}
	for _, p := range []string{poolServer1, poolServer2} {
		checkRows(t, c.pool(p, adminUser, adminPassword), "SELECT id FROM ev", want, gone)
	}
	// round robin reached both servers: each pool had at least two clients
	// at once, so two server connections, which go to the hosts in turn
	servers := c.serverAddrs(t)
	for _, p := range []string{poolSession, poolTransaction} {
		if len(servers[p]) != len(c.hosts) {
			t.Errorf("PgBouncer's %s pool has server connections to %v, want all of %v", p, servers[p], c.hosts)
		}
	}
}

// run is one client's loop until deadline.
func (lc *loadClient) run(ctx context.Context, dsn string, client int, deadline time.Time) error {
	conn, err := connect(ctx, dsn, lc.mode)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for n := int64(0); time.Now().Before(deadline); n++ {
		id := int64(client)*1_000_000_000 + 2*n
		switch n % 6 {
		case 4: // two rows, one transaction
			tx, err := conn.Begin(ctx)
			if err != nil {
				return fmt.Errorf("BEGIN: %w", err)
			}
			for _, k := range []int64{id, id + 1} {
				if _, err := tx.Exec(ctx, "INSERT INTO ev VALUES ($1, $2)", k, client); err != nil {
					return fmt.Errorf("INSERT %d in a transaction: %w", k, err)
				}
			}
			if err := tx.Commit(ctx); err != nil {
				return fmt.Errorf("COMMIT of %d and %d: %w", id, id+1, err)
			}
			lc.acked = append(lc.acked, id, id+1)
		case 5: // a row rolled back
			tx, err := conn.Begin(ctx)
			if err != nil {
				return fmt.Errorf("BEGIN: %w", err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO ev VALUES ($1, $2)", id, client); err != nil {
				return fmt.Errorf("INSERT %d in a transaction: %w", id, err)
			}
			if err := tx.Rollback(ctx); err != nil {
				return fmt.Errorf("ROLLBACK: %w", err)
			}
			lc.rolledBack = append(lc.rolledBack, id)
		default:
			if _, err := conn.Exec(ctx, "INSERT INTO ev VALUES ($1, $2)", id, client); err != nil {
				return fmt.Errorf("INSERT %d: %w", id, err)
			}
			lc.acked = append(lc.acked, id)
		}
		if n%3 == 2 {
			var got int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM ev WHERE client = $1", client).Scan(&got); err != nil {
				return fmt.Errorf("counting own rows: %w", err)
			}
			if got != int64(len(lc.acked)) {
				return fmt.Errorf("read-your-writes: %d own rows, %d acknowledged", got, len(lc.acked))
			}
			lc.reads++
		}
	}
	return nil
}

// checkRows reads the ids of query (one bigint column) and compares them
// with want: each there exactly once, nothing else, none of gone.
func checkRows(t *testing.T, dsn, query string, want, gone map[int64]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := connect(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	got := map[int64]int{}
	n := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got[id]++
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	lost, dup, extra, undone := 0, 0, 0, 0
	for id := range want {
		if got[id] == 0 {
			lost++
		}
	}
	for id, k := range got {
		if k > 1 {
			dup++
		}
		if !want[id] {
			extra++
		}
		if gone[id] {
			undone++
		}
	}
	if lost+dup+extra+undone != 0 || n != len(want) {
		t.Errorf("%s (%s): %d rows for %d acknowledged: %d lost, %d duplicated, %d not acknowledged, %d rolled back",
			query, dsnDB(dsn), n, len(want), lost, dup, extra, undone)
	}
}

func dsnDB(dsn string) string {
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "dbname="); ok {
			return v
		}
	}
	return dsn
}

// serverAddrs asks PgBouncer's console (SHOW SERVERS) which lakepg
// addresses each pool is connected to.
func (c *cluster) serverAddrs(t *testing.T) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.Connect(ctx, c.pool("pgbouncer", adminUser, adminPassword))
	if err != nil {
		t.Fatalf("PgBouncer console: %v", err)
	}
	defer conn.Close(ctx)
	res, err := conn.Exec(ctx, "SHOW SERVERS").ReadAll()
	if err != nil {
		t.Fatalf("SHOW SERVERS: %v", err)
	}
	col := map[string]int{}
	for i, f := range res[0].FieldDescriptions {
		col[f.Name] = i
	}
	seen := map[string]map[string]bool{}
	for _, r := range res[0].Rows {
		db, addr := string(r[col["database"]]), string(r[col["addr"]])
		if seen[db] == nil {
			seen[db] = map[string]bool{}
		}
		seen[db][addr] = true
	}
	out := map[string][]string{}
	for db, addrs := range seen {
		for a := range addrs {
			out[db] = append(out[db], a)
		}
		sort.Strings(out[db])
	}
	return out
}

// testTransfers: money moves between accounts in transactions through the
// transaction pools (so each transaction runs on either server), each
// transaction also recording the transfer in a second table. Readers of the
// total see it unchanged at every moment; a transaction refused with 40001
// is retried; at the end every account's balance is what the recorded
// transfers make it, and the recorded transfers are exactly the
// acknowledged ones.
func testTransfers(t *testing.T, c *cluster) {
	const accounts, initial = 6, 1000
	setup := c.pool(poolServer1, appUser, appPassword)
	exec1(t, setup, "CREATE TABLE accounts (id int, balance bigint)",
		"CREATE TABLE transfers (id bigint, src int, dst int, amount bigint)",
		fmt.Sprintf("INSERT INTO accounts SELECT g, %d FROM generate_series(1, %d) g", initial, accounts))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := workload(t)
	deadline := time.Now().Add(d)

	type transfer struct{ id, src, dst, amount int64 }
	type mover struct {
		acked   []transfer
		retries int
		err     error
	}
	movers := []clientMode{
		{"transaction/exec", poolTransaction, &modeExec},
		{"transaction/simple", poolTransaction, &modeSimple},
		{"haproxy/exec", poolHAProxy, &modeExec},
	}
	results := make([]*mover, len(movers))
	var wg sync.WaitGroup
	for i, m := range movers {
		mv := &mover{}
		results[i] = mv
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := connect(ctx, c.pool(m.pool, appUser, appPassword), m.mode)
			if err != nil {
				mv.err = err
				return
			}
			defer conn.Close(context.Background())
			rnd := rand.New(rand.NewPCG(uint64(i), 7))
			for n := int64(0); time.Now().Before(deadline); n++ {
				tr := transfer{id: int64(i+1)*1_000_000 + n, src: 1 + rnd.Int64N(accounts), amount: 1 + rnd.Int64N(50)}
				tr.dst = 1 + (tr.src+rnd.Int64N(accounts-1))%accounts
				for attempt := 0; ; attempt++ {
					err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
						var bal int64
						if err := tx.QueryRow(ctx, "SELECT balance FROM accounts WHERE id = $1", tr.src).Scan(&bal); err != nil {
							return err
						}
						amount := min(tr.amount, bal)
						if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - $1 WHERE id = $2", amount, tr.src); err != nil {
							return err
						}
						if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance + $1 WHERE id = $2", amount, tr.dst); err != nil {
							return err
						}
						_, err := tx.Exec(ctx, "INSERT INTO transfers VALUES ($1, $2, $3, $4)", tr.id, tr.src, tr.dst, amount)
						tr.amount = amount
						return err
					})
					if err == nil {
						mv.acked = append(mv.acked, tr)
						break
					}
					if sqlState(err) != "40001" || attempt == 200 {
						mv.err = fmt.Errorf("transfer %d (attempt %d): %w", tr.id, attempt+1, err)
						return
					}
					mv.retries++
				}
			}
		}()
	}
	// the reader: the total through the transaction pool, statement after
	// statement on either server
	var reads int
	var readErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn, err := connect(ctx, c.pool(poolTransaction, appUser, appPassword), &modeExec)
		if err != nil {
			readErr = err
			return
		}
		defer conn.Close(context.Background())
		for time.Now().Before(deadline) {
			var sum, n int64
			if err := conn.QueryRow(ctx, "SELECT sum(balance)::bigint, count(*) FROM accounts").Scan(&sum, &n); err != nil {
				readErr = err
				return
			}
			if sum != accounts*initial || n != accounts {
				readErr = fmt.Errorf("read %d accounts holding %d in all, want %d holding %d", n, sum, accounts, accounts*initial)
				return
			}
			reads++
		}
	}()
	wg.Wait()
	if readErr != nil {
		t.Errorf("reader: %v", readErr)
	}

	balance := map[int64]int64{}
	ids := map[int64]bool{}
	var done, retries int
	for i, mv := range results {
		if mv.err != nil {
			t.Errorf("mover %d (%s): %v", i+1, movers[i].name, mv.err)
		}
		for _, tr := range mv.acked {
			balance[tr.src] -= tr.amount
			balance[tr.dst] += tr.amount
			ids[tr.id] = true
		}
		done += len(mv.acked)
		retries += mv.retries
	}
	t.Logf("%d transfers committed, %d retried after 40001, %d reads of the total", done, retries, reads)
	if done == 0 {
		t.Fatal("no transfer committed")
	}
	for _, p := range []string{poolServer1, poolServer2} {
		dsn := c.pool(p, adminUser, adminPassword)
		checkRows(t, dsn, "SELECT id FROM transfers", ids, nil)
		conn, err := connect(ctx, dsn, nil)
		must(t, "connect", err)
		rows, err := conn.Query(ctx, "SELECT id, balance FROM accounts ORDER BY id")
		must(t, "accounts", err)
		var got []string
		var wantBal []string
		for rows.Next() {
			var id, bal int64
			must(t, "scan", rows.Scan(&id, &bal))
			got = append(got, fmt.Sprintf("%d:%d", id, bal))
			wantBal = append(wantBal, fmt.Sprintf("%d:%d", id, initial+balance[id]))
		}
		must(t, "accounts", rows.Err())
		if strings.Join(got, " ") != strings.Join(wantBal, " ") || len(got) != accounts {
			t.Errorf("%s: balances %v, the acknowledged transfers make them %v", p, got, wantBal)
		}
		// the table of transfers and the balances agree inside the lake too
		want(t, conn, `SELECT count(*) FROM accounts a
			WHERE balance <> $1 + coalesce((SELECT sum(amount) FROM transfers WHERE dst = a.id), 0)
			                    - coalesce((SELECT sum(amount) FROM transfers WHERE src = a.id), 0)`, int64(0), int64(initial))
		conn.Close(ctx)
	}
}
