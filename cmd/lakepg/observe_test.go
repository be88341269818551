package main

import "testing"

func TestCommitsFromTag(t *testing.T) {
	cases := []struct {
		tag     string
		hasRows bool
		want    bool
	}{
		{"CREATE TABLE", false, true},
		{"CREATE SCHEMA", false, true},
		{"DROP TABLE", false, true},
		{"ALTER TABLE", false, true},
		{"CREATE INDEX", false, false},
		{"INSERT 0 3", false, true},
		{"INSERT 0 0", false, false},
		{"DELETE 0", false, false},
		{"UPDATE 2", false, true},
		{"COPY 10", false, true},
		{"SELECT 5", true, false},
		{"SELECT 5", false, true}, // CREATE TABLE AS
		{"SET", false, false},
		{"BEGIN", false, false},
		{"", false, false},
	}
	for _, c := range cases {
		if got := commits(c.tag, c.hasRows); got != c.want {
			t.Errorf("commits(%q, %v) = %v, want %v", c.tag, c.hasRows, got, c.want)
		}
	}
}
