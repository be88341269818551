package concurrency

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestSequencesTwoServers has sessions on both servers of one PostgreSQL catalog take values
// from the same sequences at once: single nextval calls, nextval over many rows in one
// statement (one catalog update for the batch), a CACHE 5 sequence, nextval inside blocks
// that roll back, and a serial column filled by INSERTs from both servers. No value may be
// handed out twice; the CACHE 1 sequence, which nothing rolls back, hands out exactly
// 1..n; rolled-back blocks give nothing back.
func TestSequencesTwoServers(t *testing.T) {
	l := newLake(t)
	l.exec(t, 0, `CREATE SEQUENCE s1; CREATE SEQUENCE s5 CACHE 5; CREATE TABLE ids (id bigserial, server integer, session integer)`)

	const sessions, rounds = 3, 40 // per server
	type taken struct {
		s1, s5 []int64
		rolled []int64 // s1 values taken in blocks that rolled back
	}
	results := make([][]taken, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 2*sessions)
	for srv := range 2 {
		results[srv] = make([]taken, sessions)
		for sess := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				c, err := pgconn.Connect(ctx, l.servers[srv].DSN())
				if err != nil {
					errs <- err
					return
				}
				defer c.Close(context.Background())
				col := func(sql string) ([]int64, error) {
					rr := c.ExecParams(ctx, sql, nil, nil, nil, nil)
					var out []int64
					for rr.NextRow() {
						n, err := strconv.ParseInt(string(rr.Values()[0]), 10, 64)
						if err != nil {
							return nil, err
						}
						out = append(out, n)
					}
					_, err := rr.Close()
					return out, err
				}
				res := &results[srv][sess]
				for r := range rounds {
					var q string
					switch r % 4 {
					case 0, 1:
						q = `SELECT nextval('s1')`
					case 2:
						q = `SELECT nextval('s1') FROM generate_series(1, 7)`
					case 3:
						// taken inside a block that rolls back: not given back
						if _, err := c.Exec(ctx, `BEGIN`).ReadAll(); err != nil {
							errs <- err
							return
						}
						v, err := col(`SELECT nextval('s1')`)
						if err != nil {
							errs <- fmt.Errorf("server %d: %w", srv, err)
							return
						}
						res.s1 = append(res.s1, v...)
						res.rolled = append(res.rolled, v...)
						if _, err := c.Exec(ctx, `ROLLBACK`).ReadAll(); err != nil {
							errs <- err
							return
						}
						q = `SELECT nextval('s1')`
					}
					v, err := col(q)
					if err != nil {
						errs <- fmt.Errorf("server %d: %s: %w", srv, q, err)
						return
					}
					res.s1 = append(res.s1, v...)
					if v, err = col(`SELECT nextval('s5') FROM generate_series(1, 3)`); err != nil {
						errs <- fmt.Errorf("server %d: s5: %w", srv, err)
						return
					}
					res.s5 = append(res.s5, v...)
					if r%8 == 0 {
						ins := fmt.Sprintf(`INSERT INTO ids (server, session) SELECT %d, %d FROM generate_series(1, 5)`, srv, sess)
						if _, err := c.Exec(ctx, ins).ReadAll(); err != nil {
							errs <- fmt.Errorf("server %d: %s: %w", srv, ins, err)
							return
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	unique := func(name string, vals []int64) {
		t.Helper()
		seen := map[int64]bool{}
		for _, v := range vals {
			if seen[v] {
				t.Fatalf("%s: value %d handed out twice", name, v)
			}
			seen[v] = true
		}
	}
	var all1, all5 []int64
	rolled := 0
	for srv := range 2 {
		for _, r := range results[srv] {
			all1 = append(all1, r.s1...)
			all5 = append(all5, r.s5...)
			rolled += len(r.rolled)
		}
	}
	unique("s1", all1)
	unique("s5", all5)
	sort.Slice(all1, func(i, j int) bool { return all1[i] < all1[j] })
	for i, v := range all1 {
		if v != int64(i+1) {
			t.Fatalf("s1: the %d-th smallest value is %d: CACHE 1 values must be 1..%d without a gap", i+1, v, len(all1))
		}
	}
	if rolled == 0 {
		t.Fatal("no value was taken in a rolled-back block")
	}
	// the next value on either server comes after everything handed out
	next := l.query(t, 1, `SELECT nextval('s1')`)
	if got := *next.Rows[0][0]; got != strconv.Itoa(len(all1)+1) {
		t.Fatalf("nextval('s1') after the run: %s, want %d", got, len(all1)+1)
	}

	ids := l.query(t, 1, `SELECT count(*), count(DISTINCT id), min(id) FROM ids`)
	want := 2 * sessions * (rounds / 8) * 5
	if r := ids.Rows[0]; *r[0] != strconv.Itoa(want) || *r[1] != *r[0] {
		t.Fatalf("serial ids: count %s, distinct %s, want %d distinct", *r[0], *r[1], want)
	}
	t.Logf("s1: %d values (%d in rolled-back blocks), s5: %d values, ids: %d rows, all distinct", len(all1), rolled, len(all5), want)
}
