#!/usr/bin/env bash
# The one test command (`make test` runs it; .ci/run runs `make test`).
#
# Installs what the tests need when it is missing, then runs `go vet ./...` and every test.
# Idempotent: on a machine that has everything it only checks and goes straight to the tests.
#
# Needs: Go (the version in go.mod) on PATH; root or sudo for apt-get on a fresh Debian.
set -euo pipefail

cd "$(dirname "$0")/.."

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'scripts/test.sh: %s\n' "$*" >&2; exit 1; }

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root or sudo to run: $*"
	fi
}

apt_updated=
# apt_install PACKAGE...: installs Debian packages, running apt-get update once per run.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install $* by hand"
	if [ -z "$apt_updated" ]; then
		log "apt-get update"
		as_root apt-get update -qq
		apt_updated=1
	fi
	log "apt-get install $*"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

ensure_go() {
	command -v go >/dev/null 2>&1 || die "go not found on PATH (need the version in go.mod)"
}

# psql, for test/integration (Debian's postgresql-client).
ensure_psql() {
	command -v psql >/dev/null 2>&1 && return
	apt_install postgresql-client
	command -v psql >/dev/null 2>&1 || die "postgresql-client installed but psql is not on PATH"
}

# The Go modules in go.mod, so that a fresh machine fails here, clearly, when the module
# proxy is unreachable, and not in the middle of a build.
ensure_go_modules() {
	go mod download
}

# --- Needs of later issues; each is called from main once its tests exist. ---

# PostgreSQL server, for the postgres:// catalog and the comparisons against PostgreSQL:
# Debian's postgresql package, started on a loopback port with a temporary data directory.
ensure_postgres_server() {
	:
}

# versitygw, the S3-compatible server for the s3:// data path:
# go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
ensure_versitygw() {
	:
}

# DuckDB 1.5.5 and its ducklake extension, for interoperability tests, from PyPI:
# duckdb==1.5.5 duckdb-extension-ducklake==1.5.5 (extension loaded from site-packages).
ensure_duckdb() {
	:
}

main() {
	ensure_go
	ensure_psql
	ensure_go_modules

	log "go vet ./..."
	go vet ./...
	log "go test -count=1 -timeout 30m ./..."
	go test -count=1 -timeout 30m ./...
}

main "$@"
