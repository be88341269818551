package slt

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Kind is the kind of a record.
type Kind int

const (
	Statement     Kind = iota // statement ok | statement error
	Query                     // query <types> [sort] [label]
	HashThreshold             // hash-threshold N
	Halt                      // halt: stop the file here
)

// SortMode says how a query's result values are ordered before the comparison.
type SortMode int

const (
	NoSort    SortMode = iota // as returned
	RowSort                   // rows sorted (column by column, as strings)
	ValueSort                 // every value sorted on its own
)

// Condition is a skipif or onlyif line before a record.
type Condition struct {
	Skip   bool   // skipif (true) or onlyif (false)
	Engine string // e.g. "postgresql", "sqlite", "mysql"
}

// Record is one record of a sqllogictest file.
type Record struct {
	Kind       Kind
	Line       int // line of the record's first line (after its conditions)
	Conditions []Condition

	SQL string // Statement and Query

	ExpectError bool // Statement: "statement error"

	Types    string   // Query: one letter per column: I integer, R real, T text
	Sort     SortMode // Query
	Label    string   // Query: results of records with the same label must be equal
	Expected []string // Query: the lines after "----" (values, or one "N values hashing to MD5" line)

	Threshold int // HashThreshold
}

// Applies reports whether the record runs on engine under its skipif/onlyif conditions.
func (r *Record) Applies(engine string) bool {
	for _, c := range r.Conditions {
		if c.Skip == strings.EqualFold(c.Engine, engine) {
			return false
		}
	}
	return true
}

// ParseFile parses a sqllogictest file.
func ParseFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse parses sqllogictest records from r; name is used in error messages.
//
// The format: records are separated by blank lines; '#' starts a comment line. A record is
// "statement ok" or "statement error" followed by the SQL lines; or "query TYPES [nosort |
// rowsort | valuesort] [LABEL]" followed by the SQL lines, a "----" line and the expected
// result lines; or "hash-threshold N"; or "halt". Any record may be preceded by
// "skipif ENGINE" and "onlyif ENGINE" lines.
func Parse(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var (
		lines []string
		recs  []Record
	)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	i := 0
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	for i < len(lines) {
		if blank(i) || strings.HasPrefix(lines[i], "#") {
			i++
			continue
		}
		var conds []Condition
		for i < len(lines) {
			f := strings.Fields(lines[i])
			if len(f) >= 2 && (f[0] == "skipif" || f[0] == "onlyif") {
				conds = append(conds, Condition{Skip: f[0] == "skipif", Engine: f[1]})
				i++
				continue
			}
			break
		}
		if i >= len(lines) || blank(i) {
			return nil, fmt.Errorf("%s:%d: skipif/onlyif without a record", name, i)
		}
		head := strings.Fields(lines[i])
		rec := Record{Line: i + 1, Conditions: conds}
		i++
		// body: the lines up to the next blank line (comment lines inside a record are skipped).
		var body []string
		for i < len(lines) && !blank(i) {
			if !strings.HasPrefix(lines[i], "#") {
				body = append(body, lines[i])
			}
			i++
		}
		switch head[0] {
		case "statement":
			if len(head) < 2 || (head[1] != "ok" && head[1] != "error") {
				return nil, fmt.Errorf("%s:%d: want \"statement ok\" or \"statement error\", got %q", name, rec.Line, lines[rec.Line-1])
			}
			rec.Kind = Statement
			rec.ExpectError = head[1] == "error"
			rec.SQL = strings.Join(body, "\n")
		case "query":
			if len(head) < 2 {
				return nil, fmt.Errorf("%s:%d: query without column types", name, rec.Line)
			}
			rec.Kind = Query
			rec.Types = head[1]
			for _, c := range rec.Types {
				if c != 'I' && c != 'R' && c != 'T' {
					return nil, fmt.Errorf("%s:%d: unknown column type %q", name, rec.Line, c)
				}
			}
			if len(head) >= 3 {
				switch head[2] {
				case "nosort":
				case "rowsort":
					rec.Sort = RowSort
				case "valuesort":
					rec.Sort = ValueSort
				default:
					return nil, fmt.Errorf("%s:%d: unknown sort mode %q", name, rec.Line, head[2])
				}
			}
			if len(head) >= 4 {
				rec.Label = head[3]
			}
			sep := len(body)
			for j, l := range body {
				if l == "----" {
					sep = j
					break
				}
			}
			rec.SQL = strings.Join(body[:sep], "\n")
			if sep < len(body) {
				rec.Expected = append([]string{}, body[sep+1:]...)
			}
		case "hash-threshold":
			if len(head) != 2 {
				return nil, fmt.Errorf("%s:%d: want \"hash-threshold N\"", name, rec.Line)
			}
			n, err := strconv.Atoi(head[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: hash-threshold: %v", name, rec.Line, err)
			}
			rec.Kind = HashThreshold
			rec.Threshold = n
		case "halt":
			rec.Kind = Halt
		default:
			return nil, fmt.Errorf("%s:%d: unknown record %q", name, rec.Line, head[0])
		}
		if rec.Kind != Halt && rec.Kind != HashThreshold && rec.SQL == "" {
			return nil, fmt.Errorf("%s:%d: record without SQL", name, rec.Line)
		}
		recs = append(recs, rec)
	}
	return recs, nil
}
