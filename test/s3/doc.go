// Package s3 holds the end-to-end tests of lakepg on S3-compatible object
// storage: the built binary serving a lake at s3://bucket/lake (a SQLite
// catalog in a temporary directory, or the production shape: a catalog in
// the test PostgreSQL) against a real versitygw, driven with pgx; DuckDB
// reading and writing the same lake through httpfs; object-storage outages,
// also in the middle of a scan, and statements cancelled while they wait
// for the storage (a private versitygw behind a TCP proxy that slows it);
// and the request counts of Parquet reads over S3.
package s3
