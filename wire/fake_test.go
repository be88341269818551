package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// fakeEngine is a scripted Engine: each statement is a command word, not
// SQL. Statements are split on ';' (no quoting). Commands:
//
//	gen N            int8 column n = 1..N, in batches of 3
//	num S V...       numeric(18,S) (S = any: unconstrained) values V
//	empty            int8 column, no rows
//	types            one row of every type, then a row of NULLs
//	tz               one timestamptz (2024-01-01 12:00 UTC), text in the session zone
//	insert           no rows, tag INSERT 0 2
//	error at P       Prepare fails with 42601 at position P
//	panic prepare|execute|next|tag
//	fail next        three rows, then 22012
//	plain error      Execute fails with a Go error
//	rows without columns  Columns() nil but rows come back
//	set timezone Z   reports TimeZone=Z and uses it
//	begin|commit|rollback  transaction status
//	sleep            blocks until its context is cancelled
//	sleep D          sleeps D (a time.Duration) unless cancelled, then one row
//	echo T1 T2 ...   parameters of types T (int8, text, ...), echoed back as
//	                 text columns, binary ones through DecodeBinaryParam
//	notice W...      raises NOTICE "W..." at Execute, then a WARNING from
//	                 another goroutine at the first Next; one row (1)
type fakeEngine struct {
	mu       sync.Mutex
	sessions []*fakeSession
	started  chan string // a "sleep" statement began executing
	canceled chan string // a "sleep" statement saw its context end
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{started: make(chan string, 16), canceled: make(chan string, 16)}
}

func (e *fakeEngine) NewSession(ctx context.Context, info StartupInfo) (Session, error) {
	if info.Database == "nodb" {
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database \"nodb\" does not exist")
	}
	if info.Database == "panicdb" {
		panic("session boom")
	}
	s := &fakeSession{eng: e, info: info, tx: 'I', loc: time.UTC, changes: map[string]string{}}
	e.mu.Lock()
	e.sessions = append(e.sessions, s)
	e.mu.Unlock()
	return s, nil
}

func (e *fakeEngine) session(i int) *fakeSession {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[i]
}

type fakeSession struct {
	eng     *fakeEngine
	info    StartupInfo
	tx      byte
	loc     *time.Location
	changes map[string]string

	mu     sync.Mutex
	syncs  int
	closed bool
	notify func(Notice)
}

func (s *fakeSession) SetNoticeSink(send func(Notice)) { s.notify = send }

