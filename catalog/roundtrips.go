package catalog

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// catalogQueries counts the statements this process sent to PostgreSQL
// catalogs (BEGIN and COMMIT included): each is one round trip.
var catalogQueries atomic.Int64

// CatalogQueries is how many statements the process has sent to PostgreSQL
// catalogs since it started, each a round trip to the catalog server
// (transaction control included). SQLite catalogs are in-process and not
// counted.
func CatalogQueries() int64 { return catalogQueries.Load() }

// countingTracer is a pgx tracer that only counts statements.
type countingTracer struct{}

func (countingTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	catalogQueries.Add(1)
	return ctx
}

func (countingTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
