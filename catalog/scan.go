package catalog

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// NullBool scans a DuckLake BOOLEAN column from any backend: SQLite holds
// 0/1 integers (what DuckDB's sqlite extension writes), PostgreSQL real
// booleans, and a catalog touched by other tools may hold 'true'/'t'/'1' text.
type NullBool struct {
	Bool, Valid bool
}

// Scan implements sql.Scanner.
func (b *NullBool) Scan(v any) error {
	b.Bool, b.Valid = false, false
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		b.Bool, b.Valid = x, true
	case int64:
		b.Bool, b.Valid = x != 0, true
	case float64:
		b.Bool, b.Valid = x != 0, true
	case []byte:
		return b.Scan(string(x))
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "1", "t", "true", "y", "yes", "on":
			b.Bool, b.Valid = true, true
		case "0", "f", "false", "n", "no", "off":
			b.Bool, b.Valid = false, true
		default:
			return fmt.Errorf("catalog: %q is not a boolean", x)
		}
	default:
		return fmt.Errorf("catalog: cannot scan %T into a boolean", v)
	}
	return nil
}

// Ptr is the value as *bool, nil for NULL.
func (b NullBool) Ptr() *bool {
	if !b.Valid {
		return nil
	}
	v := b.Bool
	return &v
}

// NullTime scans a DuckLake TIMESTAMPTZ column: text on SQLite (lakepg's
// own '2026-11-30 10:00:00.123456+00' or whatever DuckDB's cast to VARCHAR
// produced in its session time zone), time.Time on PostgreSQL.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (t *NullTime) Scan(v any) error {
	t.Time, t.Valid = time.Time{}, false
	switch x := v.(type) {
	case nil:
		return nil
	case time.Time:
		t.Time, t.Valid = x, true
	case []byte:
		return t.Scan(string(x))
	case string:
		p, err := ParseTime(x)
		if err != nil {
			return err
		}
		t.Time, t.Valid = p, true
	case int64:
		// Not written by DuckDB or lakepg, but a tool may have stored epoch
		// seconds; better to read it than to fail the whole snapshot list.
		t.Time, t.Valid = time.Unix(x, 0).UTC(), true
	default:
		return fmt.Errorf("catalog: cannot scan %T into a timestamp", v)
	}
	return nil
}

// FormatTime renders a timestamptz the way lakepg stores it in text
// catalogs: UTC with microseconds and a '+00' offset, which DuckDB casts back
// with snapshot_time::TIMESTAMPTZ.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000") + "+00"
}

// ParseTime parses the textual timestamps found in catalogs: lakepg's and
// PostgreSQL's 'YYYY-MM-DD HH:MM:SS[.fraction][+HH[:MM[:SS]]]', with 'T' or
// ' ' between date and time, 'Z' for UTC, and no offset meaning UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) < 19 {
		return time.Time{}, fmt.Errorf("catalog: bad timestamp %q", s)
	}
	datePart, rest := s[:10], s[11:]
	if s[10] != ' ' && s[10] != 'T' {
		return time.Time{}, fmt.Errorf("catalog: bad timestamp %q", s)
	}
	// Split the offset off the time of day.
	offSec := 0
	if i := strings.IndexAny(rest, "+-Z"); i >= 0 {
		off := rest[i:]
		rest = strings.TrimSpace(rest[:i])
		if off != "Z" {
			sign := 1
			if off[0] == '-' {
				sign = -1
			}
			parts := strings.Split(off[1:], ":")
			if len(parts) == 1 && len(parts[0]) == 4 { // +HHMM
				parts = []string{parts[0][:2], parts[0][2:]}
			}
			mult := []int{3600, 60, 1}
			if len(parts) > 3 {
				return time.Time{}, fmt.Errorf("catalog: bad offset in timestamp %q", s)
			}
			for k, p := range parts {
				n, err := strconv.Atoi(p)
				if err != nil {
					return time.Time{}, fmt.Errorf("catalog: bad offset in timestamp %q", s)
				}
				offSec += n * mult[k]
			}
			offSec *= sign
		}
	}
	layout := "2006-01-02 15:04:05"
	if strings.Contains(rest, ".") {
		layout += ".999999999"
	}
	t, err := time.ParseInLocation(layout, datePart+" "+rest, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("catalog: bad timestamp %q: %w", s, err)
	}
	return t.Add(-time.Duration(offSec) * time.Second), nil
}

func strPtr(s string) *string { return &s }

// nullStr is a sql.NullString as *string.
func nullStr(n sql.NullString) *string {
	if !n.Valid {
		return nil
	}
	return strPtr(n.String)
}

// scanInt scans a nullable BIGINT column. database/sql passes the driver's
// value to a Scanner as it is, while scanning into *int64 or sql.NullInt64
// goes through reflection: with a dozen such columns per row, that was a
// large part of reading a million files' list.
type scanInt struct {
	V     int64
	Valid bool
}

// Scan implements sql.Scanner.
func (s *scanInt) Scan(src any) error {
	switch x := src.(type) {
	case int64:
		s.V, s.Valid = x, true
		return nil
	case nil:
		s.V, s.Valid = 0, false
		return nil
	}
	var n sql.NullInt64
	err := n.Scan(src)
	s.V, s.Valid = n.Int64, n.Valid
	return err
}

// int64Block hands out *int64 from blocks, one allocation per 512 values
// rather than one per value (the nullable sizes of a million files).
type int64Block struct {
	block []int64
}

// ptr is a pointer to a copy of n's value, nil for NULL.
func (b *int64Block) ptr(n scanInt) *int64 {
	if !n.Valid {
		return nil
	}
	if len(b.block) == 0 {
		b.block = make([]int64, 512)
	}
	p := &b.block[0]
	b.block = b.block[1:]
	*p = n.V
	return p
}

// nullInt is a sql.NullInt64 as *int64.
func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}
