package types

import (
	"math/big"
	"sort"
	"testing"
	"time"
)

func TestTimeTextRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		"12:34:56": "12:34:56", "12:34:56.789000": "12:34:56.789", "00:00": "00:00:00", "24:00:00": "24:00:00",
		"allballs": "00:00:00", "23:59:59.9999999": "24:00:00", "2024-01-02 03:04:05.5": "03:04:05.5", "1:2:3 +05": "01:02:03",
	} {
		us, err := ParseTime(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := string(AppendTime(nil, us)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	for _, bad := range []string{"24:00:01", "25:00", "noon", "12:00 nowhere", ""} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestTimeTZPackingOrdersAsPostgreSQL(t *testing.T) {
	vals := []string{"12:00+01", "11:00+00", "11:00:00.5+00", "23:30-05", "00:00-15:59", "24:00:00+15:59", "12:00:00+05:30:15"}
	printed := map[string]string{"12:00+01": "12:00:00+01", "11:00+00": "11:00:00+00", "11:00:00.5+00": "11:00:00.5+00",
		"23:30-05": "23:30:00-05", "00:00-15:59": "00:00:00-15:59", "24:00:00+15:59": "24:00:00+15:59", "12:00:00+05:30:15": "12:00:00+05:30:15"}
	type tz struct {
		p    int64
		utc  int64
		zone int
	}
	var xs []tz
	for _, s := range vals {
		p, err := ParseTimeTZ(s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(AppendTimeTZ(nil, p)), printed[s]; got != want {
			t.Errorf("%q prints as %q, want %q", s, got, want)
		}
		local, off := UnpackTimeTZ(p)
		if PackTimeTZ(local, off) != p {
			t.Errorf("%q: pack(unpack) differs", s)
		}
		xs = append(xs, tz{p, local - int64(off)*1e6, -off})
	}
	// timetz_cmp_internal: UTC instant first, then the zone (seconds west)
	sort.Slice(xs, func(i, j int) bool { return xs[i].p < xs[j].p })
	for i := 1; i < len(xs); i++ {
		a, b := xs[i-1], xs[i]
		if a.utc > b.utc || a.utc == b.utc && a.zone >= b.zone {
			t.Errorf("packed order disagrees with PostgreSQL's at %+v, %+v", a, b)
		}
	}
	if p, _ := ParseTimeTZ("23:30-05", time.UTC); TimeTZUTC(p) != 4*3600*1e6+30*60*1e6 {
		t.Errorf("UTC time of day of 23:30-05: %d", TimeTZUTC(p))
	}
}

func TestWideNumeric(t *testing.T) {
	n := NumericT(38, 10)
	if !n.Wide() || n.Storage() != StoreBytes || n.String() != "numeric(38,10)" || n.Typmod() != (38<<16|10)+4 {
		t.Fatalf("numeric(38,10): %+v %s %d", n, n, n.Typmod())
	}
	if dl, err := n.DuckLake(); err != nil || dl != "decimal(38,10)" {
		t.Errorf("DuckLake %q %v", dl, err)
	}
	if back, err := FromDuckLake("decimal(38,10)"); err != nil || back != n {
		t.Errorf("FromDuckLake: %+v %v", back, err)
	}
	d, s, _ := ParseDecimal("-1.00000000005")
	if txt, err := FitWide(n, d, s); err != nil || txt != "-1.0000000001" {
		t.Errorf("FitWide: %q %v", txt, err)
	}
	big10, _ := new(big.Int).SetString("10000000000000000000000000000", 10)
	if _, err := FitWide(n, big10, 0); err == nil {
		t.Errorf("10^28 fits numeric(38,10)")
	}
	for name, want := range map[string]T{"uint64": NumericT(20, 0), "int128": NumericT(39, 0), "time": TimeT, "timetz": TimeTZT, "json": JSONT} {
		if got, err := FromDuckLake(name); err != nil || got != want {
			t.Errorf("%s: %+v %v", name, got, err)
		}
	}
}
