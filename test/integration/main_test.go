package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// lakepgBin is the server binary that TestMain builds once for every test in the package.
var lakepgBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "lakepg-integration-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	lakepgBin = filepath.Join(tmp, "lakepg")
	build := exec.Command("go", "build", "-o", lakepgBin, "./cmd/lakepg")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "integration: go build -o %s ./cmd/lakepg (in %s): %v\n%s\n", lakepgBin, root, err, out)
		return 1
	}
	return m.Run()
}

// moduleRoot walks up from the working directory (the package directory under go test)
// to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
