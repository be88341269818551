package sql

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// This file holds what the session offers the server beyond running
// statements: statement_timeout, the columns of an open cursor (a client
// may Describe a cursor as a portal), DEALLOCATE (the server owns
// prepared statements), and the canonical text of settings with units.

// StatementTimeout is the session's statement_timeout; zero means none.
func (s *Session) StatementTimeout() time.Duration {
	ms, err := parseMillis(s.Settings["statement_timeout"])
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// workMemBytes is the per-operator budget of the session's work_mem in
// bytes, 0 while it is the default.
func (s *Session) workMemBytes() int64 {
	kb, err := parseMemoryKB(s.Settings["work_mem"])
	if err != nil || kb == 4096 {
		return 0
	}
	return kb << 10
}

// parseMemoryKB reads a memory setting as PostgreSQL does: a number of kB,
// or a number with one of the units B, kB, MB, GB, TB (case matters);
// fractions are rounded to whole kB.
func parseMemoryKB(val string) (int64, error) {
	v := strings.TrimSpace(val)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || (i == 0 && (v[i] == '-' || v[i] == '+'))) {
		i++
	}
	num, unit := v[:i], strings.TrimSpace(v[i:])
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"work_mem\": \"%s\"", val)
	}
	mult := map[string]float64{"": 1, "B": 1.0 / 1024, "kB": 1, "MB": 1024, "GB": 1 << 20, "TB": 1 << 30}
	m, ok := mult[unit]
	if !ok {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"work_mem\": \"%s\"", val)
		e.Hint = `Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`
		return 0, e
	}
	kb := math.Round(x * m)
	if kb > math.MaxInt64/2 || kb < math.MinInt64/2 {
		return math.MaxInt64 / 2, nil
	}
	return int64(kb), nil
}

// formatMemoryKB prints kB as SHOW does: in the largest unit that divides it.
func formatMemoryKB(kb int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TB", 1 << 30}, {"GB", 1 << 20}, {"MB", 1 << 10}} {
		if kb != 0 && kb%u.n == 0 {
			return strconv.FormatInt(kb/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(kb, 10) + "kB"
}

// IdleTimeout is the session's idle_in_transaction_session_timeout (inTx)
// or idle_session_timeout; zero means none.
func (s *Session) IdleTimeout(inTx bool) time.Duration {
	name := "idle_session_timeout"
	if inTx {
		name = "idle_in_transaction_session_timeout"
	}
	ms, err := parseMillis(s.Settings[name])
	if err != nil || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// CursorColumns returns the columns of the open cursor name.
func (s *Session) CursorColumns(name string) ([]Column, bool) {
	c := s.cursors[name]
	if c == nil {
		return nil, false
	}
	return c.cols, true
}

// Deallocation reports whether st is DEALLOCATE [PREPARE] name | ALL,
// which the server runs itself on its prepared statements.
func (st *Stmt) Deallocation() (name string, all bool, ok bool) {
	d := st.node.GetDeallocateStmt()
	if d == nil {
		return "", false, false
	}
	return d.Name, d.Isall, true
}

// canonicalSetting checks a value for the settings that have a unit or a
// fixed set of values and returns it as PostgreSQL's SHOW prints it; other
// settings keep the value given.
func canonicalSetting(name, val string) (string, error) {
	bad := func() error {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, val)
	}
	switch name {
	case "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "idle_session_timeout":
		ms, err := parseMillis(val)
		if err != nil || ms < 0 || ms > math.MaxInt32 {
			return "", bad()
		}
		return formatMillis(ms), nil
	case "work_mem":
		kb, err := parseMemoryKB(val)
		if err != nil {
			return "", err
		}
		if kb < 64 || kb > math.MaxInt32 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)", kb)
		}
		return formatMemoryKB(kb), nil
	case "extra_float_digits":
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			return "", bad()
		}
		if n < -15 || n > 3 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", n)
		}
		return strconv.Itoa(n), nil
	case "bytea_output":
		switch v := strings.ToLower(strings.TrimSpace(val)); v {
		case "hex", "escape":
			return v, nil
		}
		return "", bad()
	case "client_min_messages":
		switch v := strings.ToLower(strings.TrimSpace(val)); v {
		case "debug5", "debug4", "debug3", "debug2", "debug1", "debug", "log", "info", "notice", "warning", "error":
			if v == "debug" {
				v = "debug2"
			}
			return v, nil
		}
		return "", bad()
	case "standard_conforming_strings":
		switch strings.ToLower(strings.TrimSpace(val)) {
		case "on", "true", "yes", "1":
			return "on", nil
		case "off", "false", "no", "0":
			// lakepg's parser always reads strings the standard way
			return "", pgerr.New(pgerr.FeatureNotSupported, "standard_conforming_strings cannot be turned off")
		}
		return "", bad()
	case "intervalstyle":
		if strings.EqualFold(strings.TrimSpace(val), "postgres") {
			return "postgres", nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "IntervalStyle \"%s\" is not supported: lakepg prints intervals in the postgres style", val)
	case "datestyle":
		return canonicalDateStyle(val)
	}
	return val, nil
}

// canonicalDateStyle accepts the DateStyle values whose output lakepg
// produces (ISO with any field order, which only input reads) and prints
// them as PostgreSQL does ("ISO, MDY").
func canonicalDateStyle(val string) (string, error) {
	style, order := "ISO", "MDY"
	for _, part := range strings.Split(val, ",") {
		switch p := strings.ToUpper(strings.TrimSpace(part)); p {
		case "ISO", "DEFAULT":
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			order = "MDY"
		case "DMY", "EURO", "EUROPEAN":
			order = "DMY"
		case "YMD":
			order = "YMD"
		case "SQL", "POSTGRES", "GERMAN":
			return "", pgerr.New(pgerr.FeatureNotSupported, "DateStyle \"%s\" is not supported: lakepg prints dates in the ISO style", val)
		default:
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", val)
		}
	}
	return style + ", " + order, nil
}

// timeUnits are the units of time settings in milliseconds, largest first,
// as SHOW picks them.
var timeUnits = []struct {
	name string
	ms   int64
}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}}

// parseMillis reads a time setting in milliseconds: a bare number is
// milliseconds, else a number with one of PostgreSQL's units (us, ms, s,
// min, h, d), fractions rounded.
func parseMillis(v string) (int64, error) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-' || v[i] == '+') {
		i++
	}
	num, unit := v[:i], strings.TrimSpace(v[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, err
	}
	scale := 1.0
	switch unit {
	case "", "ms":
	case "us":
		scale = 0.001
	case "s":
		scale = 1000
	case "min":
		scale = 60000
	case "h":
		scale = 3600000
	case "d":
		scale = 86400000
	default:
		return 0, strconv.ErrSyntax
	}
	return int64(math.Round(f * scale)), nil
}

func formatMillis(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range timeUnits {
		if ms%u.ms == 0 {
			return strconv.FormatInt(ms/u.ms, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}
