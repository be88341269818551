package fn

import (
	"time"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// Ctx is what kernels may read from the session.
type Ctx struct {
	Loc *time.Location // session TimeZone; nil means UTC
	Now time.Time      // statement start, for age(x) and friends
}

func (c *Ctx) loc() *time.Location {
	if c == nil || c.Loc == nil {
		return time.UTC
	}
	return c.Loc
}

func (c *Ctx) now() time.Time {
	if c == nil {
		return time.Now()
	}
	return c.Now
}

// Kernel computes out (already created with the result type, empty) for n
// rows from args (each of length >= n, already cast to the overload's
// argument types). See the package documentation for the NULL contract.
type Kernel func(ctx *Ctx, out *vec.Vector, args []*vec.Vector, n int) error

// Overload is one implementation of a function or operator.
type Overload struct {
	Name string    // function name or operator symbol, for messages
	Args []types.T // ID-level parameter types; AnyT and AnyNonTextT are pseudo-types
	// Variadic makes the last parameter repeat (zero or more extra times
	// beyond one, as PostgreSQL's VARIADIC does).
	Variadic bool
	// Ret is the result type for the resolved argument types.
	Ret func(args []types.T) types.T
	// RetConst, when set, may narrow the result type when some arguments are
	// known constants (consts[i] is a one-row vector, or nil when argument i
	// is not constant). Kernels accept either type: the general one from Ret
	// or the narrowed one. Example: extract('year', x) is numeric scale 0
	// instead of a dynamic numeric.
	RetConst func(args []types.T, consts []*vec.Vector) types.T
	// Strict functions return NULL when any argument is NULL; Eval handles
	// that before the kernel runs.
	Strict bool
	// Stable functions read the session TimeZone or the statement time; fold
	// them at bind time only for the statement being bound.
	Stable bool
	// Volatile functions (random) must not be folded or deduplicated.
	Volatile bool
	Kernel   Kernel

	numericArgs bool // some argument is numeric, which may be NaN (numeric_nan.go)
}

// Pseudo-types that appear only in Overload.Args.
var (
	// AnyT is PostgreSQL's "any": the argument keeps its own type (an unknown
	// literal becomes text) and the kernel formats it with the type's text
	// output, as concat and format do.
	AnyT = types.T{ID: anyID}
	// AnyNonTextT is the anynonarray side of text || anynonarray: the
	// argument is cast to text (casts[i] is text), as PostgreSQL's
	// textanycat does with an explicit cast.
	AnyNonTextT = types.T{ID: anyNonTextID}
)

const (
	anyID types.ID = 250 + iota
	anyNonTextID
)

func isPseudo(t types.T) bool { return t.ID >= anyID }

// Eval runs the overload on n rows. For strict overloads it computes the
// NULL mask first, so kernels never see a row with a NULL argument as valid,
// and clears the value slots of NULL rows afterwards.
func (o *Overload) Eval(ctx *Ctx, out *vec.Vector, args []*vec.Vector, n int) error {
	if n == 0 {
		fillZero(out, 0)
		return nil
	}
	if o.Strict {
		var mask []bool
		for _, a := range args {
			if a.Nulls == nil {
				continue
			}
			if mask == nil {
				mask = make([]bool, n)
			}
			nl := a.Nulls[:n]
			for i := range mask {
				mask[i] = mask[i] || nl[i]
			}
		}
		if mask != nil && allTrue(mask) {
			fillZero(out, n)
			out.Nulls = mask
			return nil
		}
		out.Nulls = mask
		if o.numericArgs {
			if rows := specialRows(args, n, mask); rows != nil {
				return o.evalSpecial(ctx, out, args, n, rows)
			}
		}
	}
	if err := o.Kernel(ctx, out, args, n); err != nil {
		return err
	}
	if out.Nulls != nil {
		clearNullSlots(out)
	}
	return nil
}

func allTrue(m []bool) bool {
	for _, b := range m {
		if !b {
			return false
		}
	}
	return true
}

var (
	funcs    = map[string][]*Overload{}
	binOps   = map[string][]*Overload{}
	prefixes = map[string][]*Overload{}
)

func reg(name string, o *Overload) {
	o.Name = name
	o.numericArgs = hasNumericArg(o.Args)
	funcs[name] = append(funcs[name], o)
}

func regOp(op string, o *Overload) {
	o.Name = op
	o.numericArgs = hasNumericArg(o.Args)
	binOps[op] = append(binOps[op], o)
}

func regPrefix(op string, o *Overload) {
	o.Name = op
	o.numericArgs = hasNumericArg(o.Args)
	prefixes[op] = append(prefixes[op], o)
}

// Exists reports whether fn implements a function of this name (lower-case,
// without schema), whatever its arguments.
func Exists(name string) bool {
	if name == "greatest" || name == "least" {
		return true
	}
	_, ok := funcs[name]
	return ok
}

// OperatorExists reports whether fn implements some binary overload of op,
// so a binder can try its own operators first and fall back to fn.
func OperatorExists(op string) bool {
	_, ok := binOps[op]
	return ok
}

// ret returns a Ret function with a fixed result.
func ret(t types.T) func([]types.T) types.T {
	return func([]types.T) types.T { return t }
}

// strict builds a strict, immutable overload.
func strict(k Kernel, r types.T, args ...types.T) *Overload {
	return &Overload{Args: args, Ret: ret(r), Strict: true, Kernel: k}
}
