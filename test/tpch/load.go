package tpch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Tables are the eight TPC-H tables, smallest first.
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// postgresIndexes make PostgreSQL's plans for the correlated subqueries of Q17 (lineitem
// by part) and Q20 (lineitem by part and supplier) index lookups instead of a scan of
// lineitem per outer row. They change no result.
var postgresIndexes = []string{
	"CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey)",
	"CREATE INDEX partsupp_part ON partsupp (ps_partkey)",
}

// LoadPostgres creates the tables of schema.sql on a PostgreSQL connection and fills each
// with COPY … FROM STDIN from dir/<table>.parquet, then adds postgresIndexes and analyzes.
func LoadPostgres(ctx context.Context, conn *pgconn.PgConn, schemaPath, dir string) error {
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, string(schema)).ReadAll(); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	for _, t := range Tables {
		if err := copyTable(ctx, conn, t, filepath.Join(dir, t+".parquet")); err != nil {
			return fmt.Errorf("loading %s: %w", t, err)
		}
	}
	for _, ix := range postgresIndexes {
		if _, err := conn.Exec(ctx, ix).ReadAll(); err != nil {
			return fmt.Errorf("%s: %w", ix, err)
		}
	}
	_, err = conn.Exec(ctx, "ANALYZE").ReadAll()
	return err
}

func copyTable(ctx context.Context, conn *pgconn.PgConn, table, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cols := pf.Root().Columns()
	names := make([]string, len(cols))
	formats := make([]func(parquet.Value) string, len(cols))
	for i, c := range cols {
		if len(c.Columns()) > 0 {
			return fmt.Errorf("%s: column %s is nested", path, c.Name())
		}
		names[i] = c.Name()
		formats[i] = formatter(c)
	}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeCopyText(pw, pf, formats))
	}()
	_, err = conn.CopyFrom(ctx, pr, fmt.Sprintf("COPY %s (%s) FROM STDIN", table, strings.Join(names, ", ")))
	pr.CloseWithError(errors.New("copy ended"))
	return err
}

// writeCopyText writes every row of the file in COPY's text format.
func writeCopyText(w io.Writer, pf *parquet.File, formats []func(parquet.Value) string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]parquet.Row, 512)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				fields := make([]string, len(formats))
				for _, v := range row {
					c := v.Column()
					if v.IsNull() {
						fields[c] = `\N`
					} else {
						fields[c] = copyEscape(formats[c](v))
					}
				}
				bw.WriteString(strings.Join(fields, "\t"))
				bw.WriteByte('\n')
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
	}
	return bw.Flush()
}

var epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// formatter renders a value of a leaf column as PostgreSQL text input, after its logical
// type: decimals (scaled integers), dates (days since 1970-01-01), integers, floats, strings.
func formatter(c *parquet.Column) func(parquet.Value) string {
	if lt := c.Type().LogicalType(); lt != nil {
		switch x := lt.Value.(type) {
		case *format.DecimalType:
			scale := int(x.Scale)
			return func(v parquet.Value) string {
				if v.Kind() == parquet.Int32 {
					return scaled(int64(v.Int32()), scale)
				}
				return scaled(v.Int64(), scale)
			}
		case *format.DateType:
			return func(v parquet.Value) string {
				return epoch.AddDate(0, 0, int(v.Int32())).Format("2006-01-02")
			}
		}
	}
	switch c.Type().Kind() {
	case parquet.Int32:
		return func(v parquet.Value) string { return strconv.FormatInt(int64(v.Int32()), 10) }
	case parquet.Int64:
		return func(v parquet.Value) string { return strconv.FormatInt(v.Int64(), 10) }
	case parquet.Float:
		return func(v parquet.Value) string { return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32) }
	case parquet.Double:
		return func(v parquet.Value) string { return strconv.FormatFloat(v.Double(), 'g', -1, 64) }
	case parquet.Boolean:
		return func(v parquet.Value) string { return strconv.FormatBool(v.Boolean()) }
	default:
		return func(v parquet.Value) string { return string(v.ByteArray()) }
	}
}

// scaled renders the integer n × 10^-scale.
func scaled(n int64, scale int) string {
	if scale == 0 {
		return strconv.FormatInt(n, 10)
	}
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

var copyEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

func copyEscape(s string) string { return copyEscaper.Replace(s) }
