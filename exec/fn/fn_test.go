package fn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

func strVec(xs ...string) *vec.Vector {
	v := vec.New(types.TextT, len(xs))
	for _, x := range xs {
		v.AppendString(x)
	}
	return v
}

func intVec(t types.T, xs ...int64) *vec.Vector {
	v := vec.New(t, len(xs))
	for _, x := range xs {
		v.AppendInt(x)
	}
	return v
}

func constText(s string, n int) *vec.Vector {
	v := vec.New(types.TextT, n)
	for i := 0; i < n; i++ {
		v.AppendString(s)
	}
	return v
}

// call resolves name for the argument vectors' types and evaluates it.
func callFn(t *testing.T, ctx *Ctx, name string, args ...*vec.Vector) (*vec.Vector, error) {
	t.Helper()
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type
	}
	ov, casts, rt, err := Resolve(name, ts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i, c := range casts {
		if c.ID != args[i].Type.ID {
			t.Fatalf("%s: argument %d needs a cast to %s", name, i, c)
		}
	}
	n := args[0].Len()
	out := vec.New(rt, n)
	return out, ov.Eval(ctx, out, args, n)
}

func TestAgeOfOneArgumentUsesStatementDate(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	// 03:00 UTC on June 15 is still June 14 in New York
	ctx := &Ctx{Loc: ny, Now: time.Date(2024, 6, 15, 3, 0, 0, 0, time.UTC)}
	ts, _ := types.ParseTimestamp("2024-06-01 00:00")
	out, err := callFn(t, ctx, "age", intVec(types.TimestampT, ts))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out.AppendText(nil, 0, ny)); got != "13 days" {
		t.Errorf("age(timestamp) = %s, want 13 days", got)
	}
	tz, _ := types.ParseTimestamptz("2023-01-14 12:00", ny)
	out, err = callFn(t, ctx, "age", intVec(types.TimestamptzT, tz))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out.AppendText(nil, 0, ny)); got != "1 year 4 mons 30 days 12:00:00" {
		t.Errorf("age(timestamptz) = %s", got)
	}
}

func TestExtractOfInfinity(t *testing.T) {
	inf := intVec(types.TimestampT, types.InfinityMicros, types.NegInfinityMicros)
	out, err := callFn(t, nil, "extract", strVec("year", "year"), inf)
	if err != nil {
		t.Fatal(err)
	}
	// ±Infinity, as PostgreSQL answers
	if got := []string{string(out.AppendText(nil, 0, nil)), string(out.AppendText(nil, 1, nil))}; got[0] != "Infinity" || got[1] != "-Infinity" {
		t.Errorf("extract(year from ±infinity) = %v", got)
	}
	out, err = callFn(t, nil, "date_part", strVec("year", "month"), inf)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(out.F64[0], 1) || !out.IsNull(1) {
		t.Errorf("date_part: %v %v", out.F64, out.Nulls)
	}
}

func TestRetConst(t *testing.T) {
	ov, casts, rt, _ := Resolve("extract", []types.T{types.UnknownT, types.TimestampT})
	if rt != types.NumericAnyT {
		t.Fatalf("extract without constants = %v", rt)
	}
	for unit, scale := range map[string]int{"year": 0, "epoch": 6, "ms": 3, "dow": 0} {
		got := ov.RetConst(casts, []*vec.Vector{strVec(unit), nil})
		if got != (types.T{ID: types.Numeric, Scale: scale}) {
			t.Errorf("extract(%s) narrows to %#v", unit, got)
		}
	}
	if got := ov.RetConst(casts, []*vec.Vector{strVec("julian"), nil}); got != types.NumericAnyT {
		t.Errorf("extract(julian) narrows to %#v", got)
	}
	ov, casts, _, _ = Resolve("round", []types.T{types.NumericT(10, 3), types.Int32T})
	if got := ov.RetConst(casts, []*vec.Vector{nil, intVec(types.Int32T, 2)}); got != (types.T{ID: types.Numeric, Scale: 2}) {
		t.Errorf("round(numeric(10,3), 2) narrows to %#v", got)
	}
	if got := ov.RetConst(casts, []*vec.Vector{nil, intVec(types.Int32T, 5)}); got != types.NumericAnyT {
		t.Errorf("round(numeric(10,3), 5) narrows to %#v", got)
	}
}

