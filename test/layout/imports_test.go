// Package layout checks that the packages import each other only as the
// design's picture allows: cmd → wire → sql → exec → snapshot → catalog,
// exec → storage, types and pgerr at the bottom; inside exec/ aggregation
// and windows above the operators, hash tables and memory below them;
// inside sql/ the optimizer's pieces, pruning and catalog emulation below
// the session and planner, never above it.
package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/lakepg/lakepg/"

// allowed lists, for each package, the packages of this module it may
// import (a trailing "/" allows every package under that path). A package
// missing here fails the test: a new package is placed in the picture when
// it is made.
var allowed = map[string][]string{
	"pgerr":          {},
	"types":          {"pgerr"},
	"storage":        {"pgerr", "types"},
	"catalog":        {"pgerr", "types"},
	"snapshot":       {"catalog", "pgerr", "types", "storage"},
	"exec/vec":       {"pgerr", "types"},
	"exec/hll":       {},
	"exec/fn":        {"exec/vec", "pgerr", "types"},
	"exec/parquetio": {"exec/vec", "exec/hll", "pgerr", "types", "storage"},
	// below the operators: memory accounting and spill files, then the hash
	// tables that grouping and joining share
	"exec/memory":  {"exec/vec", "pgerr", "types"},
	"exec/hashtab": {"exec/memory", "exec/vec", "pgerr", "types"},
	// a hash join's spilling: partition files, the partition-by-partition
	// join and the join by chunks, handed keys and operators by exec
	"exec/joinspill": {"exec/memory", "exec/vec", "pgerr", "types"},
	// the executor tests' shared sources and checks: below exec, so that
	// exec's own tests can use them
	"exec/exectest": {"exec/memory", "exec/vec", "types"},
	"exec":          {"exec/vec", "exec/hll", "exec/fn", "exec/parquetio", "exec/memory", "exec/hashtab", "exec/joinspill", "pgerr", "types", "storage", "snapshot", "catalog"},
	// sorting, then aggregation and windows, sit on exec's operators,
	// never below them
	"exec/order":     {"exec", "exec/vec", "exec/memory", "pgerr", "types"},
	"exec/aggregate": {"exec", "exec/order", "exec/vec", "exec/hll", "exec/fn", "exec/memory", "exec/hashtab", "pgerr", "types", "storage"},
	// the optimizer's join enumeration knows no SQL and no operators
	"sql/joinorder":    {},
	"sql/partitioning": {"catalog", "exec/vec", "pgerr", "types"},
	"sql/pruning":      {"catalog", "exec", "exec/", "sql/partitioning", "pgerr", "types"},
	"sql/pgcatalog":    {"catalog", "exec", "exec/", "pgerr", "types"},
	// the planner's stages below it: parsing, lake column types, passes
	// over a built operator tree, row estimates (over those passes' walk),
	// and expression binding, which reaches the planner and the session
	// through interfaces it defines
	"sql/planner/parse":     {"sql/pgcatalog"},
	"sql/planner/laketypes": {"catalog", "exec", "exec/", "snapshot", "pgerr", "types"},
	"sql/planner/optree":    {"exec", "exec/", "types"},
	"sql/planner/estimate":  {"sql/planner/optree", "sql/joinorder", "sql/pruning", "exec", "exec/", "snapshot", "catalog", "types"},
	"sql/planner/bind":      {"sql/pgcatalog", "exec", "exec/", "catalog", "pgerr", "types"},
	// the run-time filters wired into a finished operator tree
	"sql/planner/runtimefilter": {"sql/planner/optree", "sql/planner/estimate", "exec", "exec/", "types"},
	// rewrites of expression trees decided by their shape alone
	"sql/planner/rewrite": {"sql/planner/bind"},
	// the query pipeline's plan: the typed logical plan (its leaf Planned
	// holds operators the planner built; expressions are exec's for now),
	// the optimizer's rules over it (join order by sql/joinorder's
	// enumeration), and physical planning into operators
	"sql/planner/logical":  {"exec", "exec/vec", "types"},
	"sql/planner/optimize": {"sql/planner/logical", "sql/joinorder", "exec", "exec/vec", "pgerr", "types"},
	"sql/planner/physical": {"sql/planner/logical", "exec", "exec/", "pgerr", "types"},
	// the query planner: queries (FROM, joins, subqueries, set operations,
	// WITH, views), rules, join order and EXPLAIN over the stages above; it
	// reaches the session through an interface it defines
	"sql/planner": {"sql/planner/", "sql/joinorder", "sql/pruning", "sql/partitioning", "sql/pgcatalog", "exec", "exec/", "snapshot", "catalog", "storage", "pgerr", "types"},
	// written data files as the catalog records them
	"sql/datafile": {"catalog", "exec", "exec/", "snapshot"},
	// the maintenance procedures CALL runs, below the session
	"sql/maintenance": {"sql/planner", "sql/partitioning", "sql/datafile", "exec", "exec/", "snapshot", "catalog", "storage", "pgerr", "types"},
	// partitioning and sort order of tables, below the session
	"sql/tablelayout": {"sql/planner", "sql/partitioning", "exec", "exec/", "snapshot", "catalog", "pgerr", "types"},
	// sequences, serial and identity columns, below the session
	"sql/sequences": {"sql/planner", "sql/pgcatalog", "exec", "exec/", "snapshot", "catalog", "pgerr", "types"},
	// COPY's options and row parsing, below the session
	"sql/copyio": {"sql/planner", "exec", "exec/", "pgerr", "types"},
	// roles, privileges and their checks, beside the planner, below the
	// session that embeds them
	"sql/privileges": {"sql/planner", "sql/pgcatalog", "exec", "exec/", "snapshot", "catalog", "pgerr", "types"},
	// the session and the commands with side effects, above the planner
	"sql":        {"sql/", "exec", "exec/", "snapshot", "catalog", "storage", "pgerr", "types"},
	"wire":       {"sql", "sql/", "exec", "exec/", "pgerr", "types"},
	"cli":        {"sql", "sql/", "exec", "exec/", "snapshot", "catalog", "storage", "pgerr", "types"},
	"cmd/lakepg": {"cli", "wire", "sql", "sql/", "exec", "exec/", "snapshot", "catalog", "storage", "pgerr", "types"},
	// what tests share, beside the package they test
	"catalog/catalogtest": {"catalog", "pgerr", "types"},
	"storage/s3test":      {"storage"},
	"cli/e2e":             {},
}

