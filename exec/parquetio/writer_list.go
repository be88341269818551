package parquetio

import (
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Array columns are written as DuckDB writes DuckLake lists: the standard
// three-level LIST
//
//	optional group <name> (LIST)   field_id = the list column's id
//	  repeated group list
//	    optional <leaf> element    field_id = the element column's id
//
// so one leaf column chunk carries every element, told apart by levels:
// repetition 0 starts a row, 1 continues its list; definition 0 is a NULL
// list, 1 an empty list, 2 a NULL element, 3 a value. The rows' array
// encodings are decoded into one element vector per batch, which then
// takes the scalar path, so every element type converts exactly as a
// column of that type does.

const (
	defNullList  = 0
	defEmptyList = 1
	defNullElem  = 2
	defElem      = 3
)

// listScratch is reused across batches: the decoded elements and each
// level entry's element index (-1: the entry is a NULL or empty list).
type listScratch struct {
	elems *vec.Vector
	ref   []int32
	rep   []uint8
	def   []uint8
}

// listNode is the Parquet schema of an array column.
func listNode(c Column) (parquet.Node, error) {
	elem := c.Type.Elem()
	switch elem.ID {
	case types.Array, types.Struct, types.Unknown:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet; only arrays of scalar types can", c.Name, c.Type)
	}
	if c.ElemFieldID <= 0 {
		return nil, fmt.Errorf("parquet: array column %q has no element field id", c.Name)
	}
	en, err := columnNode(Column{FieldID: c.ElemFieldID, Name: "element", Type: elem})
	if err != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet", c.Name, c.Type)
	}
	return parquet.FieldID(parquet.Optional(parquet.List(en)), int(c.FieldID)), nil
}

// writeLists writes rows [lo, hi) of array vector v to leaf column cw and
// folds its elements into the column's statistics, which DuckLake keeps
// for the element: NULL lists and empty lists count as NULLs there, as
// DuckDB counts them.
func (w *Writer) writeLists(cw *parquet.ColumnWriter, col int, v *vec.Vector, lo, hi int) error {
	c := w.cols[col]
	et := c.Type.Elem()
	ls := &w.list
	if ls.elems == nil || ls.elems.Type != et {
		ls.elems = vec.New(et, 64)
	}
	ls.elems.Reset()
	ls.ref, ls.rep, ls.def = ls.ref[:0], ls.rep[:0], ls.def[:0]
	missing := int64(0)
	for i := lo; i < hi; i++ {
		if v.IsNull(i) || v.S[i] == "" {
			d := uint8(defEmptyList)
			if v.IsNull(i) {
				d = defNullList
			}
			ls.ref, ls.rep, ls.def = append(ls.ref, -1), append(ls.rep, 0), append(ls.def, d)
			missing++
			continue
		}
		s := v.S[i]
		r := uint8(0)
		for p := 0; p < len(s); {
			q, err := vec.DecodeElem(ls.elems, s, p)
			if err != nil {
				return fmt.Errorf("parquet: column %q: %w", c.Name, err)
			}
			e := ls.elems.Len() - 1
			d := uint8(defElem)
			if ls.elems.IsNull(e) {
				d = defNullElem
			}
			ls.ref, ls.rep, ls.def = append(ls.ref, int32(e)), append(ls.rep, r), append(ls.def, d)
			r = 1
			p = q
		}
	}
	n := len(ls.ref)
	if cap(w.vals) < n {
		w.vals = make([]parquet.Value, n)
	}
	out := w.vals[:n]
	switch {
	case et.ID == types.Interval:
		w.ivBuf = resize(w.ivBuf, 12*ls.elems.Len())
	case et.Wide():
		w.ivBuf = resize(w.ivBuf, 16*ls.elems.Len())
	}
	for k := range out {
		rep, def := int(ls.rep[k]), int(ls.def[k])
		if def != defElem {
			out[k] = parquet.NullValue().Level(rep, def, col)
			continue
		}
		e := int(ls.ref[k])
		pv, err := w.scalar(c.Name, et, ls.elems, e, e)
		if err != nil {
			return err
		}
		out[k] = pv.Level(rep, def, col)
	}
	if _, err := cw.WriteRowValues(out); err != nil {
		return fmt.Errorf("parquet: writing column %q: %w", c.Name, err)
	}
	w.acc[col].add(ls.elems, 0, ls.elems.Len())
	w.acc[col].nulls += missing
	return nil
}