func (s *fakeSession) Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]Statement, error) {
	var out []Statement
	for _, part := range strings.Split(query, ";") {
		words := strings.Fields(part)
		if len(words) == 0 || strings.HasPrefix(words[0], "--") {
			continue // empty or a comment (pgx pings with "-- ping")
		}
		st := &fakeStmt{s: s, words: words}
		switch words[0] {
		case "error":
			pos, _ := strconv.Atoi(words[2])
			return nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: "syntax error at or near \"error\"", Position: pos, Hint: "try again"}
		case "panic":
			if words[1] == "prepare" {
				panic("prepare boom")
			}
		case "echo":
			for i, w := range words[1:] {
				oid := oidByName[w]
				if i < len(paramOIDs) && paramOIDs[i] != 0 {
					oid = paramOIDs[i]
				}
				st.params = append(st.params, oid)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

func (s *fakeSession) TxStatus() byte           { return s.tx }
func (s *fakeSession) Location() *time.Location { return s.loc }
func (s *fakeSession) ParameterChanges() map[string]string {
	c := s.changes
	s.changes = map[string]string{}
	return c
}
func (s *fakeSession) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
func (s *fakeSession) Sync(ctx context.Context) error {
	s.mu.Lock()
	s.syncs++
	s.mu.Unlock()
	if s.tx == 'E' {
		return nil
	}
	return nil
}
func (s *fakeSession) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
func (s *fakeSession) syncCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncs
}

var oidByName = map[string]uint32{
	"bool": types.OIDBool, "int2": types.OIDInt2, "int4": types.OIDInt4, "int8": types.OIDInt8,
	"float4": types.OIDFloat4, "float8": types.OIDFloat8, "numeric": types.OIDNumeric,
	"text": types.OIDText, "varchar": types.OIDVarchar, "bytea": types.OIDBytea, "date": types.OIDDate,
	"timestamp": types.OIDTimestamp, "timestamptz": types.OIDTimestamptz, "uuid": types.OIDUUID,
}

type fakeStmt struct {
	s      *fakeSession
	words  []string
	params []uint32
}

func (st *fakeStmt) ParamTypes() []uint32 { return st.params }

func (st *fakeStmt) Columns() []Column {
	switch st.words[0] {
	case "gen", "empty", "fail", "panic", "notice":
		return []Column{{Name: "n", Type: types.Int64T, TableOID: 12345, Attnum: 1}}
	case "types":
		cols := make([]Column, len(typesRow))
		for i, tv := range typesRow {
			cols[i] = Column{Name: tv.name, Type: tv.t}
		}
		return cols
	case "tz":
		return []Column{{Name: "tz", Type: types.TimestamptzT}}
	case "num":
		return []Column{{Name: "num", Type: numType(st.words[1])}}
	case "sleep":
		return []Column{{Name: "slept", Type: types.TextT}}
	case "echo":
		cols := make([]Column, len(st.params))
		for i := range cols {
			cols[i] = Column{Name: fmt.Sprintf("p%d", i+1), Type: types.TextT}
		}
		return cols
	}
	return nil
}

// typesRow is the row "types" returns: name, type, text form PostgreSQL
// prints, and how to put it in a vector.
var typesRow = []struct {
	name string
	t    types.T
	text string
}{
	{"b", types.BoolT, "t"},
	{"i2", types.Int16T, "-12345"},
	{"i4", types.Int32T, "2147483647"},
	{"i8", types.Int64T, "-9223372036854775808"},
	{"f4", types.Float32T, "1.5"},
	{"f8", types.Float64T, "-2.25e-07"},
	{"n", types.NumericT(10, 2), "-1234.50"},
	{"nd", types.NumericAnyT, "12345678901234567890.000123"},
	{"t", types.TextT, "héllo"},
	{"vc", types.T{ID: types.Text, Varchar: true, Width: 5}, "abc"},
	{"by", types.ByteaT, `\x0001ff`},
	{"d", types.DateT, "2024-02-29"},
	{"ts", types.TimestampT, "2024-02-29 13:14:15.123456"},
	{"tz", types.TimestamptzT, "2024-02-29 11:14:15.5+00"},
	{"u", types.UUIDT, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
}

func typesBatch() *vec.Batch {
	ts := make([]types.T, len(typesRow))
	for i, tv := range typesRow {
		ts[i] = tv.t
	}
	b := vec.NewBatch(ts, 2)
	for i, tv := range typesRow {
		v := b.Vecs[i]
		switch tv.t.ID {
		case types.Bool:
			v.AppendBool(true)
		case types.Int16, types.Int32, types.Int64:
			x, _ := strconv.ParseInt(tv.text, 10, 64)
			v.AppendInt(x)
		case types.Float32, types.Float64:
			f, _ := strconv.ParseFloat(tv.text, 64)
			v.AppendFloat(f)
		case types.Numeric:
			if tv.t.DynNumeric() {
				v.AppendString(tv.text)
			} else {
				x, err := types.ParseNumeric(tv.text, tv.t.Precision, tv.t.Scale)
				must(err)
				v.AppendInt(x)
			}
		case types.Text:
			v.AppendString(tv.text)
		case types.Bytea:
			x, err := types.ParseBytea(tv.text)
			must(err)
			v.AppendString(x)
		case types.Date:
			x, err := types.ParseDate(tv.text)
			must(err)
			v.AppendInt(x)
		case types.Timestamp:
			x, err := types.ParseTimestamp(tv.text)
			must(err)
			v.AppendInt(x)
		case types.Timestamptz:
			x, err := types.ParseTimestamptz(tv.text, time.UTC)
			must(err)
			v.AppendInt(x)
		case types.UUID:
			x, err := types.ParseUUID(tv.text)
			must(err)
			v.AppendString(x)
		}
		v.AppendNull()
	}
	b.N = 2
	return b
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func (st *fakeStmt) Execute(ctx context.Context, params [][]byte, formats []int16) (Result, error) {
	s := st.s
	w := st.words
	r := &fakeResult{ctx: ctx}
	switch w[0] {
	case "gen":
		n, _ := strconv.Atoi(w[1])
		for lo := 1; lo <= n; lo += 3 {
			r.batches = append(r.batches, intBatch(lo, min(lo+2, n)))
		}
		r.tag = "SELECT " + strconv.Itoa(n)
	case "empty":
		r.tag = "SELECT 0"
	case "types":
		r.batches = []*vec.Batch{typesBatch()}
		r.tag = "SELECT 2"
	case "tz":
		b := vec.NewBatch([]types.T{types.TimestamptzT}, 1)
		b.Vecs[0].AppendInt(time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC).UnixMicro())
		b.N = 1
		r.batches = []*vec.Batch{b}
		r.tag = "SELECT 1"
	case "insert":
		r.tag = "INSERT 0 2"
	case "num":
		t := numType(w[1])
		b := vec.NewBatch([]types.T{t}, len(w)-2)
		for _, s := range w[2:] {
			if t.DynNumeric() {
				b.Vecs[0].AppendString(s)
			} else {
				x, err := types.ParseNumeric(s, 19, t.Scale) // 19: the full int64 range
				must(err)
				b.Vecs[0].AppendInt(x)
			}
		}
		b.N = len(w) - 2
		r.batches = []*vec.Batch{b}
		r.tag = "SELECT " + strconv.Itoa(b.N)
	case "panic":
		switch w[1] {
		case "execute":
			panic("execute boom")
		case "next":
			r.batches = []*vec.Batch{intBatch(1, 3)}
			r.panicAt = 1
		case "tag":
			r.panicTag = true
		}
		r.tag = "SELECT 3"
	case "fail":
		r.batches = []*vec.Batch{intBatch(1, 3)}
		r.failAt = 1
	case "plain":
		return nil, errors.New("disk on fire")
	case "notice":
		s.notify(Notice{Severity: "NOTICE", Code: "00000", Message: strings.Join(w[1:], " ")})
		r.batches = []*vec.Batch{intBatch(1, 1)}
		r.beforeNext = func() {
			done := make(chan struct{})
			go func() {
				s.notify(Notice{Severity: "WARNING", Code: "01000", Message: "from a worker", Hint: "hint"})
				close(done)
			}()
			<-done
		}
		r.tag = "SELECT 1"
	case "rows":
		r.batches = []*vec.Batch{intBatch(1, 1)}
		r.tag = "INSERT 0 1"
	case "set":
		loc, err := types.LoadLocation(w[2])
		if err != nil {
			return nil, err
		}
		s.loc = loc
		s.changes["TimeZone"] = w[2]
		r.tag = "SET"
	case "begin":
		s.tx = 'T'
		r.tag = "BEGIN"
	case "commit", "rollback":
		s.tx = 'I'
		r.tag = strings.ToUpper(w[0])
	case "sleep":
		s.eng.started <- strings.Join(w, " ")
		if len(w) == 1 {
			<-ctx.Done()
			s.eng.canceled <- "sleep"
			return nil, ctx.Err()
		}
		d, err := time.ParseDuration(w[1])
		must(err)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		b := vec.NewBatch([]types.T{types.TextT}, 1)
		b.Vecs[0].AppendString("done")
		b.N = 1
		r.batches = []*vec.Batch{b}
		r.tag = "SELECT 1"
	case "echo":
		ts := make([]types.T, len(params))
		for i := range ts {
			ts[i] = types.TextT
		}
		b := vec.NewBatch(ts, 1)
		for i, p := range params {
			f := int16(0)
			if len(formats) == 1 {
				f = formats[0]
			} else if len(formats) > i {
				f = formats[i]
			}
			switch {
			case p == nil:
				b.Vecs[i].AppendNull()
			case f == 1:
				txt, err := DecodeBinaryParam(st.params[i], p)
				if err != nil {
					return nil, err
				}
				b.Vecs[i].AppendString("bin:" + txt)
			default:
				b.Vecs[i].AppendString("txt:" + string(p))
			}
		}
		b.N = 1
		r.batches = []*vec.Batch{b}
		r.tag = "SELECT 1"
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "unknown fake command %q", w[0])
	}
	return r, nil
}

// numType is numeric(18,s), or unconstrained numeric for "any".
func numType(s string) types.T {
	if s == "any" {
		return types.NumericAnyT
	}
	sc, _ := strconv.Atoi(s)
	return types.NumericT(18, sc)
}

func intBatch(lo, hi int) *vec.Batch {
	b := vec.NewBatch([]types.T{types.Int64T}, hi-lo+1)
	for i := lo; i <= hi; i++ {
		b.Vecs[0].AppendInt(int64(i))
	}
	b.N = hi - lo + 1
	return b
}

type fakeResult struct {
	ctx      context.Context
	batches  []*vec.Batch
	next     int
	tag      string
	failAt   int // Next call index that fails with 22012 (0 = never)
	panicAt  int
	panicTag bool
	closed   bool

	beforeNext func() // run once, at the first Next
}

func (r *fakeResult) Next() (*vec.Batch, error) {
	if r.closed {
		panic("Next after Close")
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if r.beforeNext != nil {
		r.beforeNext()
		r.beforeNext = nil
	}
	i := r.next
	r.next++
	if r.failAt > 0 && i == r.failAt {
		return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	if r.panicAt > 0 && i == r.panicAt {
		panic("next boom")
	}
	if i >= len(r.batches) {
		return nil, nil
	}
	return r.batches[i], nil
}

func (r *fakeResult) Tag() string {
	if r.panicTag {
		panic("tag boom")
	}
	return r.tag
}

func (r *fakeResult) Close() error {
	r.closed = true
	return nil
}
