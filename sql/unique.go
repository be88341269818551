package sql

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/lakepg/lakepg/sql/planner"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/sql/pruning"
	"github.com/lakepg/lakepg/types"
)

// Enforcing PRIMARY KEY and UNIQUE (constraints.go) is set-wise, never a
// lookup per row:
//
//  1. while a write produces its rows (INSERT, COPY, UPDATE of key columns,
//     the inserts of ON CONFLICT), a keyCheck keeps each constraint's new
//     keys in a hash set; a key met twice is a 23505 at once;
//  2. right before the statement's changes are staged or committed (under
//     the engine's writer lock in autocommit, against the latest snapshot),
//     the table's files are pruned by the catalog's min/max of the key's
//     first column (a binary search of the sorted new keys per file) and of
//     the other key columns, and only the key columns of the files that can
//     hold a new key are read and probed in the hash set. Inlined rows and
//     rows the open block staged are always read. Rows the statement itself
//     deletes (an UPDATE's old versions) do not count;
//  3. the commit then records the snapshot the keys were checked at, so a
//     concurrent commit that inserted into the table since fails this one
//     with 40001 (snapshot/constraints.go).
//
// NULL keys never conflict, as in PostgreSQL. DuckDB writing the same lake
// does not know the constraints and can break them.

// uniqueKeys are the new keys of one constraint.
type uniqueKeys struct {
	con   catalog.Constraint
	pos   []int // key columns' positions in the table
	names []string
	seen  map[string]int32 // encoded key → its row in vals
	vals  []*vec.Vector    // the new keys, one vector per key column
	buf   []byte
	// sorted orders vals by the first key column, for pruning
	sorted []int32
}

// keyCheck collects a statement's new keys for every constraint of its
// table. COPY's parallel writers share it, hence the lock.
type keyCheck struct {
	mu     sync.Mutex
	table  *catalog.Table
	keys   []*uniqueKeys
	loc    func(v *vec.Vector, i int) string
	skip   map[int64]map[int64]bool  // data file id → positions the statement deletes
	skipIn map[string]map[int64]bool // inlined table → row ids the statement deletes
}

// newKeyCheck prepares a check of t's constraints over rows laid out as
// t's columns (more columns after them are ignored); nil when t has none.
func (s *Session) newKeyCheck(meta *catalog.Metadata, t *catalog.Table, cols []exec.ScanCol) *keyCheck {
	cons := meta.ConstraintsOf(t.ID)
	if len(cons) == 0 {
		return nil
	}
	kc := &keyCheck{table: t, loc: func(v *vec.Vector, i int) string { return string(v.AppendText(nil, i, s.Loc)) }}
	for _, con := range cons {
		u := &uniqueKeys{con: con, seen: map[string]int32{}}
		ok := true
		for _, id := range con.Columns {
			found := -1
			for i, c := range t.Columns {
				if c.ID == id {
					found = i
				}
			}
			if found < 0 {
				ok = false
				break
			}
			u.pos = append(u.pos, found)
			u.names = append(u.names, t.Columns[found].Name)
			u.vals = append(u.vals, vec.New(cols[found].T, 0))
		}
		if ok {
			kc.keys = append(kc.keys, u)
		}
	}
	return kc
}

// touches reports whether a constraint includes one of the columns at the
// positions set (an UPDATE that assigns none of them keeps every key).
func (kc *keyCheck) touches(set map[int]bool) bool {
	for _, u := range kc.keys {
		for _, p := range u.pos {
			if set[p] {
				return true
			}
		}
	}
	return false
}

// encode appends row r's key over the vectors vs; ok false when a key
// column is NULL.
func (u *uniqueKeys) encode(dst []byte, vs []*vec.Vector, r int) ([]byte, bool) {
	for _, p := range u.pos {
		if vs[p].IsNull(r) {
			return dst, false
		}
		dst = exec.AppendKey(dst, vs[p], r)
	}
	return dst, true
}

