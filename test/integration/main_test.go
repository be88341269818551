package integration

import (
	"fmt"
	"os"
	"testing"

	"github.com/lakepg/lakepg/test/testserver"
)

// lakepgBin is the server binary that TestMain builds once for every test in the package.
var lakepgBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "lakepg-integration-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	lakepgBin, err = testserver.Build(tmp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	return m.Run()
}
