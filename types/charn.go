package types

import (
	"fmt"
	"strconv"
	"strings"
)

// DuckLake has only varchar, so the length of varchar(n) and the whole of
// character(n) live in a table tag per column (catalog.PGTypeTagKey) next
// to the varchar column; DuckDB keeps table tags it does not know.

// BpcharT is bpchar without a length: blank-trimmed text of any length.
var BpcharT = T{ID: Text, Bpchar: true}

// BpcharN is character(n).
func BpcharN(n int) T { return T{ID: Text, Bpchar: true, Width: n} }

// VarcharN is varchar(n).
func VarcharN(n int) T { return T{ID: Text, Varchar: true, Width: n} }

func bpcharString(t T) string {
	if t.Width > 0 {
		return fmt.Sprintf("character(%d)", t.Width)
	}
	return "bpchar"
}

// PGTypeTag is the tag value that keeps what the DuckLake type varchar
// forgets about t: "varchar(40)", "bpchar(10)", "bpchar" or "text"; ""
// when nothing needs keeping (varchar without a length).
func PGTypeTag(t T) string {
	if t.ID != Text {
		return ""
	}
	switch {
	case t.Bpchar && t.Width > 0:
		return "bpchar(" + strconv.Itoa(t.Width) + ")"
	case t.Bpchar:
		return "bpchar"
	case t.Varchar && t.Width > 0:
		return "varchar(" + strconv.Itoa(t.Width) + ")"
	case !t.Varchar && !t.Name:
		return "text"
	}
	return ""
}

// ApplyPGTypeTag refines t, the type a varchar column reads as, with its
// tag. A tag that does not parse, or that does not belong to a text column
// (DuckDB changed the column's type and left our tag behind), is ignored.
func ApplyPGTypeTag(t T, tag string) T {
	if t.ID != Text || tag == "" {
		return t
	}
	name, arg, hasArg := strings.Cut(strings.TrimSpace(tag), "(")
	n := 0
	if hasArg {
		v, err := strconv.Atoi(strings.TrimSuffix(arg, ")"))
		if err != nil || v < 1 || !strings.HasSuffix(arg, ")") {
			return t
		}
		n = v
	}
	switch name {
	case "text":
		if !hasArg {
			return TextT
		}
	case "varchar":
		if n > 0 {
			return VarcharN(n)
		}
	case "bpchar":
		return T{ID: Text, Bpchar: true, Width: n}
	}
	return t
}

// PadBpchar pads s with spaces to n characters (character(n) storage).
func PadBpchar(s string, n int) string {
	c := 0
	for range s {
		c++
	}
	if c >= n {
		return s
	}
	return s + strings.Repeat(" ", n-c)
}

// TrimBpchar drops trailing spaces: what bpchar compares, measures and
// casts to text.
func TrimBpchar(s string) string { return strings.TrimRight(s, " ") }
