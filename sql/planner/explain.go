package planner

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/aggregate"
	"github.com/lakepg/lakepg/exec/order"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/joinorder"
	"github.com/lakepg/lakepg/sql/planner/estimate"
	"github.com/lakepg/lakepg/sql/planner/optree"
	"github.com/lakepg/lakepg/types"
)

// Explain prints the operator tree with, for each table scan, the files and
// row groups it reads and those pruned by statistics. EXPLAIN ANALYZE runs
// the query and adds actual rows and time per operator. The plan comes as
// rows of one text column, "QUERY PLAN". EXPLAIN (LOGICAL), lakepg's own,
// prints instead the logical plans planning built, after the rules
// (logical_plan.go), without running anything.
func (s *Session) Explain(ctx context.Context, st *pg.ExplainStmt, p *Params) (exec.Operator, error) {
	analyze, verbose, logicalOnly := false, false, false
	for _, o := range st.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == "logical" {
			logicalOnly = defElemTrue(d)
		}
		if d := o.GetDefElem(); d != nil && d.Defname == "verbose" {
			verbose = defElemTrue(d)
		}
		if d := o.GetDefElem(); d != nil && d.Defname == "analyze" {
			analyze = defElemTrue(d)
		}
	}
	sel := st.Query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN supports SELECT only")
	}
	if s.scanRefs == nil {
		// kept past planning: the row estimates read the scanned tables' statistics
		s.scanRefs = map[*exec.TableScan]*TableRef{}
		defer func() { s.scanRefs = nil }()
	}
	// uncorrelated subqueries run while planning: ANALYZE reports that
	// time apart, as PostgreSQL reports its planning time
	var logicalPlans []string
	if logicalOnly {
		s.logicalPlans = &logicalPlans
		defer func() { s.logicalPlans = nil }()
	}
	planStart := time.Now()
	q, err := s.PlanQuery(ctx, sel, p, false)
	if err != nil {
		return nil, err
	}
	planning := time.Since(planStart)
	defer q.Op.Close()
	if logicalOnly {
		return explainLogical(s, logicalPlans, q, verbose), nil
	}
	root := q.Op
	adm, _ := root.(*AdmittedOp)
	if adm != nil {
		root = adm.Operator // the plan printed is the query's own
	}
	var total time.Duration
	if analyze {
		root = instrument(root)
		var run exec.Operator = root
		if adm != nil {
			run = &AdmittedOp{Operator: root, Adm: adm.Adm}
		}
		start := time.Now()
		if err := exec.Drain(ctx, run, func(*vec.Batch) error { return nil }); err != nil {
			return nil, err
		}
		total = time.Since(start)
	}
	var lines []string
	s.chains, s.winDealtAbove = q.chains, 0
	defer func() { s.chains = nil }()
	est := newEstimator(ctx, s)
	est.Analyzed, est.Verbose = analyze, verbose
	if err := s.explainOp(ctx, est, root, 0, &lines); err != nil {
		return nil, err
	}
	if verbose {
		lines = append(lines, planSummary(q.joins, q.rulesFired)...)
	}
	if analyze {
		lines = append(lines, fmt.Sprintf("Planning Time: %.3f ms", float64(planning.Microseconds())/1000),
			fmt.Sprintf("Execution Time: %.3f ms", float64(total.Microseconds())/1000))
	}
	var rows [][]exec.Expr
	for _, l := range lines {
		rows = append(rows, []exec.Expr{TextConst(l)})
	}
	return &exec.Values{Env: s.NewEnv(), Rows: rows, T: []types.T{types.TextT}}, nil
}

// explainLogical is EXPLAIN (LOGICAL)'s output: each logical plan in the
// order planning finished them (a set operation in a subquery before the
// query around it), and with VERBOSE the rules that changed them.
func explainLogical(s *Session, plans []string, q *query, verbose bool) exec.Operator {
	var lines []string
	for i, p := range plans {
		if len(plans) > 1 {
			lines = append(lines, fmt.Sprintf("Logical plan %d of %d:", i+1, len(plans)))
		}
		lines = append(lines, strings.Split(p, "\n")...)
	}
	if len(plans) == 0 {
		lines = append(lines, "No logical plan: no part of this query is planned as one yet")
	}
	if verbose {
		lines = append(lines, planSummary(nil, q.rulesFired)...)
	}
	rows := make([][]exec.Expr, len(lines))
	for i, l := range lines {
		rows[i] = []exec.Expr{TextConst(l)}
	}
	return &exec.Values{Env: s.NewEnv(), Rows: rows, T: []types.T{types.TextT}}
}

