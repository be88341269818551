package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/exec/vec"
)

func importFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, true)
	create := fs.Bool("create", false, "create the table (types inferred from the CSV files, or taken from the Parquet files)")
	skip := fs.Bool("skip-bad-rows", false, "report and skip CSV rows that do not parse instead of stopping the import")
	sample := fs.Int("sample-rows", 1000, "CSV rows read to infer column types with --create")
	delim := fs.String("delimiter", ",", "CSV field delimiter (one character; \\t for tab)")
	prog := fs.String("progress", "auto", "progress report: auto (a bar on a terminal, else lines), bar, lines or none")
	return func(ctx context.Context, args []string, info Info) int {
		if len(args) < 2 {
			fmt.Fprintln(info.Stderr, "usage: lakepg import [flags] TABLE FILE...")
			return ExitUsage
		}
		comma, err := parseDelimiter(*delim)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg import:", err)
			return ExitUsage
		}
		mode := *prog
		switch mode {
		case "auto":
			mode = "lines"
			if isTerminal(info.Stderr) {
				mode = "bar"
			}
		case "bar", "lines", "none":
		default:
			fmt.Fprintf(info.Stderr, "lakepg import: --progress %q: want auto, bar, lines or none\n", mode)
			return ExitUsage
		}
		imp := &importer{
			table: args[0], files: args[1:], create: *create, skipBad: *skip, sample: *sample,
			comma: comma, progress: mode, out: info.Stdout, errOut: info.Stderr,
			src: newImportSources(ctx, *lf.store),
		}
		if imp.kind, err = fileKinds(imp.src, imp.files); err != nil {
			fmt.Fprintln(info.Stderr, "lakepg import:", err)
			var mixed *kindError
			if errors.As(err, &mixed) {
				return ExitUsage
			}
			return ExitError // a file or object that cannot be read
		}
		conn, err := lf.open(ctx)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg import:", err)
			return ExitError
		}
		defer conn.Close()
		imp.conn = conn
		if err := imp.run(ctx); err != nil {
			var bad *badRowError
			switch {
			case errors.As(err, &bad):
				fmt.Fprintf(info.Stderr, "lakepg import: %v; nothing was imported\n", bad)
			case isSQLError(err):
				fmt.Fprintf(info.Stderr, "lakepg import: %s\n", errorLine(err))
			default:
				fmt.Fprintf(info.Stderr, "lakepg import: %v\n", err)
			}
			return ExitError
		}
		return ExitOK
	}
}

func parseDelimiter(s string) (rune, error) {
	if s == `\t` || s == "tab" {
		return '\t', nil
	}
	r := []rune(s)
	if len(r) != 1 || r[0] == '"' || r[0] == '\n' || r[0] == '\r' {
		return 0, fmt.Errorf("--delimiter %q: want one character other than a quote or a line break", s)
	}
	return r[0], nil
}

// fileKinds tells CSV from Parquet files, by content (Parquet's magic) and
// then name; one import takes one kind.
func fileKinds(src importSources, files []string) (string, error) {
	kind := ""
	for _, p := range files {
		k, err := fileKind(src, p)
		if err != nil {
			return "", err
		}
		if kind != "" && k != kind {
			return "", &kindError{fmt.Sprintf("%s is %s but %s is %s: import CSV and Parquet files separately", files[0], kind, p, k)}
		}
		kind = k
	}
	return kind, nil
}

// kindError is a mix of file kinds, or a .parquet name on another kind of
// file: a usage error.
type kindError struct{ msg string }

func (e *kindError) Error() string { return e.msg }

