package snapshot

import "slices"

// What a transaction has staged so far, for its own reads: a transaction
// block keeps one Commit open across statements, and every statement in
// it must see the block's earlier writes.

// AddedFiles are the data files staged for table tableID, in order.
func (c *Commit) AddedFiles(tableID int64) []NewDataFile {
	var out []NewDataFile
	for _, a := range c.addedFiles {
		if a.tableID == tableID {
			out = append(out, a.f)
		}
	}
	return out
}

// ReplaceAddedFiles swaps a staged data file of table tableID (found by
// its relative path) for fs, in its place among the added files: rows a
// transaction wrote and then changed again are rewritten, never given
// delete files. No files unstage it; several hold rows an UPDATE moved to
// other partitions. It reports whether the file was found.
func (c *Commit) ReplaceAddedFiles(tableID int64, relPath string, fs []NewDataFile) bool {
	for i, a := range c.addedFiles {
		if a.tableID != tableID || a.f.RelPath != relPath {
			continue
		}
		repl := make([]addedFile, len(fs))
		for k, f := range fs {
			repl[k] = addedFile{tableID: tableID, f: f}
		}
		c.addedFiles = slices.Replace(c.addedFiles, i, i+1, repl...)
		return true
	}
	return false
}

// Kept are the storage paths of the files the commit will name: those
// staged for tables it does not drop (files without a known path left out).
func (c *Commit) Kept() []string {
	var out []string
	for _, a := range c.addedFiles {
		if a.f.Path != "" && !c.dropsTable(a.tableID) {
			out = append(out, a.f.Path)
		}
	}
	for _, r := range c.replaced {
		if r.f.Path != "" && !c.dropsTable(r.tableID) {
			out = append(out, r.f.Path)
		}
	}
	return out
}

// Discarded are the storage paths of files staged for tables the commit
// then drops: no catalog row will name them, so once the commit has
// succeeded they are garbage (a transaction block that fills a table and
// drops it, or drops its schema).
func (c *Commit) Discarded() []string {
	var out []string
	for _, a := range c.addedFiles {
		if a.f.Path != "" && c.dropsTable(a.tableID) {
			out = append(out, a.f.Path)
		}
	}
	for _, r := range c.replaced {
		if r.f.Path != "" && c.dropsTable(r.tableID) {
			out = append(out, r.f.Path)
		}
	}
	return out
}

// StagedDelete is the delete file staged for data file dataFileID.
func (c *Commit) StagedDelete(dataFileID int64) (NewDeleteFile, bool) {
	for _, r := range c.replaced {
		if r.df.ID == dataFileID {
			return r.f, true
		}
	}
	return NewDeleteFile{}, false
}

// Ended reports whether data file dataFileID is staged to be ended (all its
// rows deleted).
func (c *Commit) Ended(dataFileID int64) bool {
	for _, e := range c.ended {
		if e.df.ID == dataFileID {
			return true
		}
	}
	return false
}

// InlinedDeleted are the inlined rows of table tableID staged for deletion,
// by inlined-data table.
func (c *Commit) InlinedDeleted(tableID int64) map[string][]int64 {
	var out map[string][]int64
	for _, d := range c.inlinedDeletes {
		if d.tableID == tableID {
			if out == nil {
				out = map[string][]int64{}
			}
			out[d.table] = append(out[d.table], d.rowIDs...)
		}
	}
	return out
}