func TestMaskedRowsDoNotFail(t *testing.T) {
	x := intVec(types.Int32T, 7, 8)
	y := intVec(types.Int32T, 2, 0)
	x.Nulls = []bool{false, true}
	out, err := callFn(t, nil, "mod", x, y)
	if err != nil {
		t.Fatalf("mod with a NULL dividend over a zero divisor: %v", err)
	}
	if out.I64[0] != 1 || !out.IsNull(1) || out.I64[1] != 0 {
		t.Errorf("mod = %v %v", out.I64, out.Nulls)
	}
	neg := vec.New(types.Float64T, 2)
	neg.AppendFloat(4)
	neg.AppendNull()
	neg.F64[1] = -1 // garbage under a NULL must not raise
	out, err = callFn(t, nil, "sqrt", neg)
	if err != nil || out.F64[0] != 2 || !out.IsNull(1) {
		t.Errorf("sqrt = %v %v %v", out.F64, out.Nulls, err)
	}
}

func TestVolatileAndStable(t *testing.T) {
	ov, _, _, _ := Resolve("random", nil)
	if !ov.Volatile || ov.Strict {
		t.Error("random must be volatile")
	}
	out := vec.New(types.Float64T, 1000)
	if err := ov.Eval(nil, out, nil, 1000); err != nil {
		t.Fatal(err)
	}
	for _, f := range out.F64 {
		if f < 0 || f >= 1 {
			t.Fatalf("random() = %v", f)
		}
	}
	for _, c := range []struct {
		name string
		args []types.T
	}{{"date_trunc", []types.T{types.UnknownT, types.TimestamptzT}}, {"concat", []types.T{types.UnknownT}}, {"now", nil}, {"to_char", []types.T{types.TimestamptzT, types.UnknownT}}} {
		ov, _, _, _ := Resolve(c.name, c.args)
		if !ov.Stable {
			t.Errorf("%s%v should be stable", c.name, c.args)
		}
	}
	ov, _, _, _ = Resolve("date_trunc", []types.T{types.UnknownT, types.TimestampT})
	if ov.Stable || ov.Volatile {
		t.Error("date_trunc(text, timestamp) is immutable")
	}
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	ov, _, _, _ = Resolve("now", nil)
	out = vec.New(types.TimestamptzT, 2)
	if err := ov.Eval(&Ctx{Now: now}, out, nil, 2); err != nil || out.I64[1] != now.UnixMicro() {
		t.Errorf("now() = %v %v", out.I64, err)
	}
}

func TestCbrtIsAccurate(t *testing.T) {
	// PostgreSQL calls the C library's cbrt, which glibc does not round
	// correctly (cbrt(27) = 3.0000000000000004); Go's is exact here.
	out, err := callFn(t, nil, "cbrt", func() *vec.Vector {
		v := vec.New(types.Float64T, 2)
		v.AppendFloat(27)
		v.AppendFloat(-0.001)
		return v
	}())
	if err != nil || math.Abs(out.F64[0]-3) > 1e-15 || math.Abs(out.F64[1]+0.1) > 1e-15 {
		t.Errorf("cbrt = %v %v", out.F64, err)
	}
}

func TestRegexCacheAndErrors(t *testing.T) {
	out, err := callFn(t, nil, "regexp_like", strVec("abc", "abd", "xyz"), strVec("b.", "c$", "^x"))
	if err != nil || !out.B[0] || out.B[1] || !out.B[2] {
		t.Errorf("regexp_like per-row patterns = %v %v", out.B, err)
	}
	_, err = callFn(t, nil, "regexp_like", strVec("a"), strVec("(a)\\1"))
	if pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("back reference: %v", err)
	}
	_, err = callFn(t, nil, "regexp_like", strVec("a"), strVec("a(?=b)"))
	if pgerr.Code(err) != pgerr.FeatureNotSupported {
		t.Errorf("lookahead: %v", err)
	}
}