func fileKind(src importSources, path string) (string, error) {
	f, err := src.openAt(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var magic [4]byte
	if f.Size() >= 4 {
		if _, err := f.ReadAt(magic[:], 0); err != nil && err != io.EOF {
			return "", err
		}
	}
	if string(magic[:]) == "PAR1" {
		return "Parquet", nil
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".parquet" || ext == ".pq" {
		return "", &kindError{fmt.Sprintf("%s: not a Parquet file (no PAR1 magic)", path)}
	}
	return "CSV", nil
}

// importer loads files into one table as one statement, so one snapshot:
// Parquet files through read_parquet, CSV files converted to a temporary
// Parquet file first (embedded) or streamed through COPY FROM STDIN
// (client).
type importer struct {
	conn     Conn
	src      importSources
	table    string
	files    []string
	kind     string
	create   bool
	skipBad  bool
	sample   int
	comma    rune
	progress string
	out      io.Writer
	errOut   io.Writer
}

func (imp *importer) run(ctx context.Context) error {
	start := time.Now()
	var total int64
	for _, p := range imp.files {
		n, err := imp.src.size(p)
		if err != nil {
			return err
		}
		total += n
	}
	var (
		rows, skipped int64
		err           error
	)
	if imp.kind == "Parquet" {
		rows, err = imp.parquet(ctx)
	} else {
		rows, skipped, err = imp.csv(ctx, total)
	}
	if err != nil {
		return err
	}
	took := time.Since(start)
	rate := float64(rows) / max(took.Seconds(), 1e-9)
	fmt.Fprintf(imp.out, "imported %d rows into %s from %d %s file(s) (%s) in %s, %.0f rows/s\n",
		rows, imp.table, len(imp.files), imp.kind, humanBytes(total), took.Round(time.Millisecond), rate)
	if skipped > 0 {
		fmt.Fprintf(imp.out, "skipped %d bad row(s)\n", skipped)
	}
	return nil
}

// tableName quotes a possibly schema-qualified name.
func tableName(s string) string {
	if schema, table, ok := strings.Cut(s, "."); ok {
		return qualified(schema, table)
	}
	return ident(s)
}

// tableColumns describes an existing table.
func tableColumns(ctx context.Context, c Conn, table string) ([]Column, error) {
	var cap capture
	if _, err := c.Run(ctx, "SELECT * FROM "+tableName(table)+" LIMIT 0", &cap); err != nil {
		return nil, err
	}
	return cap.cols, nil
}

type capture struct{ cols []Column }

func (c *capture) Columns(cols []Column) error { c.cols = cols; return nil }
func (c *capture) Row([][]byte) error          { return nil }

func (imp *importer) parquet(ctx context.Context) (int64, error) {
	lits := make([]string, len(imp.files))
	for i, p := range imp.files {
		name, err := sqlPath(p)
		if err != nil {
			return 0, err
		}
		lits[i] = literal(name)
	}
	from := "read_parquet(ARRAY[" + strings.Join(lits, ", ") + "])"
	var stmt string
	if imp.create {
		stmt = "CREATE TABLE " + tableName(imp.table) + " AS SELECT * FROM " + from
	} else {
		cols, err := tableColumns(ctx, imp.conn, imp.table)
		if err != nil {
			return 0, err
		}
		// match the file's columns to the table's by name when they all
		// exist there, else by position (read_parquet's own rule)
		stmt = "INSERT INTO " + tableName(imp.table)
		if names, ok := parquetNames(imp.src, imp.files[0], cols); ok {
			stmt += " (" + strings.Join(names, ", ") + ")"
		}
		stmt += " SELECT * FROM " + from
	}
	fmt.Fprintf(imp.errOut, "import: loading %d Parquet file(s) into %s\n", len(imp.files), imp.table)
	tag, err := imp.conn.Run(ctx, stmt, discard{})
	if err != nil {
		return 0, err
	}
	return tagCount(tag), nil
}

func parquetNames(src importSources, path string, cols []Column) ([]string, bool) {
	f, err := src.openAt(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	pf, err := parquetio.Open(f, f.Size())
	if err != nil {
		return nil, false
	}
	var names []string
	for _, fl := range pf.Fields() {
		found := false
		for _, c := range cols {
			if c.Name == fl.Name {
				found = true
			}
		}
		if !found {
			return nil, false
		}
		names = append(names, ident(fl.Name))
	}
	return names, len(names) > 0
}

// tagCount is the row count at the end of a command tag.
func tagCount(tag string) int64 {
	f := strings.Fields(tag)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
	return n
}

func (imp *importer) csv(ctx context.Context, total int64) (rows, skipped int64, err error) {
	header, err := readHeader(imp.src.open, imp.files[0], imp.comma)
	if err != nil {
		return 0, 0, err
	}
	cols := make([]importCol, len(header))
	if imp.create {
		in, err := sampleCSV(imp.src.open, imp.files, imp.comma, header, imp.sample)
		if err != nil {
			return 0, 0, err
		}
		for i, t := range in.types() {
			cols[i] = importCol{Name: header[i], Type: t}
		}
	} else {
		tcols, err := tableColumns(ctx, imp.conn, imp.table)
		if err != nil {
			return 0, 0, err
		}
		for i, name := range header {
			c, ok := matchColumn(tcols, name)
			if !ok {
				return 0, 0, fmt.Errorf("%s: column %q of the header is not a column of %s", imp.files[0], name, imp.table)
			}
			// the file's spelling stays: later files' headers are matched to it
			cols[i] = importCol{Name: name, Type: c.Type}
			header[i] = c.Name
		}
	}
	prog := newProgress(imp.errOut, imp.progress, total)
	defer prog.done()
	src := &csvSource{open: imp.src.open, files: imp.files, cols: cols, comma: imp.comma, skipBad: imp.skipBad, report: imp.errOut, prog: prog}
	if cp, ok := imp.conn.(copier); ok {
		err = imp.csvCopy(ctx, cp, src, header)
	} else {
		err = imp.csvParquet(ctx, src, header)
	}
	if err != nil {
		return 0, 0, err
	}
	prog.finish(src.rows, src.bytes)
	return src.rows, src.skipped, nil
}

func matchColumn(cols []Column, name string) (Column, bool) {
	for _, c := range cols {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range cols {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return Column{}, false
}

// csvParquet converts the CSV rows into a temporary Parquet file and loads
// it with one INSERT … SELECT (or CREATE TABLE … AS): the engine's own
// write path, one commit, and nothing committed when a row is bad.
func (imp *importer) csvParquet(ctx context.Context, src *csvSource, names []string) error {
	dir, err := os.MkdirTemp("", "lakepg-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "import.parquet")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	pcols := make([]parquetio.Column, len(src.cols))
	for i, c := range src.cols {
		pcols[i] = parquetio.Column{FieldID: int32(i + 1), Name: names[i], Type: c.Type}
	}
	w, err := parquetio.NewWriter(bw, pcols, parquetio.WriterOptions{})
	if err != nil {
		return err
	}
	if err := src.run(ctx, nil, func(b *vec.Batch) error { return w.Write(b) }); err != nil {
		return err
	}
	if _, err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = ident(n)
	}
	var stmt string
	if imp.create {
		stmt = "CREATE TABLE " + tableName(imp.table) + " AS SELECT * FROM read_parquet(" + literal(path) + ")"
	} else {
		stmt = "INSERT INTO " + tableName(imp.table) + " (" + strings.Join(quoted, ", ") + ") SELECT * FROM read_parquet(" + literal(path) + ")"
	}
	_, err = imp.conn.Run(ctx, stmt, discard{})
	return err
}

// csvCopy streams the checked rows to the server with COPY FROM STDIN. A
// bad row ends the COPY with CopyFail, so the server commits nothing. With
// --create the table is created first, inside BEGIN … COMMIT.
func (imp *importer) csvCopy(ctx context.Context, cp copier, src *csvSource, names []string) (err error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = ident(n)
	}
	if imp.create {
		defs := make([]string, len(src.cols))
		for i, c := range src.cols {
			defs[i] = ident(names[i]) + " " + c.Type.String()
		}
		if _, err := imp.conn.Run(ctx, "BEGIN", discard{}); err != nil {
			return err
		}
		if _, err := imp.conn.Run(ctx, "CREATE TABLE "+tableName(imp.table)+" ("+strings.Join(defs, ", ")+")", discard{}); err != nil {
			imp.conn.Run(ctx, "ROLLBACK", discard{})
			return err
		}
		defer func() {
			if err == nil {
				_, err = imp.conn.Run(ctx, "COMMIT", discard{})
				return
			}
			imp.conn.Run(ctx, "ROLLBACK", discard{})
			// a server without transaction blocks has committed the table already
			imp.conn.Run(ctx, "DROP TABLE IF EXISTS "+tableName(imp.table), discard{})
		}()
	}
	pr, pw := io.Pipe()
	srcErr := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(pw, 256<<10)
		cw := csv.NewWriter(bw)
		err := src.run(ctx, func(rec []string) error { return cw.Write(rec) }, nil)
		if err == nil {
			cw.Flush()
			err = cw.Error()
		}
		if err == nil {
			err = bw.Flush()
		}
		srcErr <- err
		pw.CloseWithError(err)
	}()
	stmt := "COPY " + tableName(imp.table) + " (" + strings.Join(quoted, ", ") + ") FROM STDIN WITH (FORMAT csv)"
	_, cerr := cp.CopyFrom(ctx, stmt, pr)
	pr.CloseWithError(errors.New("copy ended"))
	if serr := <-srcErr; serr != nil {
		return serr
	}
	return cerr
}
