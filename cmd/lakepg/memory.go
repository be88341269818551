package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/storage"
)

// memoryFlags are --memory-limit, --temp-dir, --max-temp-size and
// --file-list-cache.
type memoryFlags struct {
	limit, tempDir, maxTemp, fileLists *string
}

func addMemoryFlags(fs *flag.FlagSet) *memoryFlags {
	return &memoryFlags{
		limit: fs.String("memory-limit", env("LAKEPG_MEMORY_LIMIT", ""),
			"memory the server's queries may hold at once (sorts, hash tables, windows), e.g. 512MiB or 2GB; beyond it operators spill to --temp-dir; default 80% of the cgroup memory limit or of RAM (env LAKEPG_MEMORY_LIMIT)"),
		tempDir: fs.String("temp-dir", env("LAKEPG_TEMP_DIR", filepath.Join(os.TempDir(), "lakepg-spill")),
			"directory for spill files; the server works in a subdirectory of its own and removes those of servers that are gone at start (env LAKEPG_TEMP_DIR)"),
		maxTemp: fs.String("max-temp-size", env("LAKEPG_MAX_TEMP_SIZE", "0"),
			"most bytes of spill files at once, e.g. 100GiB; a query that needs more fails with 53200; 0 = no limit (env LAKEPG_MAX_TEMP_SIZE)"),
		fileLists: fs.String("file-list-cache", env("LAKEPG_FILE_LIST_CACHE", "256MiB"),
			"memory for the cached lists of the tables' data files and their statistics, e.g. 2GiB; a table whose list takes more than half of it is listed from the catalog for every statement (about 900 MiB per 1,000,000 files) (env LAKEPG_FILE_LIST_CACHE)"),
	}
}

// fileListCache is --file-list-cache in bytes.
func (m *memoryFlags) fileListCache() (int64, error) {
	n, err := storage.ParseSize(*m.fileLists)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--file-list-cache %q: want a size such as 256MiB or 2GiB", *m.fileLists)
	}
	return n, nil
}

// gcPercent is the Go collector's GOGC under lakepg's soft memory limit
// (apply), unless the environment sets GOGC.
const gcPercent = 400

// apply sizes memory.GlobalMemory and memory.GlobalSpill. When GOMEMLIMIT is not
// set it also gives the Go runtime a soft limit a quarter above the budget,
// and GOGC 400 below it unless GOGC is set:
// reservations count the data operators hold, not the garbage the collector
// has yet to free, so the collector is told to work harder before the
// process outgrows the budget by more than that margin.
func (m *memoryFlags) apply() (limit int64, err error) {
	if *m.limit == "" {
		limit = defaultServerMemory()
	} else if limit, err = storage.ParseSize(*m.limit); err != nil || limit <= 0 {
		return 0, fmt.Errorf("--memory-limit %q: want a size such as 512MiB or 2GB", *m.limit)
	}
	maxTemp, err := storage.ParseSize(*m.maxTemp)
	if err != nil || maxTemp < 0 {
		return 0, fmt.Errorf("--max-temp-size %q: want a size such as 100GiB, 0 for no limit", *m.maxTemp)
	}
	memory.GlobalMemory.SetLimit(limit)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(limit + limit/4)
		if _, set := os.LookupEnv("GOGC"); !set {
			// with the soft limit as the backstop, the collector may let
			// the heap grow to five times what is live before a cycle:
			// text vectors are strings, pointers every cycle scans, and at
			// the default (100) TPC-DS q4 ran six cycles of about 250 ms
			// of CPU each; at 400 q4, q11 and q39 took a sixth to a
			// quarter less CPU
			debug.SetGCPercent(gcPercent)
		}
	}
	if err := memory.GlobalSpill.Configure(*m.tempDir, maxTemp); err != nil {
		return 0, fmt.Errorf("--temp-dir: %w", err)
	}
	return limit, nil
}

// defaultServerMemory is 80% of the cgroup's memory limit when there is one
// below the machine's RAM, else 80% of RAM, else 4 GiB.
func defaultServerMemory() int64 {
	ram := memTotal()
	lim := ram
	if c := cgroupLimit(); c > 0 && (lim <= 0 || c < lim) {
		lim = c
	}
	if lim <= 0 {
		return 4 << 30
	}
	return lim / 5 * 4
}

func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// cgroupLimit reads the memory limit of cgroup v2, else v1 (0: none).
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return 0
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	return 0
}
