package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/storage"
)

// Lake names a lake to open in-process: the catalog DSN and the data
// directory, as the server's --catalog and --data.
type Lake struct {
	Catalog string
	Schema  string // PostgreSQL catalogs: the schema of the DuckLake tables
	Data    string
	Storage storage.Options // object storage settings, for s3:// data paths
}

// openLake opens (creating when create is set) the lake's catalog and data
// backend. Read-only commands pass create=false so that a mistyped path is
// an error instead of a new, empty lake.
func openLake(ctx context.Context, lake Lake, create bool) (*catalog.DB, storage.Backend, error) {
	dataPath := lake.Data
	if p, ok := strings.CutPrefix(lake.Catalog, "sqlite:"); ok {
		if _, err := os.Stat(p); err != nil {
			if !create {
				return nil, nil, fmt.Errorf("catalog %s: %w", p, err)
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, nil, fmt.Errorf("create catalog directory: %w", err)
			}
		}
	}
	if dataPath != "" && !strings.Contains(dataPath, "://") {
		abs, err := filepath.Abs(dataPath)
		if err != nil {
			return nil, nil, err
		}
		if create {
			if err := os.MkdirAll(abs, 0o755); err != nil {
				return nil, nil, fmt.Errorf("create data directory: %w", err)
			}
		}
		dataPath = abs + "/"
	}
	db, err := catalog.OpenWithOptions(ctx, lake.Catalog, dataPath, catalog.Options{Schema: lake.Schema})
	if err != nil {
		return nil, nil, err
	}
	store, err := storage.ForDataPath(db.DataPath(), lake.Storage)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, store, nil
}

// embedded runs statements on an in-process engine over the lake itself.
type embedded struct {
	db   *catalog.DB
	sess *sql.Session
	user string
	qlog *QueryLog // the statement log, as the server writes it; nil: none
}

// syncer is the optional ability of a session to end an implicit
// transaction; the wire server calls it after every simple Query, so the
// shell does too after every statement.
type syncer interface {
	Sync(ctx context.Context) error
}

// OpenEmbedded opens lake in-process.
func OpenEmbedded(ctx context.Context, lake Lake, log *slog.Logger) (Conn, error) {
	return openEmbedded(ctx, lake, log, nil)
}

// openEmbedded opens lake in-process, logging each statement to qlog (and
// the engine's own messages to its logger) when it is not nil.
func openEmbedded(ctx context.Context, lake Lake, log *slog.Logger, qlog *QueryLog) (Conn, error) {
	if log == nil && qlog != nil {
		log = qlog.Log
	}
	db, store, err := openLake(ctx, lake, true)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	eng := sql.NewEngine(db, store, log)
	user := os.Getenv("USER")
	if user == "" {
		user = "lakepg"
	}
	sess, err := eng.NewSession(user, "lake", map[string]string{"application_name": "lakepg shell"})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &embedded{db: db, sess: sess, user: user, qlog: qlog}, nil
}

func (e *embedded) Run(ctx context.Context, stmt string, sink Sink) (string, error) {
	stmts, err := e.sess.Prepare(ctx, stmt, nil)
	if err != nil {
		return "", e.sync(ctx, err)
	}
	text := ""
	if e.qlog != nil {
		text = sql.RedactPasswords(stmt)
	}
	var tag string
	for _, st := range stmts {
		tag, err = e.runOne(ctx, st, text, sink)
		if err != nil {
			return "", e.sync(ctx, err)
		}
	}
	return tag, e.sync(ctx, nil)
}

func (e *embedded) sync(ctx context.Context, err error) error {
	if s, ok := any(e.sess).(syncer); ok {
		if serr := s.Sync(ctx); err == nil {
			err = serr
		}
	}
	return err
}

// runOne runs one prepared statement; with a query log it counts what the
// scans read, as the server does, and logs the statement line once its
// result is closed.
func (e *embedded) runOne(ctx context.Context, st *sql.Stmt, text string, sink Sink) (string, error) {
	start := time.Now()
	var scans ScanStats
	if e.qlog != nil {
		qs := new(exec.QueryStats)
		ctx, scans = exec.WithQueryStats(ctx, qs), qs
	}
	res, err := st.Execute(ctx, nil)
	if err != nil {
		e.qlog.Statement(e.user, text, time.Since(start), 0, scans, "", err)
		return "", err
	}
	tag, rows, err := drain(ctx, st, res, e.sess.Location(), sink)
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	e.qlog.Statement(e.user, text, time.Since(start), rows, scans, res.Tag(), err)
	if err != nil {
		return "", err
	}
	return tag, nil
}

// drain hands the result's rows to sink and returns the command tag and
// how many rows it handed on.
func drain(ctx context.Context, st *sql.Stmt, res *sql.Result, loc *time.Location, sink Sink) (string, int64, error) {
	scols := st.Columns()
	if scols != nil {
		cols := make([]Column, len(scols))
		for i, c := range scols {
			cols[i] = Column{Name: c.Name, Type: c.Type}
		}
		if err := sink.Columns(cols); err != nil {
			return "", 0, err
		}
	}
	var (
		rows int64
		vals [][]byte
		buf  = make([]byte, 0, 256) // never nil: an empty string is not NULL
		ends []int
	)
	for {
		b, err := res.Next(ctx)
		if err != nil {
			return "", rows, err
		}
		if b == nil {
			break
		}
		rows += int64(b.N)
		vals = append(vals[:0], make([][]byte, len(b.Vecs))...)
		for i := 0; i < b.N; i++ {
			buf, ends = buf[:0], ends[:0]
			for _, v := range b.Vecs {
				if !v.IsNull(i) {
					buf = v.AppendText(buf, i, loc)
				}
				ends = append(ends, len(buf))
			}
			start := 0
			for k, v := range b.Vecs {
				if v.IsNull(i) {
					vals[k] = nil
				} else {
					vals[k] = buf[start:ends[k]:ends[k]]
				}
				start = ends[k]
			}
			if err := sink.Row(vals); err != nil {
				return "", rows, err
			}
		}
	}
	return res.Tag(), rows, nil
}

func (e *embedded) Close() error {
	e.sess.Close()
	return e.db.Close()
}
