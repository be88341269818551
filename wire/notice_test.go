package wire

import (
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

func TestNoticesWithPgx(t *testing.T) {
	ts := startServer(t, Options{})
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		cfg, err := pgx.ParseConfig(ts.connString(""))
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		var mu sync.Mutex
		var got []pgconn.Notice
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			mu.Lock()
			got = append(got, *n)
			mu.Unlock()
		}
		conn, err := pgx.ConnectConfig(testCtx(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := conn.QueryRow(testCtx(t), "notice table t does not exist").Scan(&n); err != nil || n != 1 {
			t.Fatalf("%v: %d %v", mode, n, err)
		}
		conn.Close(testCtx(t))
		mu.Lock()
		if len(got) != 2 || got[0].Severity != "NOTICE" || got[0].Code != "00000" || got[0].Message != "table t does not exist" ||
			got[1].Severity != "WARNING" || got[1].Code != "01000" || got[1].Message != "from a worker" || got[1].Hint != "hint" {
			t.Errorf("%v: notices %+v", mode, got)
		}
		mu.Unlock()
	}
}

func TestNoticesWithPsql(t *testing.T) {
	ts := startServer(t, Options{})
	out, err := psql(t, ts, "-c", "notice hello there")
	if err != nil || !strings.Contains(out, "NOTICE:  hello there\n") || !strings.Contains(out, "WARNING:  from a worker\nHINT:  hint\n") ||
		!strings.Contains(out, "1\n") {
		t.Errorf("psql: %q %v", out, err)
	}
}

func TestNoticeOrderRaw(t *testing.T) {
	ts := startServer(t, Options{})
	rc, _ := ts.startRaw(t)
	rc.send(&pgproto3.Query{String: "notice first"})
	// The first notice is raised by Execute, before the simple protocol
	// describes the result; the second while the rows are made.
	wantMessages(t, rc.untilReady(),
		"NoticeResponse", "RowDescription n:20:0", "NoticeResponse", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")

	// Extended protocol: the notice raised at Execute precedes its rows.
	rc.send(&pgproto3.Parse{Query: "notice second"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
	wantMessages(t, rc.untilReady(),
		"ParseComplete", "BindComplete", "NoticeResponse", "NoticeResponse", "DataRow 1", "CommandComplete SELECT 1", "ReadyForQuery I")
}
