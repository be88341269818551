// Package estimate estimates the rows of a plan of exec operators, for
// join ordering and EXPLAIN: selectivities of filters from the catalog's
// column statistics (estimate.go), distinct values from the files'
// sketches (ndv.go), small tables' filters counted exactly
// (estimate_exact.go). What it reads besides the plan — footers, the lake
// table behind a scan, the session's disabled rules — comes through Source,
// which the planner implements.
package estimate