// defElemTrue is an EXPLAIN option's value: on unless written false/off.
func defElemTrue(d *pg.DefElem) bool {
	if a := d.Arg; a != nil {
		if b := a.GetBoolean(); b != nil {
			return b.Boolval
		}
		if str := a.GetString_(); str != nil {
			return str.Sval != "false" && str.Sval != "off"
		}
	}
	return true
}

// instrument wraps every operator of a tree in exec.Timed.
func instrument(op exec.Operator) exec.Operator {
	return instrumentOnce(op, map[*exec.Operator]bool{})
}

// instrumentOnce is instrument that wraps a subtree several readers share
// (a materialized WITH query) once, not once per reader.
func instrumentOnce(op exec.Operator, done map[*exec.Operator]bool) exec.Operator {
	if _, ok := op.(*exec.Parallel); ok {
		return op // an aggregate above must still see the Parallel itself
	}
	for _, in := range optree.Inputs(op) {
		if done[in] {
			continue
		}
		done[in] = true
		*in = instrumentOnce(*in, done)
	}
	return &exec.Timed{Input: op}
}

func (s *Session) explainOp(ctx context.Context, est *estimate.Estimator, op exec.Operator, depth int, lines *[]string) error {
	var timed *exec.Timed
	if t, ok := op.(*exec.Timed); ok {
		timed, op = t, t.Input
	}
	pad := strings.Repeat("  ", depth)
	arrow := ""
	if depth > 0 {
		arrow = "->  "
		pad = strings.Repeat("      ", depth-1) + "  "
	}
	add := func(format string, args ...any) {
		line := pad + arrow + fmt.Sprintf(format, args...)
		if timed != nil {
			line += fmt.Sprintf(" (actual time=%.3f ms rows=%d)", float64(timed.Elapsed.Microseconds())/1000, timed.Rows)
		}
		*lines = append(*lines, line)
	}
	detail := func(format string, args ...any) {
		*lines = append(*lines, pad+strings.Repeat(" ", len(arrow))+"  "+fmt.Sprintf(format, args...))
	}
	children := func() error {
		for _, in := range optree.Inputs(op) {
			if err := s.explainOp(ctx, est, *in, depth+1, lines); err != nil {
				return err
			}
		}
		return nil
	}
	switch o := op.(type) {
	case *exec.ChunkScan:
		add("Temp Scan on %s", o.Label) // sql/temp_dml.go
	case *exec.TableScan:
		add("Lake Scan on %s (snapshot %d)", o.Label, o.Snapshot)
		var cols []string
		for i, c := range o.Cols {
			if o.Needed == nil || o.Needed[i] {
				cols = append(cols, c.Name)
			}
		}
		detail("Columns: %s", strings.Join(cols, ", "))
		if o.FilesPrunedByPartition > 0 {
			detail("Files: %d scanned, %d pruned (%d by partition values)", len(o.Files), o.FilesPruned, o.FilesPrunedByPartition)
		} else {
			detail("Files: %d scanned, %d pruned", len(o.Files), o.FilesPruned)
		}
		if o.FilesFromStats > 0 {
			detail("Min/max of %d files from catalog statistics", o.FilesFromStats)
		}
		rg, err := est.Scan(o)
		if err != nil {
			return err
		}
		detail("Row groups: %d scanned, %d pruned", rg.Scanned, rg.Pruned)
		if len(o.Dynamic) > 0 {
			var keys []string
			for _, d := range o.Dynamic {
				keys = append(keys, o.Cols[d.Col].Name)
			}
			detail("Dynamic filter: row groups outside the build keys of the join on %s are skipped at run time", strings.Join(keys, ", "))
		}
		if len(o.Keys) > 0 {
			var keys []string
			for _, k := range o.Keys {
				keys = append(keys, o.Cols[k.Col].Name)
			}
			detail("Key filter: rows whose %s the join's build side lacks are dropped before the other columns are decoded", strings.Join(keys, ", "))
		}
		if rg.Pages > 0 {
			detail("Pages: %d of the filtered columns' %d pruned by the page index", rg.PagesPruned, rg.Pages)
		}
		if n, exact := estimate.ScanRows(o); exact {
			detail("Rows: %d in the files read (catalog counts), %d estimated after pruning", n, rg.Rows)
		} else {
			detail("Rows: %d estimated after pruning", rg.Rows)
		}
		detail("Bytes to read: %d of the needed columns, %d in the files", rg.Needed, rg.Total)
		if est.Analyzed {
			detail("Actual: %d row groups read, %d pruned; %d pages decoded, %d skipped (%d rows ruled out by the page index); %d bytes read",
				o.RowGroupsScanned, o.RowGroupsPruned, o.PagesRead, o.PagesSkipped, o.RowsSkipped, o.BytesRead())
			if len(o.Keys) > 0 {
				detail("Actual: the key filter kept %d of %d rows", o.KeyRowsKept, o.KeyRowsIn)
			}
		}
		return nil
	case *exec.Project:
		switch {
		case o.Shared > 0:
			add("Project (%d columns, %d of them written several times above and computed once)", len(o.Exprs), o.Shared)
		case timed == nil:
			return s.explainOp(ctx, est, o.Input, depth, lines)
		default:
			add("Project (%d columns)", len(o.Exprs))
		}
	case *exec.Filter:
		add("Filter")
	case *aggregate.HashAgg:
		if o.Partial == nil {
			add("HashAggregate (%d group keys, %d aggregates)", o.NGroup, len(o.Aggs))
			if o.SizeHint > 0 {
				detail("Tables sized for %d groups (half the estimate)", o.SizeHint)
			}
			if hv := o.Having; hv != nil {
				detail("Filter above tested first, on float8 of %d aggregates: results made only for the groups it keeps", len(hv.Aggs))
				if est.Analyzed {
					detail("Actual: %d of %d groups kept", hv.Kept.Load(), hv.Tested.Load())
				}
			}
			break
		}
		add("Partial HashAggregate (%d group keys, %d aggregates)", o.NGroup, len(o.Aggs))
		if p := o.Partial; est.Analyzed && p.Workers.Load() > 0 {
			// (none ran the adaptive path: a partial aggregation over a
			// Parallel, or of aggregates whose one-row result is not the
			// value, groups every row)
			detail("Actual: %d rows grouped into %d groups, then %d rows passed through ungrouped (%d of %d workers)",
				p.Grouped.Load(), p.Groups.Load(), p.Passed.Load(), p.Passing.Load(), p.Workers.Load())
		}
	case *aggregate.Window:
		add("Window")
		switch below := o.ParallelStack(); {
		case s.winDealtAbove > 0:
			s.winDealtAbove--
			detail("Parallel: share by share with the window above")
		case below == 0:
			detail("Parallel: partitions dealt to %d workers by a hash of the partition keys (from %d rows)", o.Workers, aggregate.ParWindowMin())
		case below > 0:
			s.winDealtAbove = below
			detail("Parallel: partitions dealt to %d workers by a hash of the partition keys it shares with the %d window(s) below (from %d rows)", o.Workers, below, aggregate.ParWindowMin())
		}
	case *order.Sort:
		add("Sort (%d keys)", len(o.Keys))
	case *exec.Limit:
		add("Limit")
	case *exec.LimitTies:
		add("Limit (with ties)")
	case *exec.HashJoin:
		add("Hash Join (%s, %d keys)", joinTypeName(o.Type), len(o.LeftKeys))
	case *exec.NestedLoopJoin:
		add("Nested Loop Join (%s)", joinTypeName(o.Type))
	case *exec.Values:
		add("Values (%d rows)", len(o.Rows))
	case *exec.Parallel:
		workers := o.Workers
		if workers == 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		add("Parallel (%d workers, %s per morsel)", workers, morselOf(o))
		if chain := s.chains[o]; chain != nil {
			return s.explainOp(ctx, est, chain, depth+1, lines)
		}
		return s.explainOp(ctx, est, o.Scan, depth+1, lines)
	case *exec.Append:
		add("Append")
	case *exec.SetOp:
		add("SetOp")
	case *exec.DistinctOn:
		add("Unique (DISTINCT ON)")
	case *exec.RecursiveUnion:
		add("Recursive Union")
	case *applyOp:
		add("Subquery per outer row (%s, results cached by key)", o.mode)
		return s.explainOp(ctx, est, o.input, depth+1, lines)
	default:
		// Window and other exec/aggregate operators print as exec's do
		add("%s", strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", op), "*exec."), "*aggregate."))
	}
	// every line below a scan gets its estimate (package estimate), under the
	// actual rows of EXPLAIN ANALYZE
	r := est.Of(op)
	detail("Rows: %.0f estimated (%s)", math.Round(r.Rows), r.How)
	if est.Verbose {
		detail("Cost: %.0f estimated (rows into hash tables ×%d, probing and out of joins, with the inputs')", est.Cost(op), joinorder.BuildWeight)
	}
	return children()
}

func joinTypeName(t exec.JoinType) string {
	switch t {
	case exec.JoinInner:
		return "inner"
	case exec.JoinLeft:
		return "left"
	case exec.JoinRight:
		return "right"
	case exec.JoinFull:
		return "full"
	case exec.JoinSemi:
		return "semi"
	case exec.JoinAnti:
		return "anti"
	case exec.JoinAntiNullAware:
		return "null-aware anti"
	case exec.JoinRightSemi:
		return "right semi"
	case exec.JoinRightAnti:
		return "right anti"
	}
	return "?"
}

// rowGroups counts the row groups, rows and bytes a scan would read, from
// the files' footers.
func (s *Session) rowGroups(ctx context.Context, o *exec.TableScan) (estimate.ScanStats, error) {
	var st estimate.ScanStats
	var proj []parquetio.Projection
	for i, c := range o.Cols {
		if o.Needed == nil || o.Needed[i] {
			proj = append(proj, parquetio.Projection{FieldID: c.FieldID, Name: c.Name, Pos: i, Type: c.T, Default: c.Default})
		}
	}
	for _, f := range o.Files {
		file, err := s.Store.Open(ctx, f.Path)
		if err != nil {
			return st, exec.ReadError(err, f.Path)
		}
		key, err := parquetio.ParseKeyText(f.Key)
		if err != nil {
			file.Close()
			return st, err
		}
		pf, err := parquetio.OpenKey(file, file.Size(), key)
		if err != nil {
			file.Close()
			return st, exec.ReadError(err, f.Path)
		}
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			_, total := pf.RowGroupBytes(rg, proj)
			st.Total += total
			if o.Keep == nil || o.Keep(rg, pf.RowGroupRanges(rg, proj)) {
				pe, err := pf.PagePruning(rg, proj, o.Keep)
				if err != nil {
					file.Close()
					return st, exec.ReadError(err, f.Path)
				}
				st.Pages += pe.Pages
				st.PagesPruned += pe.Pruned
				if pe.Rows == 0 {
					st.Pruned++ // every page ruled out: the scan skips it too
					continue
				}
				st.Scanned++
				st.Rows += pe.Rows
				st.Needed += pe.Bytes
			} else {
				st.Pruned++
			}
		}
		file.Close()
	}
	return st, nil
}

// morselOf says what the workers of p take at a time: a row group of a
// scan, a batch of a WITH query's rows or of an aggregation's groups, or
// for a union what its branches' workers take, when they agree.
func morselOf(p *exec.Parallel) string {
	switch {
	case p.Rows != nil:
		return fmt.Sprintf("%d rows", vec.BatchSize)
	case p.Split != nil:
		return fmt.Sprintf("%d groups", vec.BatchSize)
	case p.Scan == nil && len(p.Then) > 0:
		m := morselOf(p.Then[0])
		for _, t := range p.Then[1:] {
			if morselOf(t) != m {
				return "row groups or batches of rows"
			}
		}
		return m
	}
	return "one row group"
}
