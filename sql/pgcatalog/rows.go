package pgcatalog

import (
	"fmt"
	"time"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// vals is one row by column name; columns not named are NULL.
type vals map[string]any

// rowSet accumulates a system table's rows column by column. A value of the
// wrong kind or an unknown column name is a bug in this package: the first
// one is kept and returned by batch, so it surfaces as an error, not a panic.
type rowSet struct {
	t    *Table
	idx  map[string]int
	vecs []*vec.Vector
	n    int
	err  error
	// xmins are the rows' xmin system column (see xmin.go): a row that
	// names "xmin" when its relation has no such column sets it.
	xmins []int64
}

func newRowSet(t *Table) *rowSet {
	r := &rowSet{t: t, idx: make(map[string]int, len(t.Cols)), vecs: make([]*vec.Vector, len(t.Cols))}
	for i, c := range t.Cols {
		r.idx[c.Name] = i
		r.vecs[i] = vec.New(c.Type, 16)
	}
	return r
}

// add appends one row. Names that are no column (other than xmin) are
// looked for only when the row has more names than it matched: pg_class
// adds 20,000 rows of 33 names in a lake of 10,000 tables.
func (r *rowSet) add(row vals) {
	if r.err != nil {
		return
	}
	xmin := int64(bootstrapXID)
	extra := 0
	if _, isCol := r.idx[xminColumn]; !isCol {
		if x, isInt := row[xminColumn].(int64); isInt {
			xmin, extra = x, 1
		}
	}
	found := 0
	for i, c := range r.t.Cols {
		v, ok := row[c.Name]
		if !ok {
			r.vecs[i].AppendNull()
			continue
		}
		found++
		if err := appendValue(r.vecs[i], v); err != nil {
			r.err = fmt.Errorf("pgcatalog: %s.%s: %w", r.t.Name, c.Name, err)
			return
		}
	}
	if found+extra != len(row) {
		for name, v := range row {
			if _, ok := r.idx[name]; !ok {
				if _, isInt := v.(int64); name == xminColumn && isInt {
					continue
				}
				r.err = fmt.Errorf("pgcatalog: %s has no column %s", r.t.Name, name)
				return
			}
		}
	}
	r.xmins = append(r.xmins, xmin)
	r.n++
}

func appendValue(out *vec.Vector, v any) error {
	if v == nil {
		out.AppendNull()
		return nil
	}
	if p, ok := v.(*string); ok {
		if p == nil {
			out.AppendNull()
			return nil
		}
		v = *p
	}
	if t, ok := v.(time.Time); ok {
		if t.IsZero() {
			out.AppendNull()
			return nil
		}
		v = t.UnixMicro()
	}
	switch out.Type.Storage() {
	case types.StoreInt:
		switch x := v.(type) {
		case int:
			out.AppendInt(int64(x))
		case int16:
			out.AppendInt(int64(x))
		case int32:
			out.AppendInt(int64(x))
		case int64:
			out.AppendInt(x)
		case uint32:
			out.AppendInt(int64(x))
		default:
			return fmt.Errorf("cannot store %T in %s", v, out.Type)
		}
	case types.StoreFloat:
		switch x := v.(type) {
		case float64:
			out.AppendFloat(x)
		case float32:
			out.AppendFloat(float64(x))
		case int:
			out.AppendFloat(float64(x))
		default:
			return fmt.Errorf("cannot store %T in %s", v, out.Type)
		}
	case types.StoreBool:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("cannot store %T in %s", v, out.Type)
		}
		out.AppendBool(x)
	case types.StoreBytes:
		x, ok := v.(string)
		if !ok {
			return fmt.Errorf("cannot store %T in %s", v, out.Type)
		}
		if out.Type.ID == types.Array {
			// rows give arrays in their text form
			a, err := exec.ParseArray(out.Type, x)
			if err != nil {
				return err
			}
			x = a
		}
		out.AppendString(x)
	default:
		return fmt.Errorf("cannot store %T in %s", v, out.Type)
	}
	return nil
}

func (r *rowSet) batch() (*vec.Batch, error) {
	if r.err != nil {
		return nil, r.err
	}
	return &vec.Batch{Vecs: r.vecs, N: r.n}, nil
}

// with adds the entries of w to v.
func (v vals) with(w vals) vals {
	for k, x := range w {
		v[k] = x
	}
	return v
}
