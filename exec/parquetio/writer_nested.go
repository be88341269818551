package parquetio

import (
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Struct columns, arrays of arrays and arrays of structs are written as
// DuckDB writes DuckLake's struct and list columns: a struct is an
// OPTIONAL group of its fields, a list the three-level LIST of
// writer_list.go whose element may itself be a group or a LIST, every
// node with its column id as field_id. Each leaf is one column chunk; a
// row is shredded into every leaf's (repetition, definition) levels in one
// walk over its encoding (the record shredding of the Dremel paper).
// Arrays of scalars keep writer_list.go's path.

// isNestedWrite reports whether t takes this file's path.
func isNestedWrite(t types.T) bool {
	switch t.ID {
	case types.Struct:
		return true
	case types.Array:
		e := t.Elem().ID
		return e == types.Array || e == types.Struct
	}
	return false
}

// maxNestedDef bounds definition levels, which are kept in bytes.
const maxNestedDef = 250

// nnode is one node of a nested column's schema.
type nnode struct {
	t        types.T
	id       int32
	name     string
	def      int // definition level when the node is present
	rep      int // repetition level of a list's elements (lists only)
	kids     []*nnode
	leaf     int   // index into nestedCol.leaves; -1 for groups
	leaves   []int // the leaves below (itself for a leaf)
	dup      []int // leaves DuckDB counts this struct's NULLs for once more
	scratch  *vec.Vector
	inList   bool     // below a list
	path     []string // Parquet path from the column's root
	listKids bool     // a list: kids[0] is its element
}

// nleaf is one leaf's levels and values of the current batch, and its
// statistics across the file.
type nleaf struct {
	node    *nnode
	vals    *vec.Vector
	ref     []int32 // value index per level entry; -1: no value
	rep     []uint8
	def     []uint8
	acc     statAcc
	entries int64 // level entries (Parquet num_values)
	nulls   int64 // entries without a value
	extra   int64 // DuckDB's double-counted NULL structs (see dup)
	chunk   int   // leaf column index in the file
}

// nestedCol is the writer state of one nested column.
type nestedCol struct {
	root   *nnode
	leaves []*nleaf
}

// nestedIDs hands out a column's descendant ids in depth-first order: the
// catalog's when given, else consecutive ids after the column's own, as
// DuckDB assigns them when a column is created.
type nestedIDs struct {
	ids  []int32
	next int32
	k    int
}

func (g *nestedIDs) take() int32 {
	if g.k < len(g.ids) {
		g.k++
		return g.ids[g.k-1]
	}
	g.next++
	return g.next
}

// newNestedCol builds the schema tree of column c.
func newNestedCol(c Column) (*nestedCol, error) {
	nc := &nestedCol{}
	g := &nestedIDs{ids: c.ChildIDs, next: c.FieldID}
	if len(g.ids) == 0 && c.ElemFieldID > 0 {
		g.next = c.ElemFieldID - 1
	}
	var build func(t types.T, id int32, name string, def int, rep int, inList bool, path []string, depth int) (*nnode, error)
	build = func(t types.T, id int32, name string, def, rep int, inList bool, path []string, depth int) (*nnode, error) {
		if depth > 64 || def > maxNestedDef {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s is nested too deeply to be written", c.Name, c.Type)
		}
		n := &nnode{t: t, id: id, name: name, def: def, leaf: -1, inList: inList, path: path}
		switch t.ID {
		case types.Struct:
			fs := t.Fields()
			if len(fs) == 0 {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: a record without fields cannot be stored", c.Name)
			}
			seen := map[string]bool{}
			for _, f := range fs {
				if f.Name == "" || seen[f.Name] {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: record fields need distinct names to be stored (type %s)", c.Name, t)
				}
				seen[f.Name] = true
				k, err := build(f.Type, g.take(), f.Name, def+1, rep, inList, append(path[:len(path):len(path)], f.Name), depth+1)
				if err != nil {
					return nil, err
				}
				n.kids = append(n.kids, k)
			}
		case types.Array:
			n.listKids = true
			n.rep = rep + 1
			k, err := build(t.Elem(), g.take(), "element", def+2, rep+1, true, append(path[:len(path):len(path)], "list", "element"), depth+1)
			if err != nil {
				return nil, err
			}
			n.kids = []*nnode{k}
		default:
			if leafOf(Column{Name: name, Type: t}) == nil || t.ID == types.Unknown {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet", c.Name, c.Type)
			}
			if t.ID == types.Numeric && !t.Wide() {
				if p, s := numericPS(t); s < 0 || p > types.MaxInt64Precision || s > p {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "column %q: type %s cannot be written to Parquet; declare numeric(p,s) with p <= 38", c.Name, c.Type)
				}
			}
			n.leaf = len(nc.leaves)
			l := &nleaf{node: n, vals: vec.New(t, 64)}
			l.acc.t = t
			nc.leaves = append(nc.leaves, l)
			n.leaves = []int{n.leaf}
			return n, nil
		}
		for _, k := range n.kids {
			n.leaves = append(n.leaves, k.leaves...)
		}
		n.scratch = vec.New(t, 8)
		return n, nil
	}
	root, err := build(c.Type, c.FieldID, c.Name, 1, 0, false, []string{c.Name}, 0)
	if err != nil {
		return nil, err
	}
	nc.root = root
	// DuckDB 1.5.5's Parquet writer adds a NULL struct's count to its
	// fields' NULL counts a second time when the struct sits inside a
	// list; the count passes down through struct fields, never through a
	// list. Its catalog rows carry the result, so ours do.
	var mark func(n *nnode)
	mark = func(n *nnode) {
		if n.t.ID == types.Struct && n.inList {
			n.dup = structLeaves(n)
		}
		for _, k := range n.kids {
			mark(k)
		}
	}
	mark(root)
	return nc, nil
}

