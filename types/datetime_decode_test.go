package types

import (
	"testing"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// Expected values are PostgreSQL 15's (DateStyle ISO, MDY).
func TestParseDateForms(t *testing.T) {
	for in, want := range map[string]string{
		"Jan 15 2024":              "2024-01-15",
		"January 15, 2024":         "2024-01-15",
		"15-Jan-2024":              "2024-01-15",
		"2024-Jan-15":              "2024-01-15",
		"1/15/2024":                "2024-01-15",
		"2024.01.15":               "2024-01-15",
		"20240115":                 "2024-01-15",
		"240115":                   "2024-01-15",
		"15 Jan 24":                "2024-01-15",
		"Jan 15 99":                "1999-01-15",
		"Monday, January 15, 2024": "2024-01-15",
		"2024-01-15 10:00:00-05":   "2024-01-15",
		"epoch":                    "1970-01-01",
		"infinity":                 "infinity",
		"-INFINITY":                "-infinity",
		"4714-11-24 BC":            "4714-11-24 BC",
		"5874897-12-31":            "5874897-12-31",
	} {
		d, err := ParseDate(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := string(AppendDate(nil, d)); got != want {
			t.Errorf("%q = %s, want %s", in, got, want)
		}
	}
	for in, code := range map[string]string{
		"2024-13-01":              pgerr.DatetimeFieldOverflow,
		"2023-02-29":              pgerr.DatetimeFieldOverflow,
		"Feb 30 2024":             pgerr.DatetimeFieldOverflow,
		"5874898-01-01":           pgerr.DatetimeFieldOverflow,
		"4714-11-23 BC":           pgerr.DatetimeFieldOverflow,
		"+infinity":               pgerr.InvalidDatetimeFormat,
		"allballs":                pgerr.InvalidDatetimeFormat,
		"yesterdayish":            pgerr.InvalidDatetimeFormat,
		"Jan 2024":                pgerr.InvalidDatetimeFormat,
		"2024-01-15 Mars/Olympus": pgerr.InvalidParameterValue,
	} {
		_, err := ParseDate(in)
		if pe, ok := err.(*pgerr.Error); !ok || pe.Code != code {
			t.Errorf("%q: error %v, want SQLSTATE %s", in, err, code)
		}
	}
}

func TestParseTimestamptzZones(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"2024-01-15 10:00 America/Chicago": "2024-01-15 16:00:00+00",
		"2024-07-15 10:00 europe/berlin":   "2024-07-15 08:00:00+00",
		"2024-11-03 01:30:00 EDT":          "2024-11-03 05:30:00+00",
		"Jan 15 2024 10:00 PM EST":         "2024-01-16 03:00:00+00",
		"2024-07-15T10:00:00-07:00":        "2024-07-15 17:00:00+00",
		// a time skipped by DST reads with the offset before the change,
		// a repeated one as the later instant
		"2024-03-10 02:30:00": "2024-03-10 07:30:00+00",
		"2024-11-03 01:30:00": "2024-11-03 06:30:00+00",
	} {
		us, err := ParseTimestamptz(in, ny)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := string(AppendTimestamptz(nil, us, time.UTC)); got != want {
			t.Errorf("%q = %s, want %s", in, got, want)
		}
	}
}

func TestParseTimeForms(t *testing.T) {
	for in, want := range map[string]string{
		"allballs":            "00:00:00",
		"10:00 pm":            "22:00:00",
		"12:05 AM":            "00:05:00",
		"10:00:00 PST":        "10:00:00",
		"2024-01-15 10:00 pm": "22:00:00",
	} {
		us, err := ParseTime(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := string(AppendTime(nil, us)); got != want {
			t.Errorf("%q = %s, want %s", in, got, want)
		}
	}
	for _, in := range []string{"13:00 pm", "10:00 America/New_York"} {
		if _, err := ParseTime(in); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

func TestParseDateOrder(t *testing.T) {
	for _, c := range []struct {
		in    string
		order DateOrder
		want  string
	}{
		{"01-02-24", MDY, "2024-01-02"},
		{"01-02-24", DMY, "2024-02-01"},
		{"01-02-24", YMD, "2001-02-24"},
		{"15/01/2024", DMY, "2024-01-15"},
		{"24/01/02", YMD, "2024-01-02"},
		{"124/01/02", DMY, "0124-01-02"},
		{"2024-01-02", DMY, "2024-01-02"},
	} {
		d, err := ParseDateOrder(c.in, time.UTC, c.order)
		if err != nil {
			t.Errorf("%q (%d): %v", c.in, c.order, err)
			continue
		}
		if got := string(AppendDate(nil, d)); got != c.want {
			t.Errorf("%q (%d) = %s, want %s", c.in, c.order, got, c.want)
		}
	}
	if DateOrderOf("ISO, DMY") != DMY || DateOrderOf("ISO, YMD") != YMD || DateOrderOf("ISO, MDY") != MDY {
		t.Error("DateOrderOf")
	}
}
