package pgcatalog

import (
	"fmt"
	"strconv"

	"github.com/lakepg/lakepg/exec/vec"
)

// pg_class has a row per lake table and one per TOAST relation, 20,000 rows
// of 33 columns in a lake of 10,000 tables: building them as vals maps took
// most of psql's \dt there. classRow is such a row as typed fields and
// classWriter appends it straight into the rowSet's column vectors.

// classRow is one pg_class row; the columns it has no field for are
// constants (the same for every row lakepg lists) or NULL.
type classRow struct {
	oid, ns, rowType, owner, am, filenode, toast int64
	name, persistence, kind, replident           string
	natts                                        int
	pages                                        int32
	hasIndex                                     bool
	frozen, minMulti, xmin                       int64
	acl                                          string // aclitem[] text; "" for NULL
}

// classWriter holds pg_class's column vectors by name.
type classWriter struct {
	r *rowSet
	oid, relname, relnamespace, reltype, reloftype, relowner, relam, relfilenode, reltablespace,
	relpages, reltuples, relallvisible, reltoastrelid, relhasindex, relisshared, relpersistence,
	relkind, relnatts, relchecks, relhasrules, relhastriggers, relhassubclass, relrowsecurity,
	relforcerowsecurity, relispopulated, relreplident, relispartition, relrewrite, relfrozenxid,
	relminmxid, relacl *vec.Vector
	// nulls are the columns no field fills (reloptions, relpartbound)
	nulls []*vec.Vector
}

// newClassWriter prepares n rows' room in r (empty).
func newClassWriter(r *rowSet, n int) *classWriter {
	for i, v := range r.vecs {
		if v.Len() == 0 {
			r.vecs[i] = vec.New(v.Type, n)
		}
	}
	w := &classWriter{r: r}
	used := make([]bool, len(r.vecs))
	col := func(name string) *vec.Vector {
		i, ok := r.idx[name]
		if !ok {
			if r.err == nil {
				r.err = fmt.Errorf("pgcatalog: %s has no column %s", r.t.Name, name)
			}
			return nil
		}
		used[i] = true
		return r.vecs[i]
	}
	w.oid, w.relname, w.relnamespace, w.reltype = col("oid"), col("relname"), col("relnamespace"), col("reltype")
	w.reloftype, w.relowner, w.relam, w.relfilenode = col("reloftype"), col("relowner"), col("relam"), col("relfilenode")
	w.reltablespace, w.relpages, w.reltuples = col("reltablespace"), col("relpages"), col("reltuples")
	w.relallvisible, w.reltoastrelid, w.relhasindex = col("relallvisible"), col("reltoastrelid"), col("relhasindex")
	w.relisshared, w.relpersistence, w.relkind = col("relisshared"), col("relpersistence"), col("relkind")
	w.relnatts, w.relchecks, w.relhasrules = col("relnatts"), col("relchecks"), col("relhasrules")
	w.relhastriggers, w.relhassubclass, w.relrowsecurity = col("relhastriggers"), col("relhassubclass"), col("relrowsecurity")
	w.relforcerowsecurity, w.relispopulated, w.relreplident = col("relforcerowsecurity"), col("relispopulated"), col("relreplident")
	w.relispartition, w.relrewrite, w.relfrozenxid = col("relispartition"), col("relrewrite"), col("relfrozenxid")
	w.relminmxid, w.relacl = col("relminmxid"), col("relacl")
	for i, u := range used {
		if !u {
			w.nulls = append(w.nulls, r.vecs[i])
		}
	}
	return w
}

func (w *classWriter) add(c *classRow) {
	r := w.r
	if r.err != nil {
		return
	}
	w.oid.AppendInt(c.oid)
	w.relname.AppendString(c.name)
	w.relnamespace.AppendInt(c.ns)
	w.reltype.AppendInt(c.rowType)
	w.reloftype.AppendInt(0)
	w.relowner.AppendInt(c.owner)
	w.relam.AppendInt(c.am)
	w.relfilenode.AppendInt(c.filenode)
	w.reltablespace.AppendInt(0)
	w.relpages.AppendInt(int64(c.pages))
	w.reltuples.AppendFloat(-1)
	w.relallvisible.AppendInt(0)
	w.reltoastrelid.AppendInt(c.toast)
	w.relhasindex.AppendBool(c.hasIndex)
	w.relisshared.AppendBool(false)
	w.relpersistence.AppendString(c.persistence)
	w.relkind.AppendString(c.kind)
	w.relnatts.AppendInt(int64(c.natts))
	w.relchecks.AppendInt(0)
	w.relhasrules.AppendBool(false)
	w.relhastriggers.AppendBool(false)
	w.relhassubclass.AppendBool(false)
	w.relrowsecurity.AppendBool(false)
	w.relforcerowsecurity.AppendBool(false)
	w.relispopulated.AppendBool(true)
	w.relreplident.AppendString(c.replident)
	w.relispartition.AppendBool(false)
	w.relrewrite.AppendInt(0)
	w.relfrozenxid.AppendInt(c.frozen)
	w.relminmxid.AppendInt(c.minMulti)
	if c.acl == "" {
		w.relacl.AppendNull()
	} else if err := appendValue(w.relacl, c.acl); err != nil {
		r.err = fmt.Errorf("pgcatalog: pg_class.relacl: %w", err)
		return
	}
	for _, v := range w.nulls {
		v.AppendNull()
	}
	r.xmins = append(r.xmins, c.xmin)
	r.n++
}

// toastClassRow is the pg_class row of rel's TOAST relation.
func toastClassRow(rel *relation) classRow {
	oid := toastOID(rel.oid)
	ns, persistence := int64(toastNamespace), "p"
	if rel.temp {
		ns, persistence = rel.toastNS, "t"
	}
	return classRow{oid: oid, name: "pg_toast_" + strconv.FormatInt(rel.oid, 10), ns: ns, owner: superuserOID,
		am: heapAM, filenode: oid, persistence: persistence, kind: "t", natts: 3, replident: "n",
		frozen: frozenXID, minMulti: 1, xmin: rel.xmin()}
}
