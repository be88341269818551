package storage

import "sync/atomic"

// Stats counts the work of the object-storage backend since the process
// started: HTTP requests as sent (each retry counts), the bytes they moved,
// and how reads were served; and the reads of local files. Metrics and
// benchmarks read it with ReadStats; counters only grow, so a caller
// measures an interval as a difference.
type Stats struct {
	GetRequests    int64 // GetObject, ranged or whole
	HeadRequests   int64 // HeadObject
	PutRequests    int64 // PutObject, UploadPart and the multipart create/complete/abort calls
	ListRequests   int64 // ListObjectsV2 pages
	DeleteRequests int64 // DeleteObject
	Retries        int64 // attempts beyond the first of any request
	BytesFetched   int64 // body bytes received from GETs
	BytesUploaded  int64 // body bytes sent by PUTs and parts

	LocalReads     int64 // ReadAt calls on local files
	LocalBytesRead int64 // bytes they returned

	MemoryHits int64 // ReadAt calls served from the in-memory cache or an earlier speculative read
	DiskHits   int64 // ReadAt calls served from the disk cache
	Misses     int64 // ReadAt calls that needed a GET
}

// Requests is the total number of HTTP requests.
func (s Stats) Requests() int64 {
	return s.GetRequests + s.HeadRequests + s.PutRequests + s.ListRequests + s.DeleteRequests
}

// Sub returns s - o, the counts of an interval.
func (s Stats) Sub(o Stats) Stats {
	return Stats{
		GetRequests: s.GetRequests - o.GetRequests, HeadRequests: s.HeadRequests - o.HeadRequests,
		PutRequests: s.PutRequests - o.PutRequests, ListRequests: s.ListRequests - o.ListRequests,
		DeleteRequests: s.DeleteRequests - o.DeleteRequests, Retries: s.Retries - o.Retries,
		BytesFetched: s.BytesFetched - o.BytesFetched, BytesUploaded: s.BytesUploaded - o.BytesUploaded,
		MemoryHits: s.MemoryHits - o.MemoryHits, DiskHits: s.DiskHits - o.DiskHits, Misses: s.Misses - o.Misses,
		LocalReads: s.LocalReads - o.LocalReads, LocalBytesRead: s.LocalBytesRead - o.LocalBytesRead,
	}
}

type counters struct {
	get, head, put, list, del, retries atomic.Int64
	fetched, uploaded                  atomic.Int64
	memHits, diskHits, misses          atomic.Int64
	localReads, localBytes             atomic.Int64
}

var stats counters

// ReadStats returns the current counters.
func ReadStats() Stats {
	return Stats{
		GetRequests: stats.get.Load(), HeadRequests: stats.head.Load(), PutRequests: stats.put.Load(),
		ListRequests: stats.list.Load(), DeleteRequests: stats.del.Load(), Retries: stats.retries.Load(),
		BytesFetched: stats.fetched.Load(), BytesUploaded: stats.uploaded.Load(),
		MemoryHits: stats.memHits.Load(), DiskHits: stats.diskHits.Load(), Misses: stats.misses.Load(),
		LocalReads: stats.localReads.Load(), LocalBytesRead: stats.localBytes.Load(),
	}
}

// countAttempt records one HTTP attempt of an S3 operation.
func countAttempt(op string, attempt int) {
	if attempt > 1 {
		stats.retries.Add(1)
	}
	switch op {
	case "GetObject":
		stats.get.Add(1)
	case "HeadObject", "HeadBucket":
		stats.head.Add(1)
	case "PutObject", "UploadPart", "CreateMultipartUpload", "CompleteMultipartUpload", "AbortMultipartUpload":
		stats.put.Add(1)
	case "ListObjectsV2":
		stats.list.Add(1)
	case "DeleteObject":
		stats.del.Add(1)
	}
}
