package planner

import (
	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/sql/planner/bind"
	"github.com/lakepg/lakepg/types"
)

// expandGroupBy flattens GROUP BY into distinct group expressions and,
// when GROUPING SETS / ROLLUP / CUBE appear, the list of grouping sets (as
// indexes into those expressions); sets is nil for a plain GROUP BY.
func expandGroupBy(clause []*pg.Node, resolve func(*pg.Node) (*pg.Node, error)) ([]*pg.Node, [][]int, error) {
	var nodes []*pg.Node
	var keys []string
	index := func(n *pg.Node) (int, error) {
		r, err := resolve(n)
		if err != nil {
			return 0, err
		}
		k := DeparseExpr(r)
		for i, existing := range keys {
			if existing == k {
				return i, nil
			}
		}
		nodes, keys = append(nodes, r), append(keys, k)
		return len(nodes) - 1, nil
	}
	// each item yields a list of alternative sets; the clause is their product
	var itemSets func(n *pg.Node) ([][]int, bool, error)
	itemSets = func(n *pg.Node) ([][]int, bool, error) {
		gs := n.GetGroupingSet()
		if gs == nil {
			if row := n.GetRowExpr(); row != nil {
				var set []int
				for _, a := range row.Args {
					i, err := index(a)
					if err != nil {
						return nil, false, err
					}
					set = append(set, i)
				}
				return [][]int{set}, false, nil
			}
			i, err := index(n)
			if err != nil {
				return nil, false, err
			}
			return [][]int{{i}}, false, nil
		}
		// the members of ROLLUP/CUBE/SETS: each a list of columns
		var members [][]int
		for _, c := range gs.Content {
			sub, _, err := itemSets(c)
			if err != nil {
				return nil, false, err
			}
			if gs.Kind == pg.GroupingSetKind_GROUPING_SET_SETS {
				members = append(members, sub...)
				continue
			}
			var flat []int
			for _, s := range sub {
				flat = append(flat, s...)
			}
			members = append(members, flat)
		}
		switch gs.Kind {
		case pg.GroupingSetKind_GROUPING_SET_EMPTY:
			return [][]int{{}}, true, nil
		case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
			var flat []int
			for _, m := range members {
				flat = append(flat, m...)
			}
			return [][]int{flat}, false, nil
		case pg.GroupingSetKind_GROUPING_SET_ROLLUP:
			var out [][]int
			for k := len(members); k >= 0; k-- {
				var set []int
				for _, m := range members[:k] {
					set = append(set, m...)
				}
				out = append(out, set)
			}
			return out, true, nil
		case pg.GroupingSetKind_GROUPING_SET_CUBE:
			if len(members) > 12 {
				return nil, false, pgerr.New(pgerr.ProgramLimitExceeded, "CUBE is limited to 12 elements")
			}
			var out [][]int
			for mask := (1 << len(members)) - 1; mask >= 0; mask-- {
				var set []int
				for i, m := range members {
					if mask&(1<<(len(members)-1-i)) != 0 {
						set = append(set, m...)
					}
				}
				out = append(out, set)
			}
			return out, true, nil
		}
		return members, true, nil // GROUPING SETS
	}
	sets := [][]int{{}}
	anySets := false
	for _, item := range clause {
		alts, isSet, err := itemSets(item)
		if err != nil {
			return nil, nil, err
		}
		anySets = anySets || isSet
		var next [][]int
		for _, s := range sets {
			for _, a := range alts {
				next = append(next, append(append([]int{}, s...), a...))
			}
		}
		sets = next
	}
	if !anySets {
		return nodes, nil, nil
	}
	return nodes, sets, nil
}

// bindGrouping binds grouping(a, b, …) over the aggregate's grouping id.
func (pb *postBinder) bindGrouping(args []*pg.Node, loc int32) (exec.Expr, error) {
	coll := pb.coll
	var cols []int
	for _, a := range args {
		key := DeparseExpr(a)
		found := -1
		for i, k := range coll.GroupKeys {
			if k == key {
				found = i
			}
		}
		if found < 0 {
			return nil, ErrAt(pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level"), loc)
		}
		cols = append(cols, found)
	}
	ng := len(coll.Groups)
	fnc := func(out *vec.Vector, args []*vec.Vector, i int) error {
		gid := args[0].I64[i]
		var r int64
		for k, c := range cols {
			if gid&(1<<(ng-1-c)) != 0 {
				r |= 1 << (len(cols) - 1 - k)
			}
		}
		out.AppendInt(r)
		return nil
	}
	if coll.Sets == nil {
		return exec.NewConst(bind.IntVec(0)), nil
	}
	// the id column sits after the aggregates, whose number is known only
	// when binding ends: refer to it through a placeholder remapped then
	return &exec.Func{Name: "grouping", Args: []exec.Expr{&exec.ColRef{Idx: gidRef, T: types.Int32T}}, T: types.Int32T, Fn: fnc}, nil
}

// gidRef marks a reference to the grouping id column.
const gidRef = bind.WinRefBase - 1
