package copyio

import (
	"fmt"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/pgerr"
)

func TestCopyOptions(t *testing.T) {
	parse := func(stmt string) (*CopyOptions, error) {
		tree, err := pg.Parse(stmt)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		c := tree.Stmts[0].Stmt.GetCopyStmt()
		return ParseCopyOptions(c.Options, c.IsFrom)
	}
	ok := []struct {
		stmt string
		want string // format delimiter null quote escape header match
	}{
		{`COPY t FROM STDIN`, `0 "\t" "\\N" "" "" false false`},
		{`COPY t FROM STDIN CSV HEADER`, `1 "," "" "\"" "\"" true false`},
		{`COPY t FROM STDIN WITH (FORMAT csv, HEADER match, DELIMITER ';', NULL 'NA', QUOTE '''', ESCAPE '\')`, `1 ";" "NA" "'" "\\" true true`},
		{`COPY t TO STDOUT WITH CSV DELIMITER '|' NULL 'x' QUOTE '"' ESCAPE '"' FORCE QUOTE *`, `1 "|" "x" "\"" "\"" false false`},
		{`COPY t TO STDOUT (FORMAT text, HEADER on, DELIMITER '|')`, `0 "|" "\\N" "" "" true false`},
		{`COPY t TO STDOUT (FORMAT csv, HEADER 0)`, `1 "," "" "\"" "\"" false false`},
		{`COPY t TO STDOUT BINARY`, `2 "\t" "\\N" "" "" false false`},
		{`COPY t FROM STDIN (FORMAT binary, FREEZE, ENCODING 'UTF8')`, `2 "\t" "\\N" "" "" false false`},
	}
	for _, c := range ok {
		o, err := parse(c.stmt)
		if err != nil {
			t.Errorf("%s: %v", c.stmt, err)
			continue
		}
		q, e := "", ""
		if o.quote != nil {
			q, e = *o.quote, *o.escape
		}
		got := fmt.Sprintf("%d %q %q %q %q %v %v", o.format, *o.delimiter, *o.null, q, e, o.header, o.headerMatch)
		if got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.stmt, got, c.want)
		}
	}
	bad := []struct{ stmt, code string }{
		{`COPY t FROM STDIN (FORMAT xml)`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (FORMAT csv, FORMAT text)`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (BOGUS 1)`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (HEADER maybe)`, pgerr.SyntaxError},
		{`COPY t TO STDOUT (HEADER match)`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (FORMAT binary, DELIMITER ',')`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (FORMAT binary, NULL 'x')`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (FORMAT binary, HEADER)`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (DELIMITER '||')`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (DELIMITER E'\n')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (DELIMITER 'a')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (DELIMITER '\')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (NULL E'a\rb')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (QUOTE '"')`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (ESCAPE '"')`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (FORMAT csv, QUOTE '')`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (FORMAT csv, DELIMITER '"')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (FORMAT csv, FORCE_QUOTE *)`, pgerr.FeatureNotSupported},
		{`COPY t TO STDOUT (FORCE_QUOTE *)`, pgerr.FeatureNotSupported},
		{`COPY t TO STDOUT (FORMAT csv, FORCE_NOT_NULL (a))`, pgerr.FeatureNotSupported},
		{`COPY t TO STDOUT (FORMAT csv, FORCE_NULL (a))`, pgerr.FeatureNotSupported},
		{`COPY t FROM STDIN (FORMAT csv, FORCE_NOT_NULL *)`, pgerr.SyntaxError},
		{`COPY t FROM STDIN (DELIMITER ',', NULL 'a,b')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (FORMAT csv, NULL '"')`, pgerr.InvalidParameterValue},
		{`COPY t FROM STDIN (ENCODING 'LATIN1')`, pgerr.FeatureNotSupported},
	}
	for _, c := range bad {
		_, err := parse(c.stmt)
		if got := pgerr.Code(err); err == nil || got != c.code {
			t.Errorf("%s: got %v (%s), want %s", c.stmt, err, got, c.code)
		}
	}
}
