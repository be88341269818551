package parse

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/sql/pgcatalog"
)

// Parsing a statement through pg_query (a cgo call into PostgreSQL's
// parser, then protobuf decoding of its tree) was an eighth of a server's
// CPU under a stream of single-row INSERTs, whose texts differ in their
// values, so no cache of texts helps. parseStatements builds the tree of
// the simplest INSERT itself:
//
//	INSERT INTO [schema.]table [(column, ...)] VALUES (value, ...) [, (...)] [;]
//
// where each value is an integer or decimal literal (optionally negated), a
// string literal, NULL, TRUE or FALSE, names are double-quoted or plain
// identifiers (unreserved and column-name keywords too, as the grammar
// allows), and no comment appears. Everything else,
// and anything unusual inside that shape (escape or dollar strings,
// exponents, long names), goes to pg_query. The tree is the one pg_query
// builds, locations included (TestFastInsertMatchesPgQuery,
// FuzzFastInsert).
func ParseStatements(query string) (*pg.ParseResult, error) {
	if tree, ok := fastInsert(query); ok {
		return tree, nil
	}
	return pg.Parse(query)
}

// pgQueryVersion is pg_query's ParseResult.Version, which the fast path's
// trees carry too.
var pgQueryVersion = sync.OnceValue(func() int32 {
	if r, err := pg.Parse("SELECT 1"); err == nil {
		return r.Version
	}
	return 0
})

// insertScanner walks a statement text for fastInsert.
type insertScanner struct {
	s   string
	pos int
}

func (sc *insertScanner) space() {
	for sc.pos < len(sc.s) {
		switch sc.s[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// punct consumes c after optional space.
func (sc *insertScanner) punct(c byte) bool {
	sc.space()
	if sc.pos < len(sc.s) && sc.s[sc.pos] == c {
		sc.pos++
		return true
	}
	return false
}

// word reads a plain identifier or keyword after optional space: its
// position and its text as written; ok is false at anything else.
func (sc *insertScanner) word() (at int, w string, ok bool) {
	sc.space()
	at = sc.pos
	i := sc.pos
	for i < len(sc.s) {
		c := sc.s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > at && c >= '0' && c <= '9' {
			i++
			continue
		}
		if c >= 0x80 || c == '$' {
			return at, "", false // identifier characters this scanner does not judge
		}
		break
	}
	if i == at {
		return at, "", false
	}
	sc.pos = i
	return at, sc.s[at:i], true
}

// keyword consumes the keyword kw (lower case), case-insensitively.
func (sc *insertScanner) keyword(kw string) bool {
	save := sc.pos
	if _, w, ok := sc.word(); ok && strings.EqualFold(w, kw) {
		return true
	}
	sc.pos = save
	return false
}

// quoted reads the text quoted by q that starts at s[at], a doubled q
// standing for one; end is just past the closing q.
func quoted(s string, at int, q byte) (text string, end int, ok bool) {
	var b strings.Builder
	i := at + 1
	for {
		j := strings.IndexByte(s[i:], q)
		if j < 0 {
			return "", 0, false
		}
		b.WriteString(s[i : i+j])
		i += j + 1
		if i < len(s) && s[i] == q {
			b.WriteByte(q)
			i++
			continue
		}
		return b.String(), i, true
	}
}

// name reads an identifier that may name a relation or column: a plain
// word that is no keyword (folded to lower case) or a double-quoted name.
// Names of NAMEDATALEN (64) bytes or more, which PostgreSQL truncates, are
// refused.
func (sc *insertScanner) name() (at int, name string, ok bool) {
	sc.space()
	if sc.pos < len(sc.s) && sc.s[sc.pos] == '"' {
		at = sc.pos
		var i int
		name, i, ok = quoted(sc.s, sc.pos, '"')
		if !ok || name == "" || len(name) >= 64 {
			return at, "", false
		}
		sc.pos = i
		return at, name, true
	}
	at, w, ok := sc.word()
	if !ok {
		return at, "", false
	}
	name = strings.ToLower(w)
	if len(name) >= 64 {
		return at, "", false
	}
	// names here are the grammar's ColId: plain identifiers and the
	// unreserved and column-name keywords (a column "name", a table "data")
	if cat, kw := pgcatalog.KeywordCategory(name); kw && cat != 'U' && cat != 'C' {
		return at, "", false
	}
	return at, name, true
}

// Value reads one VALUES item as the A_Const PostgreSQL's grammar makes of
// it.
func (sc *insertScanner) Value() (*pg.Node, bool) {
	sc.space()
	if sc.pos >= len(sc.s) {
		return nil, false
	}
	at := sc.pos
	switch c := sc.s[sc.pos]; {
	case c == '\'':
		str, i, ok := quoted(sc.s, sc.pos, '\'')
		if !ok {
			return nil, false
		}
		sc.pos = i
		return constNode(&pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: str}}, Location: int32(at)}), true
	case c == '-' || c >= '0' && c <= '9':
		neg := c == '-'
		if neg {
			sc.pos++
			sc.space()
		}
		start := sc.pos
		i := start
		for i < len(sc.s) && sc.s[i] >= '0' && sc.s[i] <= '9' {
			i++
		}
		if i == start {
			return nil, false // "--" (a comment), "-x", ...
		}
		decimal := false
		if i < len(sc.s) && sc.s[i] == '.' {
			j := i + 1
			for j < len(sc.s) && sc.s[j] >= '0' && sc.s[j] <= '9' {
				j++
			}
			if j == i+1 {
				return nil, false // "1." is left to PostgreSQL
			}
			i, decimal = j, true
		}
		if i < len(sc.s) {
			// an exponent, trailing junk, "1.2.3": not this scanner's business
			if d := sc.s[i]; d == '.' || d == '_' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= 0x80 || d == '$' {
				return nil, false
			}
		}
		digits := sc.s[start:i]
		sc.pos = i
		if !decimal {
			// the lexer makes an integer constant of what fits int32, the
			// grammar then negates it; anything longer stays text
			if v, err := strconv.ParseInt(digits, 10, 32); err == nil {
				if neg {
					v = -v
				}
				return constNode(&pg.A_Const{Val: &pg.A_Const_Ival{Ival: &pg.Integer{Ival: int32(v)}}, Location: int32(at)}), true
			}
		}
		if neg {
			digits = "-" + digits
		}
		return constNode(&pg.A_Const{Val: &pg.A_Const_Fval{Fval: &pg.Float{Fval: digits}}, Location: int32(at)}), true
	}
	save := sc.pos
	_, w, ok := sc.word()
	if !ok {
		return nil, false
	}
	switch strings.ToLower(w) {
	case "null":
		return constNode(&pg.A_Const{Isnull: true, Location: int32(at)}), true
	case "true", "false":
		return constNode(&pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: strings.EqualFold(w, "true")}}, Location: int32(at)}), true
	}
	sc.pos = save
	return nil, false
}

