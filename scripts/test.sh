#!/usr/bin/env bash
# The one test command (`make test` runs it; .ci/run runs `make test`).
#
# Installs what the tests need when it is missing, starts a throwaway PostgreSQL server for
# the comparisons with PostgreSQL (stopped and removed on exit), then runs `go vet ./...` and
# every test, and prints the figures of the conformance suites (sqllogictest, PostgreSQL
# differential tests, TPC-H) at the end.
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

# PostgreSQL server, for the comparisons against PostgreSQL (test/slt, test/pgdiff,
# test/tpch) and later the postgres:// catalog: Debian's postgresql package (installed only
# when no server binaries are found), a throwaway cluster in a temporary directory on a free
# loopback port with trust authentication, C locale and UTF8, run as the postgres user when
# this script runs as root. Exports LAKEPG_TEST_PG_DSN for the tests and
# LAKEPG_TEST_REQUIRE_PG=1 so that they fail, not skip, without it. Stopped and removed on exit.
pg_bindir=
pg_tmp=
pg_port=
find_pg_bindir() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ]; then
			pg_bindir=$d
			return 0
		fi
	done
	return 1
}

# as_pg CMD...: runs a PostgreSQL server binary as the postgres user when we are root
# (the server refuses to run as root), as ourselves otherwise.
as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

stop_postgres_server() {
	if [ -n "$pg_tmp" ] && [ -d "$pg_tmp" ]; then
		if [ -f "$pg_tmp/data/postmaster.pid" ]; then
			as_pg "$pg_bindir/pg_ctl" -D "$pg_tmp/data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
		rm -rf "$pg_tmp"
	fi
}

ensure_postgres_server() {
	if ! find_pg_bindir; then
		apt_install postgresql
		find_pg_bindir || die "package postgresql installed but no /usr/lib/postgresql/*/bin/initdb"
	fi
	if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
		die "running as root but there is no postgres user to run the PostgreSQL server as"
	fi
	if [ "$(id -u)" = 0 ]; then
		# Under /tmp, whatever TMPDIR says: the postgres user must be able to reach it.
		pg_tmp=$(mktemp -d /tmp/lakepg-test-pg.XXXXXX)
		chown postgres "$pg_tmp"
	else
		pg_tmp=$(mktemp -d "${TMPDIR:-/tmp}/lakepg-test-pg.XXXXXX")
	fi
	log "PostgreSQL: initdb ($pg_bindir) in $pg_tmp"
	as_pg "$pg_bindir/initdb" -D "$pg_tmp/data" -U postgres -A trust -E UTF8 --locale=C >"$pg_tmp/initdb.log" 2>&1 ||
		die "initdb failed: $(cat "$pg_tmp/initdb.log")"
	# Pick a port that nothing listens on; retry if another process takes it first.
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		pg_port=$((20000 + RANDOM % 40000))
		if (exec 3<>"/dev/tcp/127.0.0.1/$pg_port") 2>/dev/null; then
			continue
		fi
		if as_pg "$pg_bindir/pg_ctl" -D "$pg_tmp/data" -l "$pg_tmp/server.log" -w -t 60 start -o \
			"-p $pg_port -c listen_addresses=127.0.0.1 -k $pg_tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=40 -c TimeZone=UTC" \
			>/dev/null 2>&1; then
			export LAKEPG_TEST_PG_DSN="postgres://postgres@127.0.0.1:$pg_port/postgres?sslmode=disable"
			export LAKEPG_TEST_REQUIRE_PG=1
			log "PostgreSQL $("$pg_bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port"
			return 0
		fi
	done
	die "could not start PostgreSQL: $(tail -20 "$pg_tmp/server.log" 2>/dev/null)"
}


