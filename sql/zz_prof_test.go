package sql

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestProfTPCH(t *testing.T) {
	if os.Getenv("TPCH_PROF") == "" {
		t.Skip()
	}
	s := lake(t)
	for _, tb := range []string{"lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region"} {
		must(t, s, `CREATE TABLE `+tb+` AS SELECT * FROM read_parquet('/work/shared/tpch/sf0.1/`+tb+`.parquet')`)
	}
	qs := []string{os.Getenv("TPCH_PROF")}
	if qs[0] == "all" {
		qs = nil
		for i := 1; i <= 22; i++ {
			qs = append(qs, fmt.Sprintf("%02d", i))
		}
	}
	for _, q := range qs {
		b, _ := os.ReadFile("/work/shared/tpch/queries/q" + q + ".sql")
		for i := 0; i < 2; i++ {
			st := time.Now()
			if _, _, err := run(t, s, string(b)); err != nil {
				t.Fatal(err)
			}
			t.Logf("q%s %v", q, time.Since(st))
		}
	}
}
