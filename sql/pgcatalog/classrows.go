package pgcatalog

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// pg_class has a row per lake table and one per TOAST relation, 20,000 rows
// of 33 columns in a lake of 10,000 tables, of which psql's \dt reads six.
// classRows knows the rows (which relation each is) without making them,
// and makes a column only when a plan reads it (Table.Lazy), straight into
// its vector: the owner and ACL of each table, its xmin or its TOAST
// relation's name cost nothing when no column needs them.

// classEntry is one pg_class row of a relation: the relation's own, or that
// of its TOAST relation.
type classEntry struct {
	rel   *relation
	toast bool
	// toasted: the relation's own row, of a relation with a TOAST relation
	toasted bool
}

// classRows are pg_class's rows: the relations, their TOAST relations, and
// the constraints' indexes last (few: made whole, in index).
type classRows struct {
	c     *Context
	ents  []classEntry
	index *rowSet
	// owners and acls are relOwnerACL of each entry's relation, made for
	// whichever of relowner and relacl is asked first
	ownersOnce sync.Once
	owners     []int64
	acls       []string
}

func newClassRows(c *Context, t *Table) *classRows {
	m := newModel(c)
	cr := &classRows{c: c, ents: make([]classEntry, 0, len(m.rels)+len(m.rels)/2)}
	var toastOf []*relation
	var toasted []bool
	if c.Meta != nil {
		toasted = tablesToast(c.Meta.Tables)
	}
	for _, rel := range m.rels {
		t := relToast(rel, toasted) // toast.go
		cr.ents = append(cr.ents, classEntry{rel: rel, toasted: t})
		if t {
			toastOf = append(toastOf, rel)
		}
	}
	for _, rel := range toastOf {
		cr.ents = append(cr.ents, classEntry{rel: rel, toast: true})
	}
	cr.index = newRowSet(t)
	indexClassRows(c, cr.index) // constraints.go
	return cr
}

func (cr *classRows) n() int { return len(cr.ents) + cr.index.n }

// batch makes the columns need marks (nil: all) of t's columns, then the
// xmin column when need marks one past them.
func (cr *classRows) batch(t *Table, need []bool) (*vec.Batch, error) {
	if cr.index.err != nil {
		return nil, cr.index.err
	}
	n := cr.n()
	var vecs []*vec.Vector
	for i, col := range t.Cols {
		if need != nil && (i >= len(need) || !need[i]) {
			continue
		}
		v := vec.New(col.Type, n)
		if err := cr.column(col.Name, v); err != nil {
			return nil, fmt.Errorf("pgcatalog: pg_class.%s: %w", col.Name, err)
		}
		for k := 0; k < cr.index.n; k++ {
			v.AppendFrom(cr.index.vecs[i], k)
		}
		vecs = append(vecs, v)
	}
	if need != nil && len(need) > len(t.Cols) && need[len(t.Cols)] {
		v := vec.New(types.Int64T, n)
		for _, e := range cr.ents {
			v.AppendInt(e.rel.xmin())
		}
		v.I64 = append(v.I64, cr.index.xmins...)
		vecs = append(vecs, v)
	}
	return &vec.Batch{Vecs: vecs, N: n}, nil
}

// xmins are the rows' xmin, in order.
func (cr *classRows) xmins() []int64 {
	out := make([]int64, 0, cr.n())
	for _, e := range cr.ents {
		out = append(out, e.rel.xmin())
	}
	return append(out, cr.index.xmins...)
}

func (cr *classRows) ownerACL() { cr.ownersOnce.Do(cr.makeOwnerACL) }

func (cr *classRows) makeOwnerACL() {
	cr.owners, cr.acls = make([]int64, len(cr.ents)), make([]string, len(cr.ents))
	for i, e := range cr.ents {
		if e.toast {
			cr.owners[i] = superuserOID
			continue
		}
		cr.owners[i], cr.acls[i] = relOwnerACL(cr.c, e.rel) // roles.go
	}
}