// structLeaves lists the leaves reached from struct n through struct
// fields only.
func structLeaves(n *nnode) []int {
	var out []int
	for _, k := range n.kids {
		switch {
		case k.leaf >= 0:
			out = append(out, k.leaf)
		case k.t.ID == types.Struct:
			out = append(out, structLeaves(k)...)
		}
	}
	return out
}

// node is the Parquet schema of the column (or a node below it).
func (n *nnode) node() (parquet.Node, error) {
	switch {
	case n.leaf >= 0:
		ln, err := columnNode(Column{FieldID: n.id, Name: n.name, Type: n.t})
		if err != nil {
			return nil, err
		}
		return ln, nil
	case n.listKids:
		en, err := n.kids[0].node()
		if err != nil {
			return nil, err
		}
		return parquet.FieldID(parquet.Optional(parquet.List(en)), int(n.id)), nil
	}
	fields := make([]parquet.Field, len(n.kids))
	for i, k := range n.kids {
		kn, err := k.node()
		if err != nil {
			return nil, err
		}
		fields[i] = &namedField{Node: kn, name: k.name}
	}
	return parquet.FieldID(parquet.Optional(&orderedGroup{fields: fields}), int(n.id)), nil
}

// nestedSetup is NewWriter's hook for a nested column: its Parquet node,
// the options its leaves need, and its writer state.
func nestedSetup(c Column) (parquet.Node, []parquet.WriterOption, *nestedCol, error) {
	nc, err := newNestedCol(c)
	if err != nil {
		return nil, nil, nil, err
	}
	n, err := nc.root.node()
	if err != nil {
		return nil, nil, nil, err
	}
	var opts []parquet.WriterOption
	for _, l := range nc.leaves {
		if noChunkBounds(l.node.t) {
			opts = append(opts, parquet.SkipPageBounds(l.node.path...))
		}
	}
	return n, opts, nc, nil
}

// leafCount is how many Parquet leaf columns column c has.
func leafCount(c Column) int {
	if c.Variant {
		return 2 // metadata and value (writer_variant.go)
	}
	if !isNestedWrite(c.Type) {
		return 1
	}
	n := 0
	var walk func(t types.T)
	walk = func(t types.T) {
		switch t.ID {
		case types.Struct:
			for _, f := range t.Fields() {
				walk(f.Type)
			}
		case types.Array:
			walk(t.Elem())
		default:
			n++
		}
	}
	walk(c.Type)
	return n
}

// writeNested shreds rows [lo, hi) of v into the leaves of nested column
// col, whose first leaf is column chunk first, and writes them.
func (w *Writer) writeNested(cws []*parquet.ColumnWriter, nc *nestedCol, first int, v *vec.Vector, lo, hi int) error {
	for i, l := range nc.leaves {
		l.vals.Reset()
		l.ref, l.rep, l.def = l.ref[:0], l.rep[:0], l.def[:0]
		l.chunk = first + i
	}
	var resetScratch func(n *nnode)
	resetScratch = func(n *nnode) {
		if n.scratch != nil {
			n.scratch.Reset()
		}
		for _, k := range n.kids {
			resetScratch(k)
		}
	}
	resetScratch(nc.root)
	for i := lo; i < hi; i++ {
		if v.IsNull(i) {
			nc.absent(nc.root, 0, 0, true)
			continue
		}
		if err := nc.value(nc.root, v.S[i], 0); err != nil {
			return fmt.Errorf("parquet: column %q: %w", nc.root.name, err)
		}
	}
	for _, l := range nc.leaves {
		if err := w.flushLeaf(cws[l.chunk], l); err != nil {
			return err
		}
	}
	return nil
}