// TestImportsPointDown fails on an import the picture does not allow (an
// upward one, or one skipping into wire or cmd) and on a package it does
// not place.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "test" || rel == "bench" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, module) {
				imports[pkg][strings.TrimPrefix(p, module)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("found only %d packages under %s", len(imports), root)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		rules, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s is not placed in the layering (add it to allowed in %s)", pkg, "test/layout/imports_test.go")
			continue
		}
		for im := range imports[pkg] {
			if !permitted(im, rules) {
				t.Errorf("%s imports %s, which the layering does not allow", pkg, im)
			}
		}
	}
}

func permitted(im string, rules []string) bool {
	for _, r := range rules {
		if im == r || strings.HasSuffix(r, "/") && strings.HasPrefix(im, r) {
			return true
		}
	}
	return false
}

// TestPermitted: the rule matching itself, so that the test above cannot
// pass by allowing everything.
func TestPermitted(t *testing.T) {
	if !permitted("exec/vec", []string{"exec/"}) || permitted("exec", []string{"exec/"}) || permitted("sql", []string{"sql/"}) ||
		permitted("wire", allowed["sql"]) || permitted("sql", allowed["exec"]) || permitted("exec", allowed["sql/joinorder"]) ||
		permitted("sql/planner", allowed["sql/planner/bind"]) || permitted("sql/planner/bind", allowed["sql/planner/estimate"]) ||
		permitted("exec/aggregate", allowed["exec"]) || permitted("exec/order", allowed["exec"]) || permitted("exec/aggregate", allowed["exec/order"]) || permitted("exec", allowed["exec/hashtab"]) || permitted("exec/hashtab", allowed["exec/memory"]) ||
		permitted("exec", allowed["exec/exectest"]) ||
		permitted("sql/planner", allowed["sql/planner/logical"]) || permitted("sql/planner/optimize", allowed["sql/planner/logical"]) ||
		permitted("sql/planner/physical", allowed["sql/planner/optimize"]) || permitted("sql/planner", allowed["sql/planner/optimize"]) ||
		permitted("exec/aggregate", allowed["sql/planner/optimize"]) || permitted("sql/planner/bind", allowed["sql/planner/optimize"]) ||
		permitted("sql/planner/optimize", allowed["sql/planner/physical"]) || permitted("sql/planner", allowed["sql/planner/physical"]) {
		t.Fatal("permitted matches wrongly")
	}
	if _, err := os.Stat("../../go.mod"); err != nil {
		t.Fatal("the test must run from test/layout:", err)
	}
}
