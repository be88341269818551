package fn

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// goldenOK returns the calls.txt cases PostgreSQL answered without error,
// with their answers.
func goldenOK(t *testing.T) ([]call, []string) {
	calls := loadCalls(t)
	want := loadGolden(t)
	var cs []call
	var ws []string
	for k, c := range calls {
		if strings.HasPrefix(want[k][1], "ERROR") {
			continue
		}
		_, v, _ := strings.Cut(want[k][1], "\t")
		cs = append(cs, c)
		ws = append(ws, v)
	}
	return cs, ws
}

// resolveCall resolves c the way evalCall does and builds its argument
// vectors, one row.
func resolveCall(t *testing.T, c call) (*Overload, []*vec.Vector, types.T, *time.Location) {
	loc, err := types.LoadLocation(c.tz)
	if err != nil {
		t.Fatal(err)
	}
	var argTypes []types.T
	for _, a := range c.args {
		at, _ := typeByName(a.typ)
		argTypes = append(argTypes, at)
	}
	var ov *Overload
	var casts []types.T
	var rt types.T
	switch c.kind {
	case "op":
		ov, casts, rt, err = ResolveOperator(c.name, argTypes[0], argTypes[1])
	case "prefix":
		ov, casts, rt, err = ResolvePrefix(c.name, argTypes[0])
	default:
		ov, casts, rt, err = Resolve(c.name, argTypes)
	}
	if err != nil {
		t.Fatalf("%s: %v", c.line, err)
	}
	args := make([]*vec.Vector, len(c.args))
	for i, a := range c.args {
		v, err := literal(casts[i], a, loc)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		args[i] = v
	}
	return ov, args, rt, loc
}

func rowText(v *vec.Vector, i int, loc *time.Location) string {
	if v.IsNull(i) {
		return "NULL"
	}
	return "'" + strings.ReplaceAll(string(v.AppendText(nil, i, loc)), "\n", "⏎") + "'"
}

// isZeroSlot reports whether row i holds its storage class's zero value, as
// a NULL row must.
func isZeroSlot(v *vec.Vector, i int) bool {
	switch v.Type.Storage() {
	case types.StoreInt:
		return v.I64[i] == 0
	case types.StoreFloat:
		return v.F64[i] == 0
	case types.StoreBool:
		return !v.B[i]
	case types.StoreInterval:
		return v.Iv[i] == types.IntervalValue{}
	}
	return v.S[i] == ""
}

// TestStrictNullRows interleaves each answered call with rows where one
// argument is NULL: strict overloads must give NULL there (with a zero value
// slot) and still the right answer on the other rows.
func TestStrictNullRows(t *testing.T) {
	calls, want := goldenOK(t)
	for k, c := range calls {
		ov, args, rt, loc := resolveCall(t, c)
		if !ov.Strict {
			continue
		}
		for nullArg := range args {
			const rows = 5
			batch := make([]*vec.Vector, len(args))
			for j, a := range args {
				v := vec.New(a.Type, rows)
				for r := 0; r < rows; r++ {
					if r%2 == 1 && j == nullArg {
						v.AppendNull()
					} else {
						v.AppendFrom(a, 0)
					}
				}
				batch[j] = v
			}
			out := vec.New(rt, rows)
			ctx := &Ctx{Loc: loc, Now: time.Now()}
			if err := ov.Eval(ctx, out, batch, rows); err != nil {
				t.Errorf("%s with NULL argument %d: %v", c.line, nullArg, err)
				continue
			}
			if out.Len() != rows {
				t.Errorf("%s: %d rows out of %d", c.line, out.Len(), rows)
				continue
			}
			for r := 0; r < rows; r++ {
				got := rowText(out, r, loc)
				switch {
				case r%2 == 1 && got != "NULL":
					t.Errorf("%s with NULL argument %d: row %d = %s, want NULL", c.line, nullArg, r, got)
				case r%2 == 1 && !isZeroSlot(out, r):
					t.Errorf("%s: NULL row %d keeps a value", c.line, r)
				case r%2 == 0 && got != want[k]:
					t.Errorf("%s with NULL argument %d: row %d = %s, want %s", c.line, nullArg, r, got, want[k])
				}
			}
		}
	}
}

func TestEmptyBatch(t *testing.T) {
	calls, _ := goldenOK(t)
	for _, c := range calls {
		ov, args, rt, loc := resolveCall(t, c)
		empty := make([]*vec.Vector, len(args))
		for i, a := range args {
			empty[i] = a.Slice(0, 0)
		}
		out := vec.New(rt, 0)
		if err := ov.Eval(&Ctx{Loc: loc}, out, empty, 0); err != nil || out.Len() != 0 {
			t.Errorf("%s on no rows: %v, %d rows", c.line, err, out.Len())
		}
	}
}

// TestMixedBatches evaluates all answered calls of one signature as the rows
// of one batch, so kernels that cache a pattern, unit, zone or template
// across rows must notice when it changes.
func TestMixedBatches(t *testing.T) {
	calls, want := goldenOK(t)
	type group struct {
		ov   *Overload
		rt   types.T
		loc  *time.Location
		rows [][]*vec.Vector
		want []string
		line []string
	}
	groups := map[string]*group{}
	var order []string
	for k, c := range calls {
		ov, args, rt, loc := resolveCall(t, c)
		var sig strings.Builder
		sig.WriteString(c.tz + "|" + c.kind + "|" + c.name)
		for _, a := range args {
			sig.WriteString(fmt.Sprintf("|%#v", a.Type))
		}
		sig.WriteString(fmt.Sprintf("|%#v", rt))
		key := sig.String()
		g := groups[key]
		if g == nil {
			g = &group{ov: ov, rt: rt, loc: loc}
			groups[key] = g
			order = append(order, key)
		}
		g.rows = append(g.rows, args)
		g.want = append(g.want, want[k])
		g.line = append(g.line, c.line)
	}
	for _, key := range order {
		g := groups[key]
		n := len(g.rows)
		if n < 2 {
			continue
		}
		batch := make([]*vec.Vector, len(g.rows[0]))
		for j := range batch {
			batch[j] = vec.New(g.rows[0][j].Type, n)
			for ri, r := range g.rows {
				if r[j].Type.Storage() != batch[j].Type.Storage() {
					t.Fatalf("%s: row %d (%s) argument %d is %v", key, ri, g.line[ri], j, r[j].Type)
				}
				batch[j].AppendFrom(r[j], 0)
			}
		}
		out := vec.New(g.rt, n)
		if err := g.ov.Eval(&Ctx{Loc: g.loc, Now: time.Now()}, out, batch, n); err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		for r := 0; r < n; r++ {
			if got := rowText(out, r, g.loc); got != g.want[r] {
				t.Errorf("%s in a batch of %d = %s, want %s", g.line[r], n, got, g.want[r])
			}
		}
	}
}
