package testserver

import (
	"context"

	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Rewritings of a query that must not change its plan's cost: every FROM
// list and every WHERE conjunction of every SELECT in it (subqueries and
// WITH queries included) reordered, and the two sides of every inner JOIN
// swapped. Variant 0 reverses, 1 rotates by one, 2 and above shuffle with
// the variant as the seed. A FROM list with a LATERAL item keeps its order.
func PermuteQuery(sql string, variant int) (string, error) {
	tree, err := pg.Parse(sql)
	if err != nil {
		return "", err
	}
	rng := rand.New(rand.NewSource(int64(variant)))
	reorder := func(n int, swap func(i, j int)) {
		switch {
		case n < 2:
		case variant == 0:
			for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
				swap(i, j)
			}
		case variant == 1:
			for i := 0; i < n-1; i++ {
				swap(i, i+1)
			}
		default:
			rng.Shuffle(n, swap)
		}
	}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg.SelectStmt:
			if !hasLateral(x.FromClause) {
				reorder(len(x.FromClause), func(i, j int) { x.FromClause[i], x.FromClause[j] = x.FromClause[j], x.FromClause[i] })
			}
			if be := x.WhereClause.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_AND_EXPR {
				reorder(len(be.Args), func(i, j int) { be.Args[i], be.Args[j] = be.Args[j], be.Args[i] })
			}
		case *pg.JoinExpr:
			if x.Jointype == pg.JoinType_JOIN_INNER && len(x.UsingClause) == 0 && !x.IsNatural && !hasLateral([]*pg.Node{x.Rarg}) {
				x.Larg, x.Rarg = x.Rarg, x.Larg
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					visit(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return true
		})
	}
	visit(tree.ProtoReflect())
	return pg.Deparse(tree)
}

func hasLateral(from []*pg.Node) bool {
	for _, f := range from {
		if rs := f.GetRangeSubselect(); rs != nil && rs.Lateral {
			return true
		}
		if rf := f.GetRangeFunction(); rf != nil && rf.Lateral {
			return true
		}
	}
	return false
}

var joinCost = regexp.MustCompile(`^Join order: estimated cost ([0-9]+) over ([0-9]+) FROM lists`)

// JoinCost is the estimated cost of a query's join orders by EXPLAIN
// (VERBOSE), and the number of FROM lists it joined (0: none).
func JoinCost(ctx context.Context, conn *pgx.Conn, sql string) (cost float64, lists int, err error) {
	rows, err := conn.Query(ctx, "EXPLAIN (VERBOSE) "+sql)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return 0, 0, err
		}
		if m := joinCost.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			cost, _ = strconv.ParseFloat(m[1], 64)
			lists, _ = strconv.Atoi(m[2])
		}
	}
	return cost, lists, rows.Err()
}

// CheckPermutedPlans plans every query as written and in variants
// rewritings (PermuteQuery) and reports, as test errors, a rewriting whose
// join cost differs from the written query's. It returns how many queries
// and rewritings it compared.
func CheckPermutedPlans(t *testing.T, conn *pgx.Conn, names, queries []string, variants int) (compared int) {
	t.Helper()
	ctx := context.Background()
	for i, q := range queries {
		want, lists, err := JoinCost(ctx, conn, q)
		if err != nil {
			t.Errorf("%s: EXPLAIN (VERBOSE): %v", names[i], err)
			continue
		}
		for v := 0; v < variants; v++ {
			pq, err := PermuteQuery(q, v)
			if err != nil {
				t.Errorf("%s: rewriting: %v", names[i], err)
				break
			}
			got, glists, err := JoinCost(ctx, conn, pq)
			switch {
			case err != nil:
				t.Errorf("%s rewritten (variant %d): %v\n%s", names[i], v, err, pq)
			case glists != lists || !sameCost(got, want):
				t.Errorf("%s rewritten (variant %d): join cost %.0f over %d FROM lists, written as in the file %.0f over %d\n%s",
					names[i], v, got, glists, want, lists, pq)
			}
			compared++
		}
	}
	return compared
}

// sameCost allows for the order floating-point products were taken in.
func sameCost(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-6*max(a, b, 1)+1
}
