package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The shortcuts of the original lake REPL, kept with the same syntax. Each
// becomes one SQL statement; names are taken literally (quoted), values are
// string literals that PostgreSQL's rules coerce to the column's type.
const shortcutHelp = `Shortcuts (no semicolon needed):
  create-schema NAME
  create-table SCHEMA TABLE col:type ...   types: int, bigint, smallint, varchar, text,
                                           double, real, bool, date, timestamp, timestamptz,
                                           decimal(p,s), uuid, bytea, interval
  insert SCHEMA TABLE col=val ...          val null is NULL
  scan SCHEMA TABLE [at N]                 N: a snapshot id (time travel)
  delete SCHEMA TABLE col = val
  add-column SCHEMA TABLE col:type
  drop-column SCHEMA TABLE col
  rename-column SCHEMA TABLE old new
  snapshots
  help
  quit
Anything else is SQL, ended by ';' (it may span lines).
Meta-commands: \q quit, \timing toggle the time shown after each statement.`

// shortcut is a parsed shortcut: the statement to run, or a function that
// builds it by asking the connection first (scan needs the column count).
type shortcut struct {
	sql   string
	build func(ctx context.Context, c Conn) (string, error)
	quit  bool
	help  bool
}

// isShortcut reports whether line starts with a shortcut word. insert and
// delete are SQL when followed by INTO/FROM.
func isShortcut(line string) bool {
	f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ";"))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "create-schema", "create-table", "scan", "add-column", "drop-column", "rename-column",
		"snapshots", "help", "quit", "exit":
		return len(f) > 1 || f[0] == "snapshots" || f[0] == "help" || f[0] == "quit" || f[0] == "exit"
	case "insert":
		return len(f) > 1 && !strings.EqualFold(f[1], "into")
	case "delete":
		return len(f) > 1 && !strings.EqualFold(f[1], "from")
	}
	return false
}

