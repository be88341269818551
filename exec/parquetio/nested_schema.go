package parquetio

import (
	"fmt"
)

// The shape of a nested top-level field (list, map, struct, or a bare
// repeated field), with the definition and repetition levels that tell its
// values apart. Built once per file at Open; the nested reader binds it to
// the projection's type per scan.

type nestKind uint8

const (
	nkLeaf nestKind = iota
	nkStruct
	nkList // also a map's key_value entries, see nkMap
	nkMap
)

// Legacy converted types of groups.
const (
	convMap         = 1
	convMapKeyValue = 2
	convList        = 3
)

type nestNode struct {
	elem *schemaElem
	kind nestKind
	// def is the definition level of a non-NULL value of this node; a
	// smaller level means the node (or an ancestor) is NULL. optional is
	// false when the node cannot be NULL on its own.
	def      int
	optional bool
	rep      int // repetition level of the node's values
	// Lists and maps: an entry exists when the level is at least entryDef;
	// a level of entryRep on the first leaf starts the next entry of the
	// same list.
	entryDef, entryRep int
	children           []*nestNode // struct fields; list: the element; map: key, value
	lo, hi             int         // the column chunks (leaves) under the node
}

const maxNestDepth = 32

// buildNest builds the node for the schema subtree at s[i]; leaf counts
// column chunks in schema order. It returns the index after the subtree.
func buildNest(s []schemaElem, i int, leaf *int, parentDef, parentRep, depth int) (*nestNode, int, error) {
	if i >= len(s) || depth > maxNestDepth {
		return nil, 0, fmt.Errorf("malformed or too deeply nested schema")
	}
	e := &s[i]
	if e.hasRep && e.rep == repRepeated {
		// A repeated field outside a LIST or MAP annotation is a list of
		// required values (the legacy two-level form).
		n := &nestNode{elem: e, kind: nkList, def: parentDef, rep: parentRep, entryDef: parentDef + 1, entryRep: parentRep + 1, lo: *leaf}
		el, next, err := buildPresent(s, i, leaf, parentDef+1, parentRep+1, false, depth+1)
		if err != nil {
			return nil, 0, err
		}
		n.children = []*nestNode{el}
		n.hi = *leaf
		return n, next, nil
	}
	optional := !e.hasRep || e.rep == repOptional
	def := parentDef
	if optional {
		def++
	}
	return buildPresent(s, i, leaf, def, parentRep, optional, depth)
}

// buildPresent builds s[i] as a node whose non-NULL level is def,
// ignoring the element's own repetition (the caller accounted for it).
func buildPresent(s []schemaElem, i int, leaf *int, def, rep int, optional bool, depth int) (*nestNode, int, error) {
	e := &s[i]
	n := &nestNode{elem: e, def: def, rep: rep, optional: optional, lo: *leaf}
	if e.numChildren <= 0 {
		if !e.hasType {
			return nil, 0, fmt.Errorf("empty group %q", e.name)
		}
		n.kind = nkLeaf
		*leaf++
		n.hi = *leaf
		return n, i + 1, nil
	}
	isList := e.logical.kind == logList || (e.hasConverted && e.converted == convList)
	isMap := e.logical.kind == logMap || (e.hasConverted && (e.converted == convMap || e.converted == convMapKeyValue))
	if (isList || isMap) && e.numChildren == 1 && i+1 < len(s) && s[i+1].hasRep && s[i+1].rep == repRepeated {
		r := &s[i+1]
		n.entryDef, n.entryRep = def+1, rep+1
		switch {
		case isMap && r.numChildren == 2:
			n.kind = nkMap
			j := i + 2
			for k := 0; k < 2; k++ {
				c, next, err := buildNest(s, j, leaf, def+1, rep+1, depth+1)
				if err != nil {
					return nil, 0, err
				}
				n.children = append(n.children, c)
				j = next
			}
			n.hi = *leaf
			return n, j, nil
		case isList:
			n.kind = nkList
			var el *nestNode
			var next int
			var err error
			if r.numChildren == 1 && r.name != "array" && r.name != e.name+"_tuple" {
				// three-level list: the repeated group wraps the element
				el, next, err = buildNest(s, i+2, leaf, def+1, rep+1, depth+1)
			} else {
				// two-level list: the repeated field is the element
				el, next, err = buildPresent(s, i+1, leaf, def+1, rep+1, false, depth+1)
			}
			if err != nil {
				return nil, 0, err
			}
			n.children = []*nestNode{el}
			n.hi = *leaf
			return n, next, nil
		}
	}
	n.kind = nkStruct
	j := i + 1
	for k := int32(0); k < e.numChildren; k++ {
		c, next, err := buildNest(s, j, leaf, def, rep, depth+1)
		if err != nil {
			return nil, 0, err
		}
		n.children = append(n.children, c)
		j = next
	}
	n.hi = *leaf
	if n.hi == n.lo {
		return nil, 0, fmt.Errorf("group %q has no columns", e.name)
	}
	return n, j, nil
}

// maxLevels are the largest definition and repetition levels under n.
func (n *nestNode) maxLevels() (def, rep int) {
	def, rep = n.def, n.rep
	if n.kind == nkList || n.kind == nkMap {
		def, rep = max(def, n.entryDef), max(rep, n.entryRep)
	}
	for _, c := range n.children {
		d, r := c.maxLevels()
		def, rep = max(def, d), max(rep, r)
	}
	return def, rep
}
