package storage

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// diskCache keeps ranges read from object storage as files in a local
// directory, within a byte limit, least recently used first out. A file is
// named <hash of object identity>-<offset>-<length>, so the index is rebuilt
// from the directory at start-up and a cache survives restarts. Identities
// include the ETag and size, so a replaced object never serves old bytes.
type diskCache struct {
	dir         string
	mu          sync.Mutex
	limit, used int64
	lru         list.List // of *diskEntry, most recent at the front
	byObj       map[string][]*diskEntry
	seq         int
}

type diskEntry struct {
	obj      string // hash of the identity
	off, n   int64
	elem     *list.Element
	modTime  time.Time // at start-up, for the initial LRU order
	fileName string
}

func openDiskCache(dir string, limit int64) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: cache directory: %w", err)
	}
	c := &diskCache{dir: dir, limit: limit, byObj: map[string][]*diskEntry{}}
	var found []*diskEntry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".tmp-") {
			os.Remove(p) // a write interrupted by a crash
			return nil
		}
		e, ok := parseCacheName(name)
		if !ok || filepath.Base(filepath.Dir(p)) != e.obj[:2] {
			return nil // not ours: leave it alone
		}
		info, err := d.Info()
		if err != nil || info.Size() != e.n {
			os.Remove(p)
			return nil
		}
		e.modTime = info.ModTime()
		found = append(found, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: cache directory: %w", err)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].modTime.Before(found[j].modTime) })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range found {
		c.add(e)
	}
	c.evictLocked()
	return c, nil
}

func cacheObjHash(obj string) string {
	h := sha256.Sum256([]byte(obj))
	return hex.EncodeToString(h[:16])
}

func parseCacheName(name string) (*diskEntry, bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 || len(parts[0]) != 32 {
		return nil, false
	}
	off, err1 := strconv.ParseInt(parts[1], 10, 64)
	n, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || off < 0 || n <= 0 {
		return nil, false
	}
	return &diskEntry{obj: parts[0], off: off, n: n, fileName: name}, true
}

func (c *diskCache) path(e *diskEntry) string {
	return filepath.Join(c.dir, e.obj[:2], e.fileName)
}

// add registers e as the most recently used entry.
func (c *diskCache) add(e *diskEntry) {
	e.elem = c.lru.PushFront(e)
	c.byObj[e.obj] = append(c.byObj[e.obj], e)
	c.used += e.n
}

func (c *diskCache) evictLocked() {
	for c.used > c.limit && c.lru.Len() > 0 {
		e := c.lru.Back().Value.(*diskEntry)
		c.drop(e)
		os.Remove(c.path(e))
	}
}

func (c *diskCache) drop(e *diskEntry) {
	c.lru.Remove(e.elem)
	c.used -= e.n
	l := c.byObj[e.obj]
	for i, x := range l {
		if x == e {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(c.byObj, e.obj)
	} else {
		c.byObj[e.obj] = l
	}
}

// has reports whether [off, off+n) of obj is cached.
func (c *diskCache) has(obj string, off, n int64) bool {
	if c == nil {
		return false
	}
	h := cacheObjHash(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.byObj[h] {
		if off >= e.off && off+n <= e.off+e.n {
			return true
		}
	}
	return false
}

// get fills p with [off, off+len(p)) of obj if one cached file holds it.
func (c *diskCache) get(obj string, off int64, p []byte) bool {
	if c == nil {
		return false
	}
	h := cacheObjHash(obj)
	c.mu.Lock()
	var hit *diskEntry
	for _, e := range c.byObj[h] {
		if off >= e.off && off+int64(len(p)) <= e.off+e.n {
			hit = e
			c.lru.MoveToFront(e.elem)
			break
		}
	}
	c.mu.Unlock()
	if hit == nil {
		return false
	}
	f, err := os.Open(c.path(hit))
	if err == nil {
		_, err = f.ReadAt(p, off-hit.off)
		f.Close()
	}
	if err != nil {
		// Removed behind our back or unreadable: forget it and fetch again.
		c.mu.Lock()
		if hit.elem != nil && c.lru.Len() > 0 {
			for _, e := range c.byObj[h] {
				if e == hit {
					c.drop(hit)
					break
				}
			}
		}
		c.mu.Unlock()
		return false
	}
	return true
}

// put stores data as [off, off+len) of obj. Failures only cost a later
// miss, so they are not reported.
func (c *diskCache) put(obj string, off int64, data []byte) {
	if c == nil || len(data) == 0 || int64(len(data)) > c.limit/8 {
		return
	}
	h := cacheObjHash(obj)
	e := &diskEntry{obj: h, off: off, n: int64(len(data)), fileName: fmt.Sprintf("%s-%d-%d", h, off, len(data))}
	c.mu.Lock()
	for _, x := range c.byObj[h] {
		if off >= x.off && off+e.n <= x.off+x.n {
			c.mu.Unlock()
			return
		}
	}
	c.seq++
	tmp := filepath.Join(c.dir, h[:2], fmt.Sprintf(".tmp-%d-%d", os.Getpid(), c.seq))
	c.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(tmp), 0o755); err != nil {
		return
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, c.path(e)); err != nil {
		os.Remove(tmp)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.byObj[h] {
		if x.off == e.off && x.n == e.n {
			return // a concurrent put of the same range won; the file is the same
		}
	}
	c.add(e)
	c.evictLocked()
}