# DuckDB 1.5.5 and its ducklake, sqlite, postgres and tpcds extensions, for the
# interoperability tests (test/duckdb: DuckDB attaches lakepg's SQLite and PostgreSQL
# catalogs) and test/tpcds (DuckDB generates the TPC-DS data and answers the queries), from
# PyPI: duckdb==1.5.5 duckdb-extension-ducklake==1.5.5 duckdb-extension-sqlite==1.5.5
# duckdb-extension-postgres==1.5.5 duckdb-extension-tpcds==1.5.5 (the tests load the
# extensions from site-packages, nothing is downloaded at run time).
duckdb_ready() {
	python3 - >/dev/null 2>&1 <<'PY'
import os, duckdb, duckdb_extension_ducklake, duckdb_extension_sqlite, duckdb_extension_postgres, duckdb_extension_tpcds
assert duckdb.__version__ == "1.5.5"
for m, name in ((duckdb_extension_ducklake, "ducklake"), (duckdb_extension_sqlite, "sqlite"), (duckdb_extension_postgres, "postgres"), (duckdb_extension_tpcds, "tpcds")):
    f = os.path.join(os.path.dirname(m.__file__), "extensions", "v1.5.5", name + ".duckdb_extension")
    assert os.path.isfile(f), f
PY
}
ensure_duckdb() {
	duckdb_ready && return
	command -v python3 >/dev/null 2>&1 || apt_install python3
	python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
	local pkgs=(duckdb==1.5.5 duckdb-extension-ducklake==1.5.5 duckdb-extension-sqlite==1.5.5 duckdb-extension-postgres==1.5.5 duckdb-extension-tpcds==1.5.5)
	log "pip install ${pkgs[*]}"
	# A Debian python3 is "externally managed" (PEP 668): retry with --break-system-packages.
	python3 -m pip install -q "${pkgs[@]}" ||
		python3 -m pip install -q --break-system-packages "${pkgs[@]}" ||
		die "pip install ${pkgs[*]} failed"
	duckdb_ready || die "DuckDB 1.5.5 or its ducklake/sqlite/postgres/tpcds extensions missing after pip install"
}

# The httpfs extension of DuckDB 1.5.5 (PyPI duckdb-extension-httpfs==1.5.5), with which
# test/s3 has DuckDB read a lake that lakepg keeps in S3.
duckdb_httpfs_ready() {
	python3 - >/dev/null 2>&1 <<'PY'
import os, duckdb_extension_httpfs as m
assert os.path.isfile(os.path.join(os.path.dirname(m.__file__), "extensions", "v1.5.5", "httpfs.duckdb_extension"))
PY
}
ensure_duckdb_httpfs() {
	duckdb_httpfs_ready && return
	log "pip install duckdb-extension-httpfs==1.5.5"
	python3 -m pip install -q duckdb-extension-httpfs==1.5.5 ||
		python3 -m pip install -q --break-system-packages duckdb-extension-httpfs==1.5.5 ||
		die "pip install duckdb-extension-httpfs==1.5.5 failed"
	duckdb_httpfs_ready || die "the DuckDB httpfs extension is missing after pip install"
}

# versitygw, the S3-compatible server of the object-storage tests (storage, test/s3): built
# with `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0` when no binary of that
# version is found, started on a free loopback port serving a temporary directory through
# its posix backend, with throwaway root credentials. Exports LAKEPG_TEST_S3_ENDPOINT,
# LAKEPG_TEST_S3_ACCESS_KEY and LAKEPG_TEST_S3_SECRET_KEY for the tests,
# LAKEPG_TEST_VERSITYGW (the binary, for tests that stop and restart a private server) and
# LAKEPG_TEST_REQUIRE_S3=1 so that they fail, not skip, without it. Stopped and removed on
# exit.
versitygw_module=github.com/versity/versitygw
versitygw_version=v1.8.0
vgw_bin=
vgw_tmp=
vgw_pid=
find_versitygw() {
	local b gobin
	gobin=$(go env GOBIN)
	[ -n "$gobin" ] || gobin="$(go env GOPATH | cut -d: -f1)/bin"
	for b in "${LAKEPG_TEST_VERSITYGW:-}" "$(command -v versitygw 2>/dev/null || true)" "$gobin/versitygw"; do
		[ -n "$b" ] && [ -x "$b" ] || continue
		# go install leaves no --version; the module version is in the binary's build info.
		if go version -m "$b" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]]*$versitygw_module[[:space:]]*$versitygw_version[[:space:]]"; then
			vgw_bin=$b
			return 0
		fi
	done
	return 1
}

stop_versitygw() {
	if [ -n "$vgw_pid" ]; then
		kill "$vgw_pid" 2>/dev/null || true
		wait "$vgw_pid" 2>/dev/null || true
		vgw_pid=
	fi
	[ -n "$vgw_tmp" ] && rm -rf "$vgw_tmp"
	return 0
}

