package tablelayout

import (
	"context"
	"strconv"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/snapshot"
)

// WriterOptions are the Parquet writer settings of a table's data files:
// the catalog option parquet_compression (table, schema or global scope,
// as DuckDB reads it), else lakepg's default codec.
func (s *Layouts) WriterOptions(ctx context.Context, schemaID, tableID int64) (parquetio.WriterOptions, error) {
	opt := parquetio.WriterOptions{Encrypt: s.DB.Encrypted()}
	// DuckDB's parquet_row_group_size: rows per row group (smaller groups
	// let min/max skip finer, above all in sorted tables)
	rg, ok, err := snapshot.Option(ctx, s.DB, "parquet_row_group_size", schemaID, tableID)
	if err != nil {
		return opt, err
	}
	if ok {
		n, err := strconv.ParseInt(rg, 10, 64)
		if err != nil || n < 1 || n > 1<<30 {
			return opt, pgerr.New(pgerr.InvalidParameterValue, "invalid parquet_row_group_size \"%s\"", rg)
		}
		opt.RowGroupRows = int(n)
	}
	v, ok, err := snapshot.Option(ctx, s.DB, "parquet_compression", schemaID, tableID)
	if err != nil || !ok {
		return opt, err
	}
	if err := parquetio.CheckCompression(v); err != nil {
		return parquetio.WriterOptions{}, err
	}
	opt.Compression = v
	return opt, nil
}
