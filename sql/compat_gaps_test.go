package sql

import (
	"testing"
	"time"

	"github.com/lakepg/lakepg/sql/planner"

	"github.com/lakepg/lakepg/pgerr"
)

// Expected rows are PostgreSQL 15's answers to the same statements.
func TestRowCountsSplitsAndUnionLiterals(t *testing.T) {
	s := lake(t)
	// a row of NULLs is a value: count((a, b)) counts it, DISTINCT once
	must(t, s, `SELECT count(DISTINCT (a, b)), count((a, b)), count(DISTINCT a) FROM (VALUES (1, 'x'), (1, 'x'), (1, NULL), (NULL, NULL), (NULL, NULL), (2, '')) t(a, b)`, "4|6|2")
	must(t, s, `SELECT x, ordinality FROM regexp_split_to_table('a,b,,c', ',') WITH ORDINALITY AS x`, "a|1", "b|2", "|3", "c|4")
	must(t, s, `SELECT id, regexp_split_to_table(s, '-') FROM (VALUES (1, 'a-b'), (2, NULL), (3, 'c')) t(id, s) ORDER BY 1, 2`, "1|a", "1|b", "3|c")
	mustFail(t, s, `SELECT regexp_split_to_table('abc', 'b', 'g')`, pgerr.InvalidParameterValue)
	// an untyped literal takes the other branch's type, and may not fit it
	must(t, s, `SELECT 1 UNION SELECT '2' ORDER BY 1`, "1", "2")
	must(t, s, `SELECT 1.5 UNION ALL SELECT '2.25' ORDER BY 1`, "1.5", "2.25")
	must(t, s, `SELECT NULL UNION SELECT 1 ORDER BY 1`, "1", "NULL")
	mustFail(t, s, `SELECT 1 UNION SELECT 'x'`, pgerr.InvalidTextRepr)
	mustFail(t, s, `(SELECT 'a' UNION SELECT 'b') UNION SELECT 1`, pgerr.DatatypeMismatch)
}

// Offsets are PostgreSQL 15's for the same TimeZone settings at the two
// instants (winter, summer).
func TestTimeZoneSettingsLikePostgres(t *testing.T) {
	winter := time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC)
	summer := time.Date(2024, 7, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		setting      string
		wint, summer int // hours east of UTC ×100 (hhmm)
	}{
		{"-03:00", 300, 300}, {"+3", 300, 300}, {"3", 300, 300}, {"-3", -300, -300}, {"2.5", 230, 230},
		{"+05:30", -530, -530}, {"05:30", -530, -530},
		{"UTC+3", -300, -300}, {"UTC-3", 300, 300}, {"UTC+03:30", -330, -330}, {"GMT+2", -200, -200},
		{"<+07>-7", 700, 700}, {"XYZ+2", -200, -200}, {"JST-9", 900, 900}, {"EST5", -500, -500},
		{"EST5EDT", -500, -400}, {"CET-1CEST,M3.5.0,M10.5.0/3", 100, 200}, {"Etc/GMT-14", 1400, 1400},
		{"Europe/Berlin", 100, 200},
	} {
		loc, err := planner.TimeZoneLocation(c.setting)
		if err != nil {
			t.Fatalf("%s: %v", c.setting, err)
		}
		for i, at := range []time.Time{winter, summer} {
			_, off := at.In(loc).Zone()
			want := []int{c.wint, c.summer}[i]
			if got := off/3600*100 + off%3600/60; got != want {
				t.Errorf("%s at %s: offset %d, want %d", c.setting, at, got, want)
			}
		}
	}
	for _, bad := range []string{"FOO", "Mars/Olympus_Mons", "UTC+x"} {
		if _, err := planner.TimeZoneLocation(bad); pgerr.Code(err) != pgerr.InvalidParameterValue {
			t.Errorf("%s: %v", bad, err)
		}
	}
	s := lake(t)
	must(t, s, `SET TimeZone = 'UTC+3'`)
	must(t, s, `SELECT '2024-01-15 12:00:00+00'::timestamptz`, "2024-01-15 09:00:00-03")
}
