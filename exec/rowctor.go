package exec

import (
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// RowCtor is ROW(e1, e2, …), or (e1, e2, …), as a value: a record (T is a
// struct type) whose fields are the expressions' values, encoded as every
// struct value is, so that it prints, compares and is stored like one. A
// row constructor is never NULL itself, even when all its fields are.
type RowCtor struct {
	Fields []Expr
	T      types.T
}

func (r *RowCtor) Type() types.T { return r.T }

func (r *RowCtor) MapColumns(fn func(int) int) Expr {
	o := &RowCtor{T: r.T, Fields: make([]Expr, len(r.Fields))}
	for i, e := range r.Fields {
		o.Fields[i] = MapColumns(e, fn)
	}
	return o
}

func (r *RowCtor) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	return encodeElems(env, b, r.T, r.Fields)
}

// encodeElems evaluates es and appends, for every row, their values as
// consecutive encoded elements: an array's elements or a struct's fields.
func encodeElems(env *Env, b *vec.Batch, t types.T, es []Expr) (*vec.Vector, error) {
	vs := make([]*vec.Vector, len(es))
	for k, e := range es {
		v, err := e.Eval(env, b)
		if err != nil {
			return nil, err
		}
		vs[k] = v
	}
	out := vec.New(t, b.N)
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for _, v := range vs {
			buf = vec.AppendElem(buf, v, i)
		}
		out.AppendString(string(buf))
	}
	return out, nil
}

// castStruct converts record values field by field, by position (a ROW
// stored into a struct column takes the column's field names and types).
func castStruct(env *Env, v *vec.Vector, n int, to types.T, assign bool) (*vec.Vector, error) {
	from, want := v.Type.Fields(), to.Fields()
	if len(from) != len(want) {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", v.Type, to)
	}
	out := vec.New(to, n)
	var buf []byte
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			out.AppendNull()
			continue
		}
		fs, err := vec.StructFields(v.Type, v.S[i])
		if err != nil {
			return nil, err
		}
		buf = buf[:0]
		for k, f := range fs {
			cv, err := CastVector(env, f, 1, want[k].Type, assign)
			if err != nil {
				return nil, err
			}
			buf = vec.AppendElem(buf, cv, 0)
		}
		out.AppendString(string(buf))
	}
	return out, nil
}

// StructField is (record).field of a struct value: field K, NULL where the
// record is NULL.
type StructField struct {
	E Expr
	K int
}

func (f *StructField) Type() types.T { return f.E.Type().Fields()[f.K].Type }

func (f *StructField) MapColumns(fn func(int) int) Expr {
	return &StructField{E: MapColumns(f.E, fn), K: f.K}
}

func (f *StructField) Eval(env *Env, b *vec.Batch) (*vec.Vector, error) {
	v, err := f.E.Eval(env, b)
	if err != nil {
		return nil, err
	}
	out := vec.New(f.Type(), b.N)
	for i := 0; i < b.N; i++ {
		if v.IsNull(i) {
			out.AppendNull()
			continue
		}
		fs, err := vec.StructFields(v.Type, v.S[i])
		if err != nil {
			return nil, err
		}
		out.AppendFrom(fs[f.K], 0)
	}
	return out, nil
}
