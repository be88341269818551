// Package parquetio moves DuckLake Parquet files in and out of vectors: the
// Writer that turns batches into data files (type mapping as DuckDB writes
// it, field ids, exact DuckLake statistics, file size and footer length),
// the reader that streams projected columns of data files into batches, and
// positional delete files.
//
// Reading is the engine's hot path, so it is ours (PERFORMANCE.md rule 4):
// the footer and page headers are decoded by a small Thrift compact reader,
// each projected column chunk is fetched with one ReadAt, pages are
// decompressed once into reused buffers, and PLAIN and dictionary values,
// definition levels and RLE/bit-packed indices are decoded straight into
// the vectors' typed slices. Row groups are pruned from their statistics
// before anything is read. A reader that implements RangePrefetcher (object
// storage) is first told all the chunk ranges of a row group, so it can
// fetch adjacent ones with one request. parquet-go is used for writing, for
// the codecs and for the rarely written DELTA_* and BYTE_STREAM_SPLIT
// encodings.
//
// Columns are matched by Parquet field_id (DuckLake column_id), never by
// name; files without field ids are matched by position. A column a file
// lacks is produced as its DuckLake initial_default. Top-level primitive
// columns of every lakepg type are supported (interval as Parquet's
// millisecond INTERVAL, like DuckDB); nested columns are not yet.
//
// The package knows nothing about catalogs, snapshots or where files live:
// callers pass an io.ReaderAt / io.Writer (see package storage) and apply
// positional deletes with the row positions the Scanner reports.
package parquetio