func TestTimestamptzTruncAcrossDST(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	ctx := &Ctx{Loc: ny}
	// every hour of the days around both 2024 changes, truncated to the day
	// and to the hour, must land on local midnight / a whole local hour
	start := time.Date(2024, 3, 9, 0, 0, 0, 0, ny)
	var ts []int64
	for h := 0; h < 72; h++ {
		ts = append(ts, start.Add(time.Duration(h)*time.Hour+17*time.Minute).UnixMicro())
	}
	start = time.Date(2024, 11, 2, 0, 0, 0, 0, ny)
	for h := 0; h < 72; h++ {
		ts = append(ts, start.Add(time.Duration(h)*time.Hour+17*time.Minute).UnixMicro())
	}
	n := len(ts)
	for _, unit := range []string{"day", "hour"} {
		out, err := callFn(t, ctx, "date_trunc", constText(unit, n), intVec(types.TimestamptzT, ts...))
		if err != nil {
			t.Fatal(err)
		}
		for i, us := range out.I64 {
			got := time.UnixMicro(us).In(ny)
			in := time.UnixMicro(ts[i]).In(ny)
			var want time.Time
			if unit == "day" {
				y, m, d := in.Date()
				want = time.Date(y, m, d, 0, 0, 0, 0, ny)
			} else {
				want = in.Truncate(time.Hour)
			}
			if !got.Equal(want) {
				t.Errorf("date_trunc(%s, %s) = %s, want %s", unit, in, got, want)
			}
		}
	}
}

func TestStringKernelsKeepRowsApart(t *testing.T) {
	in := strVec("ABC", "", "MiXeD", "already lower", "ÀÉ")
	out, err := callFn(t, nil, "lower", in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"abc", "", "mixed", "already lower", "àé"}
	for i, w := range want {
		if out.S[i] != w {
			t.Errorf("lower row %d = %q, want %q", i, out.S[i], w)
		}
	}
	if in.S[0] != "ABC" || in.S[2] != "MiXeD" {
		t.Error("lower changed its input")
	}
}

// TestLowerMatchesReference compares the ASCII kernels with a scalar
// reference over random strings with random NULLs.
func TestLowerMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	v := vec.New(types.TextT, n)
	for i := 0; i < n; i++ {
		if r.IntN(10) == 0 {
			v.AppendNull()
			continue
		}
		b := make([]byte, r.IntN(20))
		for k := range b {
			b[k] = byte(32 + r.IntN(95))
		}
		v.AppendString(string(b))
	}
	ref := func(s string, up bool) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if up && c >= 'a' && c <= 'z' {
				c -= 32
			} else if !up && c >= 'A' && c <= 'Z' {
				c += 32
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, name := range []string{"lower", "upper"} {
		out, err := callFn(t, nil, name, v)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				if !out.IsNull(i) || out.S[i] != "" {
					t.Fatalf("%s row %d: NULL lost", name, i)
				}
				continue
			}
			if want := ref(v.S[i], name == "upper"); out.S[i] != want {
				t.Fatalf("%s(%q) = %q, want %q", name, v.S[i], out.S[i], want)
			}
		}
	}
}

func benchTimestamps(n int) *vec.Vector {
	r := rand.New(rand.NewPCG(3, 4))
	v := vec.New(types.TimestampT, n)
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i := 0; i < n; i++ {
		v.AppendInt(base + r.Int64N(5*365*types.MicrosPerDay))
	}
	return v
}

// benchEval runs name over args in batches; constant arguments (all rows
// equal, like a literal unit) narrow the result type through RetConst as a
// binder would.
func benchEval(b *testing.B, ctx *Ctx, name string, args ...*vec.Vector) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type
	}
	ov, casts, rt, err := Resolve(name, ts)
	if err != nil {
		b.Fatal(err)
	}
	if ov.RetConst != nil {
		consts := make([]*vec.Vector, len(args))
		for i, a := range args {
			if a.Type.ID == types.Text && sameStrings(a.S) {
				consts[i] = a.Slice(0, 1)
			}
		}
		rt = ov.RetConst(casts, consts)
	}
	const batch = vec.BatchSize
	n := args[0].Len()
	out := vec.New(rt, batch)
	slices := make([]*vec.Vector, len(args))
	b.ReportAllocs()
	b.SetBytes(int64(n))
	for b.Loop() {
		for lo := 0; lo < n; lo += batch {
			hi := min(lo+batch, n)
			for i, a := range args {
				slices[i] = a.Slice(lo, hi)
			}
			out.Reset()
			if err := ov.Eval(ctx, out, slices, hi-lo); err != nil {
				b.Fatal(err)
			}
		}
	}
}

const benchRows = 1 << 20

func BenchmarkLower(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	v := vec.New(types.TextT, benchRows)
	words := []string{"Customer#000001", "BRASS", "promo burnished", "ECONOMY ANODIZED STEEL", "fob"}
	for i := 0; i < benchRows; i++ {
		v.AppendString(words[r.IntN(len(words))])
	}
	b.Run("mixed", func(b *testing.B) { benchEval(b, nil, "lower", v) })
}

