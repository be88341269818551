package snapshot

import (
	"errors"
	"sync/atomic"
)

// CommitStats counts the outcomes of the commits this process attempted
// since it started (metrics read it with ReadCommitStats; counters only
// grow): snapshots written, commits that failed on a conflicting concurrent
// writer (ErrConflict, SQLSTATE 40001 for the client, after any retries),
// and attempts retried on top of a newer head.
type CommitStats struct {
	Commits   int64
	Conflicts int64
	Retries   int64
	// Groups counts catalog transactions that wrote several commits at
	// once (group.go), GroupMembers the commits they carried.
	Groups       int64
	GroupMembers int64
}

var commitCounters struct {
	commits, conflicts, retries atomic.Int64
}

var groupCommits, groupMembers atomic.Int64

// ReadCommitStats returns the current counters.
func ReadCommitStats() CommitStats {
	return CommitStats{
		Commits:   commitCounters.commits.Load(),
		Conflicts: commitCounters.conflicts.Load(),
		Retries:   commitCounters.retries.Load(),

		Groups:       groupCommits.Load(),
		GroupMembers: groupMembers.Load(),
	}
}

// countTry records one commit attempt: attempt is its 0-based number, err
// its outcome (nil: a snapshot was written). A logical conflict is final
// (never retried); a lost race is retried and counted when the retries run
// out (countGaveUp). Other errors (cancellation, I/O) are not counted.
func countTry(attempt int, err error) {
	if attempt > 0 {
		commitCounters.retries.Add(1)
	}
	switch {
	case err == nil:
		commitCounters.commits.Add(1)
	case errors.Is(err, ErrConflict):
		commitCounters.conflicts.Add(1)
	}
}

// countGaveUp records a commit that lost the race for the next snapshot
// on every attempt.
func countGaveUp() { commitCounters.conflicts.Add(1) }
