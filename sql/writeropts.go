package sql

import (
	"context"

	"github.com/lakepg/lakepg/exec/parquetio"
	"github.com/lakepg/lakepg/snapshot"
)

// writerOptions are the Parquet writer settings of a table's data files:
// the catalog option parquet_compression (table, schema or global scope,
// as DuckDB reads it), else lakepg's default codec.
func (s *Session) writerOptions(ctx context.Context, schemaID, tableID int64) (parquetio.WriterOptions, error) {
	v, ok, err := snapshot.Option(ctx, s.eng.DB, "parquet_compression", schemaID, tableID)
	if err != nil || !ok {
		return parquetio.WriterOptions{Encrypt: s.eng.DB.Encrypted()}, err
	}
	if err := parquetio.CheckCompression(v); err != nil {
		return parquetio.WriterOptions{}, err
	}
	return parquetio.WriterOptions{Compression: v, Encrypt: s.eng.DB.Encrypted()}, nil
}