// absent records that node n holds no value at this position: def is the
// level reached (the parent's), null is false for an empty list.
func (nc *nestedCol) absent(n *nnode, rep, def int, null bool) {
	for _, li := range n.leaves {
		l := nc.leaves[li]
		l.ref, l.rep, l.def = append(l.ref, -1), append(l.rep, uint8(rep)), append(l.def, uint8(def))
	}
	if null {
		for _, li := range n.dup {
			nc.leaves[li].extra++
		}
	}
}

// value shreds the non-NULL value of group node n whose encoding is s;
// rep is the repetition level of its first entry.
func (nc *nestedCol) value(n *nnode, s string, rep int) error {
	if n.listKids {
		if s == "" {
			nc.absent(n, rep, n.def, false)
			return nil
		}
		r := rep
		for p := 0; p < len(s); {
			q, err := nc.elem(n.kids[0], s, p, r, n.def+1)
			if err != nil {
				return err
			}
			p, r = q, n.rep
		}
		return nil
	}
	p := 0
	for _, k := range n.kids {
		q, err := nc.elem(k, s, p, rep, n.def)
		if err != nil {
			return err
		}
		p = q
	}
	if p != len(s) {
		return vec.ErrBadArray
	}
	return nil
}

// elem shreds the encoded element of node n at s[p:]; parentDef is the
// level when it is NULL. It returns the position after it.
func (nc *nestedCol) elem(n *nnode, s string, p, rep, parentDef int) (int, error) {
	if n.leaf >= 0 {
		l := nc.leaves[n.leaf]
		q, err := vec.DecodeElem(l.vals, s, p)
		if err != nil {
			return 0, err
		}
		e := l.vals.Len() - 1
		ref, d := int32(e), n.def
		if l.vals.IsNull(e) {
			ref, d = -1, parentDef
		}
		l.ref, l.rep, l.def = append(l.ref, ref), append(l.rep, uint8(rep)), append(l.def, uint8(d))
		return q, nil
	}
	q, err := vec.DecodeElem(n.scratch, s, p)
	if err != nil {
		return 0, err
	}
	e := n.scratch.Len() - 1
	if n.scratch.IsNull(e) {
		nc.absent(n, rep, parentDef, true)
		return q, nil
	}
	return q, nc.value(n, n.scratch.S[e], rep)
}

// flushLeaf converts a leaf's batch to Parquet values and folds it into
// its statistics.
func (w *Writer) flushLeaf(cw *parquet.ColumnWriter, l *nleaf) error {
	t := l.node.t
	n := len(l.ref)
	if cap(w.vals) < n {
		w.vals = make([]parquet.Value, n)
	}
	out := w.vals[:n]
	switch {
	case t.ID == types.Interval:
		w.ivBuf = resize(w.ivBuf, 12*l.vals.Len())
	case t.Wide():
		w.ivBuf = resize(w.ivBuf, 16*l.vals.Len())
	}
	for k := range out {
		rep, def := int(l.rep[k]), int(l.def[k])
		e := int(l.ref[k])
		if e < 0 {
			out[k] = parquet.NullValue().Level(rep, def, l.chunk)
			l.nulls++
			continue
		}
		pv, err := w.scalar(l.node.name, t, l.vals, e, e)
		if err != nil {
			return err
		}
		out[k] = pv.Level(rep, def, l.chunk)
	}
	if _, err := cw.WriteRowValues(out); err != nil {
		return fmt.Errorf("parquet: writing column %q: %w", l.node.path[0], err)
	}
	l.entries += int64(n)
	l.acc.add(l.vals, 0, l.vals.Len())
	return nil
}

// nestedStats are the catalog statistics of a nested column's leaves:
// DuckDB's value_count is the level entries minus its NULL count, and
// both are NULL when that count exceeds the entries.
func (nc *nestedCol) stats(sizes func(chunk int) int64) []ColumnStats {
	out := make([]ColumnStats, 0, len(nc.leaves))
	for _, l := range nc.leaves {
		if l.node.t.ID == types.Interval && l.node.inList {
			// as for lists of intervals (writer.go): DuckDB 1.5.5 records
			// 0 values, 0 NULLs and no bounds
			out = append(out, ColumnStats{FieldID: l.node.id})
			continue
		}
		cs := l.acc.result(l.node.id, sizes(l.chunk))
		if l.node.t.ID == types.TimeTZ {
			out = append(out, cs)
			continue
		}
		nulls := l.nulls + l.extra
		if nulls > l.entries {
			cs.ValueCount, cs.NullCount, cs.CountsUnknown = 0, 0, true
		} else {
			cs.ValueCount, cs.NullCount = l.entries-nulls, nulls
		}
		out = append(out, cs)
	}
	return out
}