ensure_versitygw() {
	if ! find_versitygw; then
		log "go install $versitygw_module/cmd/versitygw@$versitygw_version"
		go install "$versitygw_module/cmd/versitygw@$versitygw_version" || die "go install versitygw failed"
		find_versitygw || die "versitygw $versitygw_version installed but not found in \$(go env GOPATH)/bin"
	fi
	vgw_tmp=$(mktemp -d "${TMPDIR:-/tmp}/lakepg-test-s3.XXXXXX")
	mkdir -p "$vgw_tmp/root"
	local key=lakepgtest secret try port
	secret="test-$RANDOM$RANDOM"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		port=$((20000 + RANDOM % 40000))
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			continue
		fi
		"$vgw_bin" --access "$key" --secret "$secret" --region us-east-1 --port "127.0.0.1:$port" --quiet \
			posix "$vgw_tmp/root" >"$vgw_tmp/versitygw.log" 2>&1 &
		vgw_pid=$!
		# Up when it answers HTTP (403 to an unsigned request) on the port.
		local i
		for i in $(seq 1 100); do
			if ! kill -0 "$vgw_pid" 2>/dev/null; then
				break
			fi
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				export LAKEPG_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
				export LAKEPG_TEST_S3_ACCESS_KEY=$key
				export LAKEPG_TEST_S3_SECRET_KEY=$secret
				export LAKEPG_TEST_VERSITYGW=$vgw_bin
				export LAKEPG_TEST_REQUIRE_S3=1
				log "versitygw $versitygw_version on 127.0.0.1:$port"
				return 0
			fi
			sleep 0.1
		done
		kill "$vgw_pid" 2>/dev/null || true
		wait "$vgw_pid" 2>/dev/null || true
		vgw_pid=
	done
	die "could not start versitygw: $(tail -20 "$vgw_tmp/versitygw.log" 2>/dev/null)"
}

# The client drivers of test/clients, each installed when missing: psycopg 3, psycopg2, asyncpg,
# SQLAlchemy 2, pgcli and pyodbc from PyPI; node-postgres from npm into a cache directory (exported as
# LAKEPG_TEST_NODE_PATH); pgJDBC from Maven Central into ~/.m2 (exported as
# LAKEPG_TEST_PGJDBC_JAR); psqlODBC and unixODBC from Debian; Java and Node from Debian when
# missing.
clients_cache=${XDG_CACHE_HOME:-$HOME/.cache}/lakepg-test-clients
pgjdbc_version=42.7.14
pip_install() {
	log "pip install $*"
	python3 -m pip install -q "$@" || python3 -m pip install -q --break-system-packages "$@" ||
		die "pip install $* failed"
}
ensure_clients() {
	command -v odbcinst >/dev/null 2>&1 && [ -n "$(find /usr/lib -name psqlodbcw.so 2>/dev/null | head -1)" ] ||
		apt_install odbc-postgresql unixodbc
	python3 -c 'import psycopg' 2>/dev/null || pip_install psycopg==3.3.9 psycopg-binary==3.3.9
	python3 -c 'import sqlalchemy' 2>/dev/null || pip_install sqlalchemy==2.1.9
	python3 -c 'import pyodbc' 2>/dev/null || pip_install pyodbc==5.5.0
	python3 -c 'import psycopg2' 2>/dev/null || pip_install psycopg2-binary==2.9.13
	python3 -c 'import asyncpg' 2>/dev/null || pip_install asyncpg==0.32.0
	python3 -c 'import pgcli.pgexecute' 2>/dev/null || pip_install pgcli==4.7.1
	# the tools of test/clients/tools_test.go. dbt-core 1.12.0 with the prebuilt
	# dbt-core-experimental-parser 2.0.0a4: later 1.12.x need a 2.0.x parser that is published
	# as a source package downloading its binary while it builds, which cannot work offline.
	# Django 5.2 LTS: Django 6 needs Python 3.12 and the machines' python3 is 3.11.
	python3 -c 'import dbt.adapters.postgres' 2>/dev/null ||
		pip_install dbt-core==1.12.0 dbt-core-experimental-parser==2.0.0a4 dbt-postgres==1.11.0
	python3 -c 'import alembic' 2>/dev/null || pip_install alembic==1.20.1
	python3 -c 'import django' 2>/dev/null || pip_install django==5.2.19
	python3 -c 'import dlt' 2>/dev/null || pip_install dlt==1.31.0
	# the AWS CLI runs the bucket job of docker-compose.yml in test/compose
	command -v aws >/dev/null 2>&1 || pip_install awscli==1.45.11
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || apt_install nodejs npm
	if [ ! -f "$clients_cache/node/node_modules/pg/package.json" ]; then
		log "npm install pg@8.23.1 (in $clients_cache/node)"
		mkdir -p "$clients_cache/node"
		(cd "$clients_cache/node" && npm install --no-audit --no-fund --silent pg@8.23.1) || die "npm install pg failed"
	fi
	export LAKEPG_TEST_NODE_PATH="$clients_cache/node/node_modules"
	command -v javac >/dev/null 2>&1 || apt_install default-jdk-headless
	local jar="$HOME/.m2/repository/org/postgresql/postgresql/$pgjdbc_version/postgresql-$pgjdbc_version.jar"
	if [ ! -f "$jar" ]; then
		command -v mvn >/dev/null 2>&1 || apt_install maven
		log "mvn dependency:get org.postgresql:postgresql:$pgjdbc_version"
		mvn -q dependency:get -Dartifact="org.postgresql:postgresql:$pgjdbc_version" >/dev/null || die "fetching pgJDBC failed"
	fi
	export LAKEPG_TEST_PGJDBC_JAR=$jar
}

