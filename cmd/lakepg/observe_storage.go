package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/snapshot"
	"github.com/lakepg/lakepg/storage"
)

// storageCollector exports the process-wide counters of the storage and
// snapshot packages at scrape time, so reads and commits cost the metrics
// nothing beyond the atomic adds those packages do anyway.
type storageCollector struct {
	readBytes, requests, retries, cacheHits, cacheMisses       *prometheus.Desc
	commits, conflicts, commitRetries                          *prometheus.Desc
	commitGroups, groupedCommits                               *prometheus.Desc
	catalogQueries, metaBytes, metaLoads, fileBytes, fileLoads *prometheus.Desc
}

func newStorageCollector() *storageCollector {
	return &storageCollector{
		readBytes: prometheus.NewDesc("lakepg_storage_read_bytes_total",
			"Bytes read from storage: local files (backend=local) and object storage GET bodies (backend=s3).", []string{"backend"}, nil),
		requests: prometheus.NewDesc("lakepg_storage_requests_total",
			"Storage requests: reads of local files (backend=local, op=read); HTTP requests to object storage by operation, retries included (backend=s3).", []string{"backend", "op"}, nil),
		retries: prometheus.NewDesc("lakepg_storage_retries_total",
			"Object storage requests that were attempts beyond the first.", nil, nil),
		cacheHits: prometheus.NewDesc("lakepg_storage_cache_hits_total",
			"Object storage reads served from a cache: memory (footers, recent ranges, speculative reads) or disk.", []string{"cache"}, nil),
		cacheMisses: prometheus.NewDesc("lakepg_storage_cache_misses_total",
			"Object storage reads that no cache could serve (each needed a GET).", nil, nil),
		commits: prometheus.NewDesc("lakepg_commits_total",
			"Snapshots committed (statements, transaction blocks and maintenance).", nil, nil),
		conflicts: prometheus.NewDesc("lakepg_commit_conflicts_total",
			"Commits that failed on a conflicting concurrent commit (SQLSTATE 40001), after any retries.", nil, nil),
		commitRetries: prometheus.NewDesc("lakepg_commit_retries_total",
			"Commit attempts retried on top of a snapshot another writer committed first.", nil, nil),
		commitGroups: prometheus.NewDesc("lakepg_commit_groups_total",
			"Catalog transactions that wrote several commits queued at the same moment at once (group commit).", nil, nil),
		groupedCommits: prometheus.NewDesc("lakepg_grouped_commits_total",
			"Commit attempts written in such a group transaction.", nil, nil),
		catalogQueries: prometheus.NewDesc("lakepg_catalog_queries_total",
			"Statements sent to a PostgreSQL catalog (transaction control included), each one round trip; SQLite catalogs are not counted.", nil, nil),
		metaBytes: prometheus.NewDesc("lakepg_metadata_cache_bytes",
			"Estimated memory held by the cache of catalog metadata (schemas, tables, columns, views per schema version).", nil, nil),
		fileBytes: prometheus.NewDesc("lakepg_file_list_cache_bytes",
			"Estimated memory held by the cache of tables' file lists, inlined rows and inlined deletes (at most 256 MiB).", nil, nil),
		fileLoads: prometheus.NewDesc("lakepg_file_list_loads_total",
			"Reads of a table's file list, inlined rows or inlined deletes: from the catalog (source=catalog) or from the cache (source=cache).", []string{"source"}, nil),
		metaLoads: prometheus.NewDesc("lakepg_metadata_loads_total",
			"Catalog metadata reads: the whole catalog (source=catalog), built from a cached snapshot and the tables created since (source=advanced), or reused from the cache for a snapshot of a cached schema version (source=cache).", []string{"source"}, nil),
	}
}

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.readBytes, c.requests, c.retries, c.cacheHits, c.cacheMisses, c.commits, c.conflicts, c.commitRetries, c.commitGroups, c.groupedCommits, c.catalogQueries, c.metaBytes, c.metaLoads, c.fileBytes, c.fileLoads} {
		ch <- d
	}
}

func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	st := storage.ReadStats()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	counter(c.readBytes, st.LocalBytesRead, "local")
	counter(c.readBytes, st.BytesFetched, "s3")
	counter(c.requests, st.LocalReads, "local", "read")
	counter(c.requests, st.GetRequests, "s3", "get")
	counter(c.requests, st.HeadRequests, "s3", "head")
	counter(c.requests, st.PutRequests, "s3", "put")
	counter(c.requests, st.ListRequests, "s3", "list")
	counter(c.requests, st.DeleteRequests, "s3", "delete")
	counter(c.retries, st.Retries)
	counter(c.cacheHits, st.MemoryHits, "memory")
	counter(c.cacheHits, st.DiskHits, "disk")
	counter(c.cacheMisses, st.Misses)
	cs := snapshot.ReadCommitStats()
	counter(c.commits, cs.Commits)
	counter(c.conflicts, cs.Conflicts)
	counter(c.commitRetries, cs.Retries)
	counter(c.commitGroups, cs.Groups)
	counter(c.groupedCommits, cs.GroupMembers)
	counter(c.catalogQueries, catalog.CatalogQueries())
	ms := catalog.ReadMetaCacheStats()
	ch <- prometheus.MustNewConstMetric(c.metaBytes, prometheus.GaugeValue, float64(ms.Bytes))
	counter(c.metaLoads, ms.Loads, "catalog")
	counter(c.metaLoads, ms.Advances, "advanced")
	counter(c.metaLoads, ms.Reused, "cache")
	fs := catalog.ReadFileCacheStats()
	ch <- prometheus.MustNewConstMetric(c.fileBytes, prometheus.GaugeValue, float64(fs.Bytes))
	counter(c.fileLoads, fs.Loads, "catalog")
	counter(c.fileLoads, fs.Hits, "cache")
}
