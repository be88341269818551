package storage

import (
	"container/list"
	"sync"
)

// rangeCache keeps byte ranges of immutable objects in memory, least
// recently used first out, within a byte limit. Entries are keyed by an
// object identity (path plus ETag and size, so a replaced object never
// serves old bytes) and an offset; a read is served by any one entry that
// contains it. Entry slices are never modified after insertion, so readers
// copy from them without holding the lock.
type rangeCache struct {
	mu          sync.Mutex
	limit, used int64
	lru         list.List // of *rangeEntry, most recent at the front
	byObj       map[string][]*rangeEntry
}

type rangeEntry struct {
	obj  string
	off  int64
	data []byte
	elem *list.Element
}

func newRangeCache(limit int64) *rangeCache {
	return &rangeCache{limit: limit, byObj: map[string][]*rangeEntry{}}
}

// get returns the cached bytes [off, off+n) of obj, if one entry holds them
// all. The slice aliases the entry: read it, never write it.
func (c *rangeCache) get(obj string, off int64, n int) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.byObj[obj] {
		if off >= e.off && off+int64(n) <= e.off+int64(len(e.data)) {
			c.lru.MoveToFront(e.elem)
			s := off - e.off
			return e.data[s : s+int64(n)], true
		}
	}
	return nil, false
}

// put stores data (which the cache now owns) as [off, off+len) of obj.
// Ranges larger than an eighth of the limit are not kept: one big column
// chunk must not flush everything else.
func (c *rangeCache) put(obj string, off int64, data []byte) {
	if c == nil || len(data) == 0 {
		return
	}
	size := int64(len(data))
	if size > c.limit/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.byObj[obj] {
		if off >= e.off && off+size <= e.off+int64(len(e.data)) {
			c.lru.MoveToFront(e.elem)
			return
		}
	}
	e := &rangeEntry{obj: obj, off: off, data: data}
	e.elem = c.lru.PushFront(e)
	c.byObj[obj] = append(c.byObj[obj], e)
	c.used += size
	for c.used > c.limit {
		c.evict(c.lru.Back().Value.(*rangeEntry))
	}
}

func (c *rangeCache) evict(e *rangeEntry) {
	c.lru.Remove(e.elem)
	c.used -= int64(len(e.data))
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

// footerCache keeps the tail of recently opened objects (which holds a
// Parquet footer) by path, with the ETag and size it was read at, so the
// next Open revalidates it with a conditional request that transfers
// nothing when the object is unchanged, and the next OpenSized with the same
// size needs no request at all. It is separate from rangeCache so a
// large scan's column chunks cannot push out the footers every later query
// needs first.
type footerCache struct {
	mu          sync.Mutex
	limit, used int64
	lru         list.List // of *footer
	byPath      map[string]*footer
}

// footer is an object's tail: data holds [size-len(data), size).
type footer struct {
	path string
	etag string
	size int64
	data []byte
	elem *list.Element
}

func newFooterCache(limit int64) *footerCache {
	return &footerCache{limit: limit, byPath: map[string]*footer{}}
}

func (c *footerCache) get(path string) (*footer, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.byPath[path]
	if ok {
		c.lru.MoveToFront(f.elem)
	}
	return f, ok
}

func (c *footerCache) put(f *footer) {
	if c == nil || f.etag == "" || int64(len(f.data)) > c.limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byPath[f.path]; ok {
		c.remove(old)
	}
	f.elem = c.lru.PushFront(f)
	c.byPath[f.path] = f
	c.used += int64(len(f.data))
	for c.used > c.limit {
		c.remove(c.lru.Back().Value.(*footer))
	}
}

func (c *footerCache) remove(f *footer) {
	c.lru.Remove(f.elem)
	delete(c.byPath, f.path)
	c.used -= int64(len(f.data))
}