func (kc *keyCheck) detail(u *uniqueKeys, vs []*vec.Vector, r int, verb string) string {
	vals := make([]string, len(u.pos))
	for k, p := range u.pos {
		vals[k] = kc.loc(vs[p], r)
	}
	return "Key (" + strings.Join(u.names, ", ") + ")=(" + strings.Join(vals, ", ") + ") " + verb + "."
}

func duplicateKey(name, detail string) error {
	e := pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", name)
	e.Detail = detail
	return e
}

// add takes a batch of new rows: a key seen before is a 23505.
func (kc *keyCheck) add(b *vec.Batch) error {
	if kc == nil || b == nil || b.N == 0 {
		return nil
	}
	kc.mu.Lock()
	defer kc.mu.Unlock()
	for _, u := range kc.keys {
		for r := 0; r < b.N; r++ {
			var ok bool
			u.buf, ok = u.encode(u.buf[:0], b.Vecs, r)
			if !ok {
				continue
			}
			if _, dup := u.seen[string(u.buf)]; dup {
				return duplicateKey(u.con.Name, kc.detail(u, b.Vecs, r, "already exists"))
			}
			u.seen[string(u.buf)] = int32(u.vals[0].Len())
			for k, p := range u.pos {
				u.vals[k].AppendFrom(b.Vecs[p], r)
			}
		}
	}
	return nil
}

// tap shows every batch of op to the check on its way through.
func (kc *keyCheck) tap(op exec.Operator) exec.Operator {
	return &errTap{Operator: op, fn: func(_ context.Context, b *vec.Batch) error { return kc.add(b) }}
}

// rowCheck adds the key check to a writer's NOT NULL check.
func (kc *keyCheck) rowCheck(t *catalog.Table) func(b *vec.Batch) error {
	nn := notNullCheck(t)
	if kc == nil {
		return nn
	}
	return func(b *vec.Batch) error {
		if err := nn(b); err != nil {
			return err
		}
		return kc.add(b)
	}
}

func (kc *keyCheck) empty() bool {
	for _, u := range kc.keys {
		if len(u.seen) > 0 {
			return false
		}
	}
	return true
}

// mayHold reports whether a data file's statistics allow it to hold one of
// the new keys.
func (u *uniqueKeys) mayHold(f catalog.DataFile, cols []exec.ScanCol) bool {
	n := u.vals[0].Len()
	if n == 0 {
		return false
	}
	if u.sorted == nil {
		u.sorted = make([]int32, n)
		for i := range u.sorted {
			u.sorted[i] = int32(i)
		}
		v := u.vals[0]
		sort.Slice(u.sorted, func(i, j int) bool { return exec.CompareRows(v, int(u.sorted[i]), v, int(u.sorted[j])) < 0 })
	}
	for k, p := range u.pos {
		st, ok := f.Stats.Get(int64(cols[p].FieldID))
		if !ok {
			continue
		}
		if st.ValueCount != nil && *st.ValueCount == 0 {
			return false // only NULLs
		}
		t := cols[p].T
		if t.ID == types.TimeTZ {
			continue
		}
		lo, hi := pruning.StatValue(t, st.Min), pruning.StatValue(t, st.Max)
		if lo == nil || hi == nil {
			continue
		}
		v := u.vals[k]
		if k == 0 {
			// the first new key >= lo must be <= hi
			i := sort.Search(n, func(i int) bool { return exec.CompareRows(v, int(u.sorted[i]), lo, 0) >= 0 })
			if i == n || exec.CompareRows(v, int(u.sorted[i]), hi, 0) > 0 {
				return false
			}
			continue
		}
		in := false
		for i := 0; i < n && !in; i++ {
			in = exec.CompareRows(v, i, lo, 0) >= 0 && exec.CompareRows(v, i, hi, 0) <= 0
		}
		if !in {
			return false
		}
	}
	return true
}

// uniqueScanStats count what the last key check read (tests pin pruning).
type uniqueScanStats struct {
	FilesRead, FilesPruned int
}