// parseShortcut translates a shortcut line.
func parseShortcut(line string) (shortcut, error) {
	args, err := splitArgs(strings.TrimSuffix(strings.TrimSpace(line), ";"))
	if err != nil {
		return shortcut{}, err
	}
	cmd, args := args[0], args[1:]
	need := func(n int, usage string) error {
		if len(args) < n {
			return fmt.Errorf("usage: %s", usage)
		}
		return nil
	}
	switch cmd {
	case "quit", "exit":
		return shortcut{quit: true}, nil
	case "help":
		return shortcut{help: true}, nil
	case "snapshots":
		return shortcut{sql: "SELECT snapshot_id, schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id"}, nil
	case "create-schema":
		if len(args) != 1 {
			return shortcut{}, fmt.Errorf("usage: create-schema NAME")
		}
		return shortcut{sql: "CREATE SCHEMA " + ident(args[0])}, nil
	case "create-table":
		if err := need(3, "create-table SCHEMA TABLE col:type ..."); err != nil {
			return shortcut{}, err
		}
		defs := make([]string, 0, len(args)-2)
		for _, a := range args[2:] {
			d, err := columnDef(a)
			if err != nil {
				return shortcut{}, err
			}
			defs = append(defs, d)
		}
		return shortcut{sql: fmt.Sprintf("CREATE TABLE %s (%s)", qualified(args[0], args[1]), strings.Join(defs, ", "))}, nil
	case "insert":
		if err := need(3, "insert SCHEMA TABLE col=val ..."); err != nil {
			return shortcut{}, err
		}
		var cols, vals []string
		for _, a := range args[2:] {
			k, v, ok := strings.Cut(a, "=")
			if !ok || k == "" {
				return shortcut{}, fmt.Errorf("insert: %q is not col=val", a)
			}
			cols = append(cols, ident(k))
			vals = append(vals, literal(v))
		}
		return shortcut{sql: fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", qualified(args[0], args[1]),
			strings.Join(cols, ", "), strings.Join(vals, ", "))}, nil
	case "delete":
		// "col = val", "col=val" and "col= val" all mean the same
		cond := strings.Join(args[2:], " ")
		k, v, ok := strings.Cut(cond, "=")
		if len(args) < 3 || !ok || strings.TrimSpace(k) == "" {
			return shortcut{}, fmt.Errorf("usage: delete SCHEMA TABLE col = val")
		}
		return shortcut{sql: fmt.Sprintf("DELETE FROM %s WHERE %s = %s", qualified(args[0], args[1]),
			ident(strings.TrimSpace(k)), literal(strings.TrimSpace(v)))}, nil
	case "scan":
		if len(args) != 2 && !(len(args) == 4 && strings.EqualFold(args[2], "at")) {
			return shortcut{}, fmt.Errorf("usage: scan SCHEMA TABLE [at N]")
		}
		from := qualified(args[0], args[1])
		if len(args) == 4 {
			n, err := strconv.ParseInt(args[3], 10, 64)
			if err != nil {
				return shortcut{}, fmt.Errorf("scan: snapshot %q is not a number", args[3])
			}
			from = fmt.Sprintf("lakepg.at_version(%s, %d)", literal(args[0]+"."+args[1]), n)
		}
		return shortcut{build: func(ctx context.Context, c Conn) (string, error) {
			// rows print in a stable order: by every column, left to right
			var cc columnCount
			if _, err := c.Run(ctx, "SELECT * FROM "+from+" LIMIT 0", &cc); err != nil {
				return "", err
			}
			order := make([]string, cc.n)
			for i := range order {
				order[i] = strconv.Itoa(i + 1)
			}
			q := "SELECT * FROM " + from
			if len(order) > 0 {
				q += " ORDER BY " + strings.Join(order, ", ")
			}
			return q, nil
		}}, nil
	case "add-column":
		if len(args) != 3 {
			return shortcut{}, fmt.Errorf("usage: add-column SCHEMA TABLE col:type")
		}
		d, err := columnDef(args[2])
		if err != nil {
			return shortcut{}, err
		}
		return shortcut{sql: fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s", qualified(args[0], args[1]), d)}, nil
	case "drop-column":
		if len(args) != 3 {
			return shortcut{}, fmt.Errorf("usage: drop-column SCHEMA TABLE col")
		}
		return shortcut{sql: fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", qualified(args[0], args[1]), ident(args[2]))}, nil
	case "rename-column":
		if len(args) != 4 {
			return shortcut{}, fmt.Errorf("usage: rename-column SCHEMA TABLE old new")
		}
		return shortcut{sql: fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", qualified(args[0], args[1]), ident(args[2]), ident(args[3]))}, nil
	}
	return shortcut{}, fmt.Errorf("unknown shortcut %q", cmd)
}

type columnCount struct{ n int }

func (c *columnCount) Columns(cols []Column) error { c.n = len(cols); return nil }
func (c *columnCount) Row([][]byte) error          { return nil }

// shortTypes maps the REPL's type words to SQL types; other words pass
// through unchanged (decimal(10,2), interval, ...).
var shortTypes = map[string]string{
	"int": "integer", "integer": "integer", "int4": "integer", "bigint": "bigint", "int8": "bigint",
	"smallint": "smallint", "int2": "smallint", "varchar": "varchar", "string": "varchar", "text": "text",
	"double": "double precision", "float": "double precision", "float8": "double precision",
	"real": "real", "float4": "real", "bool": "boolean", "boolean": "boolean", "date": "date",
	"timestamp": "timestamp", "timestamptz": "timestamptz", "uuid": "uuid", "bytea": "bytea",
	"blob": "bytea", "interval": "interval",
}

func columnDef(a string) (string, error) {
	name, typ, ok := strings.Cut(a, ":")
	if !ok || name == "" || typ == "" {
		return "", fmt.Errorf("%q is not col:type", a)
	}
	if t, ok := shortTypes[strings.ToLower(typ)]; ok {
		typ = t
	}
	return ident(name) + " " + typ, nil
}

// splitArgs splits a shortcut line into words; '…' and "…" group words
// with blanks (a doubled quote inside is one quote).
func splitArgs(line string) ([]string, error) {
	var (
		out []string
		cur strings.Builder
		in  byte
		has bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case in != 0 && c == in:
			if i+1 < len(line) && line[i+1] == in {
				cur.WriteByte(c)
				i++
			} else {
				in = 0
			}
		case in != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			in, has = c, true
		case c == ' ' || c == '\t':
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteByte(c)
			has = true
		}
	}
	if in != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", line)
	}
	if has {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return out, nil
}

// ident quotes a name so it is taken literally.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func qualified(schema, table string) string { return ident(schema) + "." + ident(table) }

// literal is a SQL string literal for v; the word null (any case) is NULL.
func literal(v string) string {
	if strings.EqualFold(v, "null") {
		return "NULL"
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}
