.PHONY: run build test vet

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
