# syntax=docker/dockerfile:1
#
# lakepg in a container. pg_query_go compiles PostgreSQL's parser with cgo, so the build
# stage has a C compiler and the binary links glibc; the runtime stage is Debian slim.
#
#   docker build -t lakepg .
#   docker run -p 127.0.0.1:5433:5433 -e LAKEPG_PASSWORD=… -v lake:/var/lib/lakepg lakepg
#
# The target "versitygw" builds the S3-compatible server the tests use (docker-compose.yml);
# the target "pgbouncer" is Debian's PgBouncer, the pooler of its "scaleout" profile.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -o /out/lakepg ./cmd/lakepg

FROM golang:1.26-bookworm AS versitygw-build
RUN CGO_ENABLED=0 GOBIN=/out go install github.com/versity/versitygw/cmd/versitygw@v1.8.0

FROM debian:bookworm-slim AS versitygw
RUN useradd --system --uid 10001 --create-home --home-dir /data versitygw
COPY --from=versitygw-build /out/versitygw /usr/local/bin/versitygw
USER versitygw
EXPOSE 7070
# Credentials come from ROOT_ACCESS_KEY and ROOT_SECRET_KEY in the environment.
ENTRYPOINT ["versitygw", "--port", ":7070", "--region", "us-east-1"]
CMD ["posix", "/data"]

FROM debian:bookworm-slim AS lakepg
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --create-home --home-dir /var/lib/lakepg lakepg
COPY --from=build /out/lakepg /usr/local/bin/lakepg
USER lakepg
WORKDIR /var/lib/lakepg
EXPOSE 5433
# Serving beyond loopback needs a password: set LAKEPG_PASSWORD (creates the superuser
# lakepg on first start) or give a role one first.
ENV LAKEPG_LISTEN=0.0.0.0:5433
ENTRYPOINT ["lakepg"]

FROM debian:bookworm-slim AS pgbouncer
# Debian's package, the PgBouncer 1.18 test/topology runs; it refuses to run as root
RUN apt-get update \
 && apt-get install -y --no-install-recommends pgbouncer \
 && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432
ENTRYPOINT ["pgbouncer"]
CMD ["/etc/pgbouncer/pgbouncer.ini"]
