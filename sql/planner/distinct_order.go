package planner

import (
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/order"
)

// sortByOutputs lets SELECT DISTINCT sort by ORDER BY expressions that
// are not output names or positions but equal an output expression
// (ORDER BY att.attnum under SELECT DISTINCT att.attnum AS oid, as pgAdmin
// writes), as PostgreSQL allows: each hidden sort expression is pointed at
// the output it equals. ok is false when one equals none of them (42P10
// then). Bound expressions are compared, so a differently qualified
// reference to the same column matches.
func sortByOutputs(outs, hidden []exec.Expr, keys []order.SortKey) ([]order.SortKey, bool) {
	out := append([]order.SortKey{}, keys...)
	for i, k := range out {
		if k.Col < len(outs) {
			continue
		}
		h := hidden[k.Col-len(outs)]
		found := -1
		for j, o := range outs {
			if sameExpr(reflect.ValueOf(h), reflect.ValueOf(o), 0) {
				found = j
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		out[i].Col = found
	}
	return out, true
}

// sameExpr compares two bound expressions structurally. Unlike
// reflect.DeepEqual it takes a top-level function (a kernel) as equal to
// itself; closures may hold state it cannot see (a field number, a
// lookup), so they never compare equal, nor do values nested too deep:
// a false "different" only costs the 42P10 PostgreSQL's rule gives
// anyway. Constants compare by value, not by their evaluation caches.
func sameExpr(a, b reflect.Value, depth int) bool {
	if depth > 64 || a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Func:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Pointer() != b.Pointer() {
			return false
		}
		f := runtime.FuncForPC(a.Pointer())
		return f != nil && !isClosure(f.Name())
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Pointer() == b.Pointer() {
			return true
		}
		if a.Type() == constType && a.CanInterface() && b.CanInterface() {
			ca, cb := a.Interface().(*exec.Const), b.Interface().(*exec.Const)
			return ca.Type() == cb.Type() && ca.V.Len() == 1 && cb.V.Len() == 1 && ca.V.IsNull(0) == cb.V.IsNull(0) &&
				string(ca.V.AppendText(nil, 0, time.UTC)) == string(cb.V.AppendText(nil, 0, time.UTC))
		}
		return sameExpr(a.Elem(), b.Elem(), depth+1)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameExpr(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameExpr(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameExpr(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map, reflect.Chan, reflect.UnsafePointer:
		return a.Pointer() == b.Pointer()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.String:
		return a.String() == b.String()
	}
	return false
}

var constType = reflect.TypeOf((*exec.Const)(nil))

// isClosure tells a function literal's symbol (pkg.f.func1) from a
// declared function's.
func isClosure(name string) bool {
	i := strings.LastIndex(name, ".func")
	return i >= 0 && strings.Trim(name[i+len(".func"):], "0123456789.") == ""
}
