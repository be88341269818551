package planner

import (
	"strings"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
)

// scanNameMap turns a registered file's name mapping into where the scan
// finds each top-level column: a file column by name, or the value of a
// hive key in the file's path.
func scanNameMap(path string, entries []catalog.NameMapEntry) map[int32]exec.MappedColumn {
	m := make(map[int32]exec.MappedColumn, len(entries))
	hive := HiveValues(path)
	for _, e := range entries {
		if e.Parent != nil {
			continue
		}
		mc := exec.MappedColumn{Source: e.Source}
		if e.IsPartition {
			mc.Hive, mc.Value = true, hive[strings.ToLower(e.Source)]
		}
		m[int32(e.FieldID)] = mc
	}
	return m
}

// HiveValues are the key=value directories of a path, keys lower-cased.
func HiveValues(path string) map[string]string {
	out := map[string]string{}
	parts := strings.Split(path, "/")
	for _, p := range parts[:max(len(parts)-1, 0)] {
		if k, v, ok := strings.Cut(p, "="); ok && k != "" {
			out[strings.ToLower(k)] = unescapeHive(v)
		}
	}
	return out
}

// unescapeHive undoes the %XX escapes of a hive directory value.
func unescapeHive(v string) string {
	if !strings.Contains(v, "%") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]) {
			b.WriteByte(unhex(v[i+1])<<4 | unhex(v[i+2]))
			i += 2
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