// checkAgainstTable probes the table's rows at snap (with the open block's
// writes) for the new keys.
func (s *Session) checkAgainstTable(ctx context.Context, snap catalog.Snapshot, sch *catalog.Schema, t *catalog.Table, kc *keyCheck) error {
	if kc == nil || kc.empty() {
		return nil
	}
	return s.probeKeys(ctx, snap, sch, t, kc, func(u *uniqueKeys, b *vec.Batch, r int, _ int32, _ int64) error {
		return duplicateKey(u.con.Name, kc.detail(u, b.Vecs, r, "already exists"))
	})
}

// probeKeys reads the key columns of the table's rows at snap that can
// hold one of kc's keys (files pruned as described above) and calls hit
// for each row holding one: u the constraint, id the key's row in u.vals,
// fileID the data file's id (-1 for an inlined or staged row).
func (s *Session) probeKeys(ctx context.Context, snap catalog.Snapshot, sch *catalog.Schema, t *catalog.Table, kc *keyCheck, hit func(u *uniqueKeys, b *vec.Batch, r int, id int32, fileID int64) error) error {
	src, err := s.TableSource(ctx, snap, sch.Name, t.Name, t.Name, -1, false)
	if err != nil {
		return err
	}
	ref, scan := src.Ref, src.Ref.Scan
	defer scan.Close()
	if ref.Table.ID != t.ID {
		return pgerr.New(pgerr.SerializationFailure, "could not serialize access: table \"%s\" changed while writing", t.Name)
	}
	var kept []int // ref.files index per scanned committed file
	var files []exec.ScanFile
	for i, f := range ref.Files {
		hold := false
		for _, u := range kc.keys {
			if len(u.seen) > 0 && u.mayHold(f, scan.Cols) {
				hold = true
				break
			}
		}
		if hold {
			kept = append(kept, i)
			files = append(files, ref.ScanFiles[i])
		}
	}
	s.uniqueStats = uniqueScanStats{FilesRead: len(kept), FilesPruned: len(ref.Files) - len(kept)}
	scan.Files = append(files, ref.PendingScan...)
	scan.WithPos = true
	for i := range scan.Needed {
		scan.Needed[i] = false
	}
	for _, u := range kc.keys {
		for _, p := range u.pos {
			scan.Needed[p] = true
		}
	}
	ncols := len(scan.Cols)
	var buf []byte
	return exec.Drain(ctx, scan, func(b *vec.Batch) error {
		fv, pv, rv := b.Vecs[ncols], b.Vecs[ncols+1], b.Vecs[ncols+2]
		for r := 0; r < b.N; r++ {
			for _, u := range kc.keys {
				var ok bool
				buf, ok = u.encode(buf[:0], b.Vecs, r)
				if !ok {
					continue
				}
				id, found := u.seen[string(buf)]
				if !found {
					continue
				}
				fileID := int64(-1)
				if f := int(fv.I64[r]); f >= 0 && f < len(kept) {
					fileID = ref.Files[kept[f]].ID
					if kc.skip[fileID][pv.I64[r]] {
						continue
					}
				} else if f < 0 {
					if kc.skipIn[ref.Inlined[-1-f]][rv.I64[r]] {
						continue
					}
				}
				if err := hit(u, b, r, id, fileID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// runKeyChecks runs the statement's key checks against the table as the
// commit about to be staged sees it, and tells the commit when they ran.
func (s *Session) runKeyChecks(ctx context.Context, c *snapshot.Commit, meta *catalog.Metadata) error {
	checks := s.keyChecks
	s.keyChecks = nil
	for _, kc := range checks {
		cur, ok := meta.TableByID(kc.table.ID)
		if !ok {
			return pgerr.New(pgerr.SerializationFailure, "could not serialize access: table \"%s\" changed while writing", kc.table.Name)
		}
		sch, _ := meta.SchemaByID(cur.SchemaID)
		if err := s.checkAgainstTable(ctx, meta.Snapshot, sch, cur, kc); err != nil {
			return err
		}
		c.CheckedKeys(cur.ID, meta.Snapshot.ID)
	}
	return nil
}

// checkExistingUnique checks that the rows of t at snap satisfy a
// constraint being added: no NULL in a primary key, no key twice.
func (s *Session) checkExistingUnique(ctx context.Context, snap catalog.Snapshot, sch *catalog.Schema, t *catalog.Table, sp conSpec) error {
	src, err := s.TableSource(ctx, snap, sch.Name, t.Name, t.Name, -1, false)
	if err != nil {
		return err
	}
	scan := src.Ref.Scan
	defer scan.Close()
	for _, p := range sp.cols {
		scan.Needed[p] = true
	}
	u := &uniqueKeys{pos: sp.cols, seen: map[string]int32{}}
	var buf []byte
	return exec.Drain(ctx, scan, func(b *vec.Batch) error {
		for r := 0; r < b.N; r++ {
			var ok bool
			buf, ok = u.encode(buf[:0], b.Vecs, r)
			if !ok {
				if sp.typ == "p" {
					for _, p := range sp.cols {
						if b.Vecs[p].IsNull(r) {
							return pgerr.New(pgerr.NotNullViolation, "column \"%s\" of relation \"%s\" contains null values", t.Columns[p].Name, t.Name)
						}
					}
				}
				continue
			}
			if _, dup := u.seen[string(buf)]; dup {
				vals := make([]string, len(sp.cols))
				for k, p := range sp.cols {
					vals[k] = string(b.Vecs[p].AppendText(nil, r, s.Loc))
				}
				e := pgerr.New(pgerr.UniqueViolation, "could not create unique index \"%s\"", sp.name)
				e.Detail = "Key (" + strings.Join(sp.colName, ", ") + ")=(" + strings.Join(vals, ", ") + ") is duplicated."
				return e
			}
			u.seen[string(buf)] = 0
		}
		return nil
	})
}

// countRows counts the rows of t at snap.
func (s *Session) countRows(ctx context.Context, snap catalog.Snapshot, sch *catalog.Schema, t *catalog.Table) (int64, error) {
	src, err := s.TableSource(ctx, snap, sch.Name, t.Name, t.Name, -1, false)
	if err != nil {
		return 0, err
	}
	scan := src.Ref.Scan
	defer scan.Close()
	var n int64
	err = exec.Drain(ctx, scan, func(b *vec.Batch) error { n += int64(b.N); return nil })
	return n, err
}

// keyCheckFor is the key check of a write into t at the statement's write
// snapshot; nil when t has no constraints.
func (s *Session) keyCheckFor(ctx context.Context, t *catalog.Table, cols []exec.ScanCol) (*keyCheck, error) {
	head, err := s.writeHead(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := s.Metadata(ctx, head)
	if err != nil {
		return nil, err
	}
	return s.newKeyCheck(meta, t, cols), nil
}

// updateKeyCheck is the key check of an UPDATE that assigns a key column;
// nil for one that keeps every key.
func (s *Session) updateKeyCheck(ctx context.Context, ref *planner.TableRef, set []*pg.Node) (*keyCheck, error) {
	kc, err := s.keyCheckFor(ctx, ref.Table, ref.Scan.Cols)
	if err != nil || kc == nil {
		return nil, err
	}
	assigned := map[int]bool{}
	for _, tn := range set {
		name := tn.GetResTarget().Name
		for i, c := range ref.Scan.Cols {
			if c.Name == name {
				assigned[i] = true
			}
		}
	}
	if !kc.touches(assigned) {
		return nil, nil
	}
	return kc, nil
}

// skipRows makes the check ignore the rows the statement deletes: hits are
// positions by index in ref.files, inlined row ids by index in ref.inlined.
func (kc *keyCheck) skipRows(ref *planner.TableRef, hits map[int][]int64, inlined map[int][]int64) {
	kc.skip, kc.skipIn = map[int64]map[int64]bool{}, map[string]map[int64]bool{}
	for fi, ps := range hits {
		m := map[int64]bool{}
		for _, p := range ps {
			m[p] = true
		}
		kc.skip[ref.Files[fi].ID] = m
	}
	for k, ids := range inlined {
		m := map[int64]bool{}
		for _, id := range ids {
			m[id] = true
		}
		kc.skipIn[ref.Inlined[k]] = m
	}
}
