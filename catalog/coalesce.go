package catalog

import (
	"regexp"
	"strings"
)

// A group of commits (snapshot/group.go) queues every member's writes and
// sends them with COMMIT in one pipelined batch. Members inserting into one
// table each rewrite its statistics rows: n members send n UPDATEs of
// ducklake_table_stats and n per column of ducklake_table_column_stats,
// of which only the last values outlive the transaction, nobody else
// seeing the ones between. Such an UPDATE, followed later in the batch by
// the same statement for the same row, is dropped: a third of a group's
// statements, and of the catalog database's work per commit.
//
// An UPDATE is dropped only when
//   - it is "UPDATE table SET c = $i, ... WHERE k = $j AND ...": every
//     assignment a parameter or NULL (so nothing reads the old values),
//     the WHERE a conjunction of equalities on parameters, no column in
//     both;
//   - a later statement of the batch has the same text and the same WHERE
//     arguments, so it assigns the same columns of the same rows; and
//   - every statement between that names the table is that same text (for
//     other rows, so it changes no key) or a plain INSERT … VALUES into it,
//     so no row changes its key and nothing reads the values it set.
//
// Rows of a dropped UPDATE that an INSERT between adds are set by the later
// one too; rows a statement between deletes do not matter. The batch's
// effect is unchanged.

var (
	coalescibleUpdate = regexp.MustCompile(`^UPDATE ("?[A-Za-z_][A-Za-z0-9_]*"?) SET (.+) WHERE (.+)$`)
	setItem           = regexp.MustCompile(`^\s*("?[A-Za-z_][A-Za-z0-9_]*"?)\s*=\s*(\$\d+|NULL)\s*$`)
	whereItem         = regexp.MustCompile(`^\s*("?[A-Za-z_][A-Za-z0-9_]*"?)\s*=\s*\$(\d+)\s*$`)
)

// updateShape is what coalescing needs of a statement: the table an UPDATE
// of the coalescible form writes and the argument positions of its WHERE.
type updateShape struct {
	table string
	key   []int // 0-based argument indexes
}

// shapeOf is q's shape when q is a coalescible UPDATE.
func shapeOf(q string) (updateShape, bool) {
	m := coalescibleUpdate.FindStringSubmatch(q)
	if m == nil || strings.Contains(m[3], " WHERE ") {
		return updateShape{}, false
	}
	set := map[string]bool{}
	for _, item := range strings.Split(m[2], ",") {
		s := setItem.FindStringSubmatch(item)
		if s == nil {
			return updateShape{}, false
		}
		set[strings.Trim(s[1], `"`)] = true
	}
	sh := updateShape{table: strings.Trim(m[1], `"`)}
	for _, item := range strings.Split(m[3], " AND ") {
		w := whereItem.FindStringSubmatch(item)
		if w == nil || set[strings.Trim(w[1], `"`)] {
			return updateShape{}, false
		}
		n := 0
		for _, c := range w[2] {
			n = n*10 + int(c-'0')
		}
		sh.key = append(sh.key, n-1)
	}
	return sh, true
}

// namesTable reports whether statement q names table (as a whole word).
func namesTable(q, table string) bool {
	for i := 0; ; {
		j := strings.Index(q[i:], table)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(table)
		before := j == 0 || !identByte(q[j-1])
		after := end == len(q) || !identByte(q[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// plainInsertInto reports whether q is INSERT INTO table … VALUES (…).
func plainInsertInto(q, table string) bool {
	rest, ok := strings.CutPrefix(q, "INSERT INTO ")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, `"`)
	rest, ok = strings.CutPrefix(rest, table)
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, `"`)
	if !strings.HasPrefix(rest, " ") {
		return false
	}
	v := strings.Index(rest, " VALUES ")
	return v >= 0 && !namesTable(rest[v:], table) && !strings.Contains(strings.ToUpper(rest[v:]), "SELECT")
}

// sameArgs reports whether a and b agree at the key positions, for
// arguments comparable by value.
func sameArgs(a, b []any, key []int) bool {
	for _, k := range key {
		if k >= len(a) || k >= len(b) {
			return false
		}
		switch a[k].(type) {
		case int64, int, int32, string:
			if a[k] != b[k] {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// coalesce drops the UPDATEs a later statement of the batch supersedes.
func coalesce(stmts []pendingStmt) []pendingStmt {
	if len(stmts) < 2 {
		return stmts
	}
	drop := make([]bool, len(stmts))
	dropped := false
	for i, s := range stmts {
		sh, ok := shapeOf(s.q)
		if !ok {
			continue
		}
		for j := i + 1; j < len(stmts); j++ {
			t := stmts[j]
			if t.q == s.q {
				if sameArgs(s.args, t.args, sh.key) {
					drop[i], dropped = true, true
					break
				}
				continue
			}
			if namesTable(t.q, sh.table) && !plainInsertInto(t.q, sh.table) {
				break
			}
		}
	}
	if !dropped {
		return stmts
	}
	out := make([]pendingStmt, 0, len(stmts))
	for i, s := range stmts {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return out
}
