package exec

// For the external tests of this directory (package exec_test).
var (
	ScanFixture    = scanFixture
	NewFixtureScan = newFixtureScan
)