func constNode(c *pg.A_Const) *pg.Node { return &pg.Node{Node: &pg.Node_AConst{AConst: c}} }

// fastInsert is the tree of query when it is one INSERT of the shape
// parseStatements describes; ok is false otherwise.
func fastInsert(query string) (*pg.ParseResult, bool) {
	if len(query) > 1<<16 || !utf8.ValidString(query) {
		return nil, false
	}
	sc := &insertScanner{s: query}
	if !sc.keyword("insert") || !sc.keyword("into") {
		return nil, false
	}
	at, first, ok := sc.name()
	if !ok {
		return nil, false
	}
	rv := &pg.RangeVar{Relname: first, Inh: true, Relpersistence: "p", Location: int32(at)}
	if sc.punct('.') {
		_, second, ok := sc.name()
		if !ok {
			return nil, false
		}
		rv.Schemaname, rv.Relname = first, second
		if sc.punct('.') {
			return nil, false // catalog.schema.table
		}
	}
	ins := &pg.InsertStmt{Relation: rv, Override: pg.OverridingKind_OVERRIDING_NOT_SET}
	if sc.punct('(') {
		for {
			at, col, ok := sc.name()
			if !ok {
				return nil, false
			}
			ins.Cols = append(ins.Cols, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: col, Location: int32(at)}}})
			if sc.punct(',') {
				continue
			}
			if !sc.punct(')') {
				return nil, false
			}
			break
		}
	}
	if !sc.keyword("values") {
		return nil, false
	}
	sel := &pg.SelectStmt{LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg.SetOperation_SETOP_NONE}
	for {
		if !sc.punct('(') {
			return nil, false
		}
		var items []*pg.Node
		for {
			v, ok := sc.Value()
			if !ok {
				return nil, false
			}
			items = append(items, v)
			if sc.punct(',') {
				continue
			}
			if !sc.punct(')') {
				return nil, false
			}
			break
		}
		if len(sel.ValuesLists) > 0 && len(items) != len(sel.ValuesLists[0].GetList().Items) {
			return nil, false // PostgreSQL's error, not ours to word
		}
		sel.ValuesLists = append(sel.ValuesLists, &pg.Node{Node: &pg.Node_List{List: &pg.List{Items: items}}})
		if !sc.punct(',') {
			break
		}
	}
	ins.SelectStmt = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}
	raw := &pg.RawStmt{Stmt: &pg.Node{Node: &pg.Node_InsertStmt{InsertStmt: ins}}}
	if sc.punct(';') {
		raw.StmtLen = int32(sc.pos - 1)
	}
	sc.space()
	if sc.pos != len(sc.s) {
		return nil, false
	}
	return &pg.ParseResult{Version: pgQueryVersion(), Stmts: []*pg.RawStmt{raw}}, true
}
