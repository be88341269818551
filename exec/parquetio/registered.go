package parquetio

import (
	"encoding/binary"
	"strings"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// What registering an existing Parquet file in a lake (ducklake_add_data_files)
// needs from it besides its rows: the footer length the catalog records, the
// compressed size of each top-level column, and statistics in DuckLake's
// text form computed from the values themselves (footer statistics are
// optional, may be truncated and use the file's types, not the table's).

// FooterSize is the length of the file's footer (the value before the
// trailing magic), as ducklake_data_file.footer_size records it.
func (f *File) FooterSize() int64 {
	var tail [8]byte
	if err := readFull(f.r, tail[:], f.size-8); err != nil {
		return 0
	}
	return int64(binary.LittleEndian.Uint32(tail[:4]))
}

// ColumnBytes is the compressed size of the chunks of the top-level column
// named name (case-insensitively), over all row groups; 0 if none.
func (f *File) ColumnBytes(name string) int64 {
	var n int64
	for i := range f.top {
		tf := &f.top[i]
		if !strings.EqualFold(tf.elem.name, name) || tf.leaf < 0 {
			continue
		}
		for _, g := range f.meta.rowGroups {
			n += g.columns[tf.leaf].totalCompressed
		}
	}
	return n
}

// StatsAcc accumulates one column's DuckLake statistics from its values.
type StatsAcc struct{ a statAcc }

// NewStatsAcc starts the statistics of a column of type t.
func NewStatsAcc(t types.T) *StatsAcc { return &StatsAcc{a: statAcc{t: t}} }

// Add takes rows [0, n) of v.
func (s *StatsAcc) Add(v *vec.Vector, n int) { s.a.add(v, 0, n) }

// Result is the ducklake_file_column_stats row of column fieldID.
func (s *StatsAcc) Result(fieldID int32, size int64) ColumnStats { return s.a.result(fieldID, size) }