func BenchmarkDateTrunc(b *testing.B) {
	ts := benchTimestamps(benchRows)
	for _, unit := range []string{"day", "month", "hour"} {
		units := constText(unit, benchRows)
		b.Run("timestamp/"+unit, func(b *testing.B) { benchEval(b, nil, "date_trunc", units, ts) })
	}
	tz := *ts
	tz.Type = types.TimestamptzT
	ny, _ := time.LoadLocation("America/New_York")
	for _, unit := range []string{"day", "month"} {
		units := constText(unit, benchRows)
		b.Run("timestamptz/"+unit, func(b *testing.B) { benchEval(b, &Ctx{Loc: ny}, "date_trunc", units, &tz) })
	}
}

func BenchmarkExtractYear(b *testing.B) {
	d := vec.New(types.DateT, benchRows)
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < benchRows; i++ {
		d.AppendInt(int64(8000 + r.IntN(3000)))
	}
	units := constText("year", benchRows)
	b.Run("date", func(b *testing.B) { benchEval(b, nil, "extract", units, d) })
}

// TestCaseMappingUnicode pins PostgreSQL 15's output in a database with
// LC_CTYPE C.UTF-8: simple (one rune to one rune) Unicode case mapping.
func TestCaseMappingUnicode(t *testing.T) {
	in := vec.New(types.TextT, 1)
	in.AppendString("éclair ÀÉ straße ǆemal ΣΊΣΥΦΟΣ ıi 3éa x-ÿ ɐ")
	for name, want := range map[string]string{
		"upper":   "ÉCLAIR ÀÉ STRAßE ǄEMAL ΣΊΣΥΦΟΣ II 3ÉA X-Ÿ Ɐ",
		"lower":   "éclair àé straße ǆemal σίσυφοσ ıi 3éa x-ÿ ɐ",
		"initcap": "Éclair Àé Straße Ǆemal Σίσυφοσ Ii 3éa X-Ÿ Ɐ",
	} {
		out, err := callFn(t, nil, name, in)
		if err != nil {
			t.Fatal(err)
		}
		if out.S[0] != want {
			t.Errorf("%s = %q, want %q", name, out.S[0], want)
		}
	}
}

// TestNumericNaNThroughFunctions: a NaN argument gives NaN (numeric or
// float results) or NULL (scale), as numeric.c does.
func TestNumericNaNThroughFunctions(t *testing.T) {
	in := vec.New(types.NumericAnyT, 3)
	in.AppendString("NaN")
	in.AppendString("-2.50")
	in.AppendNull()
	for name, want := range map[string][]string{
		"abs":   {"NaN", "2.50", ""},
		"round": {"NaN", "-3", ""},
		"sign":  {"NaN", "-1", ""},
	} {
		out, err := callFn(t, nil, name, in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, w := range want {
			got := ""
			if !out.IsNull(i) {
				got = string(out.AppendText(nil, i, nil))
			}
			if got != w {
				t.Errorf("%s row %d = %q, want %q", name, i, got, w)
			}
		}
	}
	out, err := callFn(t, nil, "scale", in)
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsNull(0) || out.IsNull(1) || out.I64[1] != 2 {
		t.Errorf("scale: NaN row null %t, row 1 %d", out.IsNull(0), out.I64[1])
	}
}

func TestRegexpMatchAndSplitToArray(t *testing.T) {
	text := func(v *vec.Vector, i int) string {
		if v.IsNull(i) {
			return "NULL"
		}
		return string(v.AppendText(nil, i, nil))
	}
	src := strVec("foobarbequebaz", "abc", "a,b,,c")
	out, err := callFn(t, nil, "regexp_match", src, strVec("(bar)(beque)", "(x)?b", "x"))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"{bar,beque}", "{NULL}", "NULL"} {
		if got := text(out, i); got != w {
			t.Errorf("regexp_match row %d = %s, want %s", i, got, w)
		}
	}
	out, err = callFn(t, nil, "regexp_split_to_array", src, strVec("b", "", ","))
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"{foo,ar,eque,az}", "{a,b,c}", `{a,b,"",c}`} {
		if got := text(out, i); got != w {
			t.Errorf("regexp_split_to_array row %d = %s, want %s", i, got, w)
		}
	}
	if _, err := callFn(t, nil, "regexp_match", src, strVec("a", "a", "a"), strVec("g", "g", "g")); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("regexp_match with g: %v", err)
	}
}
