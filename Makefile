# One target per section of the benchmark report (README "Benchmarks").
BENCH_SECTIONS_TARGETS := bench-tpch bench-tpcds bench-ingest bench-wire bench-writes bench-concurrency bench-scaling bench-scaleout bench-s3 bench-memory bench-catalog

.PHONY: run build test vet bench $(BENCH_SECTIONS_TARGETS)

# Arguments for `make run`, e.g. make run ARGS="--listen 127.0.0.1:6543".
ARGS ?=

# Serve the embedded default lake (./lakehouse) on 127.0.0.1:5433.
run:
	go run ./cmd/lakepg $(ARGS)

# Build the server binary ./lakepg.
build:
	go build -o lakepg ./cmd/lakepg

# Install what the tests need when missing, then go vet and every test.
test:
	scripts/test.sh

vet:
	go vet ./...

# Benchmarks against DuckDB and PostgreSQL: installs what they need, writes
# bench/results/<date>-<name>.md and PNG charts. BENCH_SF, BENCH_RUNS, … set the sizes.
bench:
	go run ./bench/cmd/lakepg-bench

$(BENCH_SECTIONS_TARGETS):
	go run ./bench/cmd/lakepg-bench -sections $(@:bench-%=%)
