package sql

import "github.com/lakepg/lakepg/sql/planner"

// What a session hands the server that the query planner defines: result
// columns, notices, and the admission of statements that read lake data.
type (
	Column    = planner.Column
	Notice    = planner.Notice
	Admission = planner.Admission
)

// ServerVersion is the PostgreSQL version lakepg reports.
const ServerVersion = planner.ServerVersion

// NewAdmission lets n statements read lake data at once.
func NewAdmission(n int) *Admission { return planner.NewAdmission(n) }

// DefaultActiveQueries is the admission limit when none is configured.
func DefaultActiveQueries() int { return planner.DefaultActiveQueries() }
