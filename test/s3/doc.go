// Package s3 holds the end-to-end tests of lakepg on S3-compatible object
// storage: the built binary serving a lake at s3://bucket/lake (a SQLite
// catalog in a temporary directory) against a real versitygw, driven with
// pgx; DuckDB reading the same lake through httpfs; object-storage
// outages; and the request counts of Parquet reads over S3.
package s3
