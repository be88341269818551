package sql

import (
	"context"
	"strings"
	"sync"
	"weak"

	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/storage"
)

// Files in flight: a Parquet file this server has started to write and no
// catalog row names yet. delete_orphaned_files sees such a file as an
// orphan, and an older_than grace period does not save a transaction block
// that stays open longer than it (nor anything from cleanup_all), so the
// writes of this process register their files here and the orphan sweep
// keeps whatever is registered.
//
// A file is registered by Create, before any byte of it exists in storage,
// and stays registered until one of:
//   - its write is aborted before the object became visible;
//   - it is deleted through the session's write store (undo of a failed
//     statement, ROLLBACK);
//   - the statement that wrote it has committed (settled), or, inside a
//     transaction block, the block has ended (releaseWrites);
//   - an orphan sweep finds the catalog naming it, or finds it gone from
//     storage although it was visible before the sweep listed.
//
// The last rule is the backstop that bounds the registry when a release was
// missed; it is safe because a named file stays named (expiry moves it to
// files_scheduled_for_deletion) and a uuid file name is never reused.
//
// Releases that arrive while a sweep runs are held back until it ends: the
// sweep may have read the catalog before the file's commit, and then only
// the registry tells it the file is not an orphan.
//
// The registry is one per process rather than one per Engine: the paths are
// unique (uuid names), and engines of one process that serve the same lake
// (an embedded CLI beside a server, tests) then protect each other's files.
type fileRegistry struct {
	sweepMu sync.Mutex // one orphan sweep at a time

	mu       sync.Mutex
	files    map[string]*inflightFile // by snapshot.CanonicalPath("", path)
	seq      uint64                   // counts files becoming visible in storage
	sweeping bool
	deferred []string
}

type inflightFile struct {
	owner weak.Pointer[Session] // weak: a registry entry must not keep a closed session alive
	// visible is the seq at which Commit made the object visible; 0 while
	// it is still being written.
	visible uint64
}

var inflight = &fileRegistry{files: map[string]*inflightFile{}}

func inflightKey(p string) string { return snapshot.CanonicalPath("", p) }

func (r *fileRegistry) add(owner *Session, p string) {
	r.mu.Lock()
	r.files[inflightKey(p)] = &inflightFile{owner: weak.Make(owner)}
	r.mu.Unlock()
}

func (r *fileRegistry) markVisible(p string) {
	r.mu.Lock()
	if f := r.files[inflightKey(p)]; f != nil {
		r.seq++
		f.visible = r.seq
	}
	r.mu.Unlock()
}

func (r *fileRegistry) Release(paths ...string) {
	if len(paths) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sweeping {
		r.deferred = append(r.deferred, paths...)
		return
	}
	for _, p := range paths {
		delete(r.files, inflightKey(p))
	}
}

// releaseOwner releases every file owner registered.
func (r *fileRegistry) releaseOwner(owner *Session) {
	w := weak.Make(owner)
	r.mu.Lock()
	var paths []string
	for k, f := range r.files {
		if f.owner == w {
			paths = append(paths, k)
		}
	}
	r.mu.Unlock()
	r.Release(paths...)
}

// registered reports whether p is in flight.
func (r *fileRegistry) registered(p string) bool {
	r.mu.Lock()
	_, ok := r.files[inflightKey(p)]
	r.mu.Unlock()
	return ok
}

// sweep is one delete_orphaned_files run's hold on the registry.
type sweep struct {
	r     *fileRegistry
	start uint64 // seq when the sweep began, before it listed storage
}

// beginSweep must come before the sweep lists storage; end must follow its
// last delete.
func (r *fileRegistry) beginSweep() *sweep {
	r.sweepMu.Lock()
	r.mu.Lock()
	r.sweeping = true
	sw := &sweep{r: r, start: r.seq}
	r.mu.Unlock()
	return sw
}

// prune drops the entries under dataPath that the sweep has shown to need
// no protection: the catalog names them, or they were visible before the
// listing and are not in it (deleted). listed holds the canonical paths of
// everything the sweep listed.
func (sw *sweep) prune(dataPath string, listed map[string]bool, named *snapshot.FileNames) {
	prefix := strings.TrimSuffix(inflightKey(dataPath), "/") + "/"
	r := sw.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, f := range r.files {
		if !strings.HasPrefix(k, prefix) {
			continue // another lake of this process
		}
		if named.Names(k) || (f.visible != 0 && f.visible <= sw.start && !listed[k]) {
			delete(r.files, k)
		}
	}
}

func (sw *sweep) end() {
	r := sw.r
	r.mu.Lock()
	r.sweeping = false
	for _, p := range r.deferred {
		delete(r.files, inflightKey(p))
	}
	r.deferred = nil
	r.mu.Unlock()
	r.sweepMu.Unlock()
}

// writeStore is the store a session writes new data and delete files
// through: the engine's, with every file it creates registered in flight.
// Reads keep using s.eng.Store (this wrapper hides its optional abilities).
func (s *Session) writeStore() storage.Backend {
	return trackingStore{Backend: s.eng.Store, owner: s}
}

// settled releases files the catalog now names, once the statement that
// wrote them has committed. Inside a transaction block nothing is committed
// before the block ends, so they stay in flight until releaseWrites.
func (s *Session) settled(paths ...string) {
	if s.inTx {
		return
	}
	inflight.Release(paths...)
}

// releaseWrites releases every file the session registered: at the end of a
// transaction block its files are committed or deleted, and nothing else
// of the session is writing.
func (s *Session) releaseWrites() { inflight.releaseOwner(s) }

func writtenPaths(ws ...*tableWrite) []string {
	var out []string
	for _, tw := range ws {
		if tw == nil {
			continue
		}
		for _, f := range tw.files {
			if f.WrittenFile != nil && f.Path != "" {
				out = append(out, f.Path)
			}
		}
	}
	return out
}

type trackingStore struct {
	storage.Backend
	owner *Session
}

func (t trackingStore) Create(ctx context.Context, p string) (storage.Writer, error) {
	inflight.add(t.owner, p)
	w, err := t.Backend.Create(ctx, p)
	if err != nil {
		inflight.Release(p)
		return nil, err
	}
	return &trackedWriter{Writer: w, path: p}, nil
}

func (t trackingStore) Delete(ctx context.Context, p string) error {
	err := t.Backend.Delete(ctx, p)
	if err == nil {
		inflight.Release(p)
	}
	return err
}

type trackedWriter struct {
	storage.Writer
	path    string
	visible bool
}

func (w *trackedWriter) Commit() error {
	err := w.Writer.Commit()
	if err == nil {
		w.visible = true
		inflight.markVisible(w.path)
	}
	return err
}

// Abort after a successful Commit is a no-op (storage.Writer), and the
// object it committed is still to be named by the catalog.
func (w *trackedWriter) Abort() error {
	err := w.Writer.Abort()
	if !w.visible {
		inflight.Release(w.path)
	}
	return err
}
