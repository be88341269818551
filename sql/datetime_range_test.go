package sql

import "testing"

// TestDatePlusIntervalPastTimestampRange: a date becomes a timestamp
// before an interval is added; past the timestamp range that is 22008, as
// in PostgreSQL (the product wrapped around to a date in 29358).
func TestDatePlusIntervalPastTimestampRange(t *testing.T) {
	s := lake(t)
	mustFail(t, s, `SELECT DATE '5874897-12-31' + INTERVAL '1 year 2 seconds'`, "22008")
	mustFail(t, s, `SELECT DATE '5874897-12-31' - INTERVAL '1 day'`, "22008")
	must(t, s, `SELECT DATE '2000-01-01' + INTERVAL '1 day', DATE 'infinity' + INTERVAL '1 day', DATE '4713-11-24 BC' - INTERVAL '1 day'`,
		"2000-01-02 00:00:00|infinity|4713-11-23 00:00:00 BC")
}
