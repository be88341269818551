package planner

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/lakepg/lakepg/exec"
	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// readParquet plans read_parquet('path' | ARRAY['a', 'b'] | 'glob*'): external
// Parquet files read by position with the first file's schema.
func (s *Session) readParquet(ctx context.Context, b *Binder, fc *pg.FuncCall, alias string, describeOnly bool) (*Source, error) {
	if len(fc.Args) != 1 {
		return nil, ErrAt(pgerr.New(pgerr.UndefinedFunction, "read_parquet takes one argument: a path, a glob or an array of paths"), fc.Location)
	}
	var patterns []string
	if arr := fc.Args[0].GetAArrayExpr(); arr != nil {
		for _, el := range arr.Elements {
			p, err := s.constText(b, el)
			if err != nil {
				return nil, err
			}
			patterns = append(patterns, p)
		}
	} else {
		p, err := s.constText(b, fc.Args[0])
		if err != nil {
			return nil, err
		}
		patterns = append(patterns, p)
	}
	var paths []string
	sizes := map[string]int64{} // known from listing a glob's prefix
	for _, p := range patterns {
		if strings.Contains(p, "://") {
			m, err := s.objectPaths(ctx, p, sizes)
			if err != nil {
				return nil, ErrAt(err, fc.Location)
			}
			paths = append(paths, m...)
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(p, "*?[") {
			m, err := filepath.Glob(abs)
			if err != nil {
				return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "bad glob pattern %q: %v", p, err), fc.Location)
			}
			sort.Strings(m)
			if len(m) == 0 {
				return nil, ErrAt(pgerr.New(pgerr.UndefinedFile, "no files match \"%s\"", p), fc.Location)
			}
			paths = append(paths, m...)
			continue
		}
		paths = append(paths, abs)
	}
	files := make([]exec.ScanFile, 0, len(paths))
	var cols []exec.ScanCol
	for i, p := range paths {
		size, ok := sizes[p]
		if !ok {
			var err error
			if size, err = s.Store.Stat(ctx, p); err != nil {
				return nil, ErrAt(fileError(p, err), fc.Location)
			}
		}
		files = append(files, exec.ScanFile{Path: p, Size: size})
		if i > 0 {
			continue
		}
		f, err := s.Store.Open(ctx, p)
		if err != nil {
			return nil, ErrAt(fileError(p, err), fc.Location)
		}
		pf, err := parquetio.Open(f, f.Size())
		if err != nil {
			f.Close()
			return nil, ErrAt(pgerr.New(pgerr.InvalidParameterValue, "file \"%s\" is not a readable Parquet file: %v", p, err), fc.Location)
		}
		for _, fl := range pf.Fields() {
			if !fl.TypeOK {
				f.Close()
				return nil, ErrAt(pgerr.New(pgerr.FeatureNotSupported, "column \"%s\" of \"%s\" has a type lakepg cannot read yet", fl.Name, p), fc.Location)
			}
			c := exec.ScanCol{Name: fl.Name, T: fl.Type}
			if fl.HasFieldID {
				c.FieldID = fl.FieldID
			}
			cols = append(cols, c)
		}
		f.Close()
	}
	scan := &exec.TableScan{Store: s.Store, Label: "read_parquet", Cols: cols, Needed: make([]bool, len(cols))}
	if !describeOnly {
		scan.Files = files
	}
	sc := &Scope{}
	for i, c := range cols {
		sc.Cols = append(sc.Cols, ScopeCol{Table: alias, Name: c.Name, T: c.T, Used: &scan.Needed[i]})
	}
	return &Source{op: scan, Sc: sc, scans: []*exec.TableScan{scan}, rows: 1e6}, nil
}

func (s *Session) constText(b *Binder, n *pg.Node) (string, error) {
	e, err := b.Bind(n, &Scope{})
	if err != nil {
		return "", err
	}
	if e, err = b.Cast(e, types.TextT, false, NodeLoc(n)); err != nil {
		return "", err
	}
	k, ok := e.(*exec.Const)
	if !ok || k.IsNull() {
		return "", ErrAt(pgerr.New(pgerr.FeatureNotSupported, "argument must be a constant text value"), NodeLoc(n))
	}
	return k.V.S[0], nil
}