// column appends the entries' values of pg_class column name to v.
func (cr *classRows) column(name string, v *vec.Vector) error {
	ints := func(f func(e classEntry) int64) {
		for _, e := range cr.ents {
			v.I64 = append(v.I64, f(e))
		}
	}
	strs := func(f func(e classEntry) string) {
		for _, e := range cr.ents {
			v.S = append(v.S, f(e))
		}
	}
	bools := func(f func(e classEntry) bool) {
		for _, e := range cr.ents {
			v.B = append(v.B, f(e))
		}
	}
	// plain: a table's own row (relkind r), which has storage
	plain := func(e classEntry) bool { return e.toast || e.rel.kind == "r" }
	switch name {
	case "oid", "relfilenode":
		file := name == "relfilenode"
		ints(func(e classEntry) int64 {
			switch {
			case e.toast:
				return toastOID(e.rel.oid)
			case file && e.rel.kind != "r":
				return 0
			}
			return e.rel.oid
		})
	case "relname":
		// the TOAST relations' names share one buffer
		var buf []byte
		var ends []int
		for _, e := range cr.ents {
			if e.toast {
				buf = strconv.AppendInt(append(buf, "pg_toast_"...), e.rel.oid, 10)
				ends = append(ends, len(buf))
			}
		}
		all, k, start := string(buf), 0, 0
		strs(func(e classEntry) string {
			if !e.toast {
				return e.rel.name
			}
			s := all[start:ends[k]]
			start = ends[k]
			k++
			return s
		})
	case "relnamespace":
		ints(func(e classEntry) int64 {
			switch {
			case !e.toast:
				return e.rel.ns.oid
			case e.rel.temp:
				return e.rel.toastNS
			}
			return toastNamespace
		})
	case "reltype":
		ints(func(e classEntry) int64 {
			if e.toast {
				return 0
			}
			return e.rel.rowType()
		})
	case "relowner":
		cr.ownerACL()
		v.I64 = append(v.I64, cr.owners...)
	case "relacl":
		cr.ownerACL()
		for _, acl := range cr.acls {
			if acl == "" {
				v.AppendNull()
			} else if err := appendValue(v, acl); err != nil {
				return err
			}
		}
	case "relam":
		ints(func(e classEntry) int64 {
			if plain(e) {
				return heapAM
			}
			return 0
		})
	case "reltoastrelid":
		ints(func(e classEntry) int64 {
			if e.toasted {
				return toastOID(e.rel.oid)
			}
			return 0
		})
	case "relhasindex":
		indexed := indexedTables(cr.c) // constraints.go
		bools(func(e classEntry) bool { return !e.toast && e.rel.lake != nil && indexed[e.rel.lake.ID] })
	case "relpersistence":
		strs(func(e classEntry) string {
			if e.rel.temp {
				return "t"
			}
			return "p"
		})
	case "relkind":
		strs(func(e classEntry) string {
			if e.toast {
				return "t"
			}
			return e.rel.kind
		})
	case "relnatts":
		ints(func(e classEntry) int64 {
			if e.toast {
				return 3
			}
			return int64(e.rel.natts())
		})
	case "relreplident":
		strs(func(e classEntry) string {
			if !e.toast && e.rel.kind == "r" {
				return "d"
			}
			return "n"
		})
	case "relfrozenxid", "relminmxid":
		x := int64(frozenXID)
		if name == "relminmxid" {
			x = 1
		}
		ints(func(e classEntry) int64 {
			if plain(e) {
				return x
			}
			return 0
		})
	case "reloftype", "reltablespace", "relpages", "relallvisible", "relchecks", "relrewrite":
		v.I64 = append(v.I64, make([]int64, len(cr.ents))...)
	case "reltuples":
		for range cr.ents {
			v.F64 = append(v.F64, -1)
		}
	case "relispopulated":
		bools(func(classEntry) bool { return true })
	case "relisshared", "relhasrules", "relhastriggers", "relhassubclass", "relrowsecurity", "relforcerowsecurity",
		"relispartition":
		v.B = append(v.B, make([]bool, len(cr.ents))...)
	case "reloptions", "relpartbound":
		for range cr.ents {
			v.AppendNull()
		}
	default:
		return fmt.Errorf("no such column")
	}
	return nil
}