# PgBouncer and HAProxy, the pooler and the balancer of test/topology's scale-out cluster
# (two lakepg servers on one PostgreSQL catalog): Debian's pgbouncer (1.18 on bookworm) and
# haproxy (2.6). Only the binaries are used; the tests start private instances on loopback.
ensure_pooler() {
	local missing=()
	command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
	command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
	[ "${#missing[@]}" -eq 0 ] && return
	apt_install "${missing[@]}"
	{ command -v pgbouncer || [ -x /usr/sbin/pgbouncer ]; } >/dev/null 2>&1 || die "package pgbouncer installed but no pgbouncer binary"
	{ command -v haproxy || [ -x /usr/sbin/haproxy ]; } >/dev/null 2>&1 || die "package haproxy installed but no haproxy binary"
}

# The conformance suites (test/slt, test/pgdiff, test/tpch) write their figures to
# $LAKEPG_TEST_REPORT_DIR; `go test ./...` hides the log of passing tests, so they are
# printed here after the tests, passing or not.
report_dir=
print_reports() {
	local f
	for f in "$report_dir"/*.txt; do
		[ -f "$f" ] || continue
		printf '\n==== %s ====\n' "$(basename "$f" .txt)"
		cat "$f"
	done
}

# A few seconds of each Go fuzz target after the tests, so that a change that makes hostile
# input crash shows up here (README: the test section says how to fuzz longer). A crasher is
# written to the package's testdata/fuzz/ and fails the run. Minimizing is capped at 10
# runs: by default every input that finds new code is first shrunk for up to 60 s, which
# would leave no time to fuzz at all.
fuzz_targets=(
	"./wire FuzzWireMessages"
	"./wire FuzzWireStartup"
	"./wire FuzzCopyParse"
	"./exec/parquetio FuzzParquetRead"
	"./exec/parquetio FuzzDeletionVector"
	"./exec/parquetio FuzzVariantJSON"
	"./sql FuzzSQL"
)
fuzz_briefly() {
	local t pkg name status=0
	for t in "${fuzz_targets[@]}"; do
		read -r pkg name <<<"$t"
		log "go test -run '^\$' -fuzz '^$name\$' -fuzztime 5s $pkg"
		local out
		if ! out=$(go test -run '^$' -fuzz "^$name\$" -fuzztime 5s -fuzzminimizetime 10x "$pkg" 2>&1); then
			echo "$out"
			# Go's fuzzer at times ends a run with "context deadline
			# exceeded" and no failing input when its time is up mid
			# call; that run found nothing, so it is run once more
			if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input' <<<"$out"; then
				log "again: the fuzzer stopped at its deadline without a failing input"
				go test -run '^$' -fuzz "^$name\$" -fuzztime 5s -fuzzminimizetime 10x "$pkg" || status=1
			else
				status=1
			fi
		else
			echo "$out"
		fi
	done
	return "$status"
}

cleanup() {
	stop_postgres_server
	stop_versitygw
	[ -n "$report_dir" ] && rm -rf "$report_dir"
	return 0
}

main() {
	ensure_go
	ensure_psql
	ensure_go_modules
	ensure_duckdb
	ensure_clients
	ensure_pooler
	trap cleanup EXIT
	ensure_postgres_server
	ensure_duckdb_httpfs
	ensure_versitygw
	report_dir=$(mktemp -d "${TMPDIR:-/tmp}/lakepg-test-reports.XXXXXX")
	export LAKEPG_TEST_REPORT_DIR=$report_dir

	log "go vet ./..."
	go vet ./...
	log "go test -count=1 -timeout 30m ./..."
	local status=0
	go test -count=1 -timeout 30m ./... || status=$?
	# the PostgreSQL differential scripts once more, lakepg on a PostgreSQL catalog
	log "go test -count=1 ./test/pgdiff -pgdiff.catalog postgres"
	go test -count=1 ./test/pgdiff -pgdiff.catalog postgres || status=1
	fuzz_briefly || status=$?
	print_reports
	return "$status"
}

main "$@"
