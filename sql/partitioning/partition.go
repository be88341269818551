// Package partitioning owns DuckLake partition keys as the writer uses them:
// the transforms (identity, year, month, day, hour, bucket(N) and DuckLake
// 1.1's epoch_year/month/day/hour) as DuckDB's ducklake extension defines them, the text form of partition values it
// stores, and the hive-style directories the files go to.
package partitioning

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Partition transforms as DuckDB's ducklake extension defines them (notes
// §8): identity keeps the value; year, month, day and hour are the
// calendar fields DuckDB's year(), month(), day() and hour() return (not
// Iceberg's epoch offsets); bucket(N) is Iceberg's
// (murmur3_x86_32(v) & 0x7fffffff) % N over DuckDB's byte form of v.
// Timestamps with time zone are split in the writing session's TimeZone,
// as DuckDB splits them in its own (identity values are written in UTC, as
// DuckDB's are), so pruning of timestamptz calendar keys allows for any
// offset (partition_prune.go).
//
// epoch_year, epoch_month, epoch_day and epoch_hour (DuckLake 1.1 only)
// are Iceberg's: whole years, months, days or hours from 1970-01-01 00:00
// to the value, floored (1969-12-31 23:30 is hour -1), a timestamptz taken
// at its UTC instant whatever the session's TimeZone, as DuckDB 2.0
// computes them with date_diff(part, DATE '1970-01-01', v).

type Transform uint8

const (
	Identity Transform = iota
	Year
	Month
	Day
	Hour
	Bucket
	EpochYear
	EpochMonth
	EpochDay
	EpochHour
)

var transformNames = [...]string{Identity: "identity", Year: "year", Month: "month", Day: "day", Hour: "hour", Bucket: "bucket",
	EpochYear: "epoch_year", EpochMonth: "epoch_month", EpochDay: "epoch_day", EpochHour: "epoch_hour"}

// Epoch reports whether kind is one of DuckLake 1.1's epoch transforms.
func (kind Transform) Epoch() bool { return kind >= EpochYear && kind <= EpochHour }

// IsEpochTransform reports whether a ducklake_partition_column.transform
// value is an epoch transform, which only a DuckLake 1.1 catalog may hold.
func IsEpochTransform(s string) bool {
	kind, _, ok := ParseTransform(s)
	return ok && kind.Epoch()
}

// ParseTransform reads a ducklake_partition_column.transform value.
func ParseTransform(s string) (kind Transform, buckets int64, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for k, name := range transformNames {
		if s == name && Transform(k) != Bucket {
			return Transform(k), 0, true
		}
	}
	if strings.HasPrefix(s, "bucket(") && strings.HasSuffix(s, ")") {
		n, err := strconv.ParseInt(strings.TrimSpace(s[len("bucket("):len(s)-1]), 10, 64)
		if err == nil && n > 0 && n <= math.MaxInt32 {
			return Bucket, n, true
		}
	}
	return 0, 0, false
}

// Key is one partition key resolved against the table's columns.
type Key struct {
	Col     int // position in the table's columns
	Kind    Transform
	Buckets int64
	T       types.T // the source column's type
	DLType  string  // its DuckLake type (bucket hashing follows DuckDB's physical type)
	Dir     string  // the hive directory name
	// Loc is the writing session's TimeZone: DuckDB takes year, month, day
	// and hour of a timestamptz in its session TimeZone (nil: UTC)
	Loc *time.Location
}

// Keys resolves a spec's keys; ok is false when a key names a
// column the table no longer has or a transform lakepg does not know (the
// table then cannot be written partitioned, and is not pruned by it).
func Keys(t *catalog.Table, spec *catalog.PartitionSpec) (keys []Key, err error) {
	used := map[string]bool{}
	for _, k := range spec.Keys {
		kind, n, ok := ParseTransform(k.Transform)
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "partition transform \"%s\" of table \"%s\" is not supported", k.Transform, t.Name)
		}
		col := -1
		for i, c := range t.Columns {
			if c.ID == k.ColumnID {
				col = i
			}
		}
		if col < 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "partition key %d of table \"%s\" names column id %d, which the table does not have", k.Index, t.Name, k.ColumnID)
		}
		c := t.Columns[col]
		ty, err := types.FromDuckLake(c.Type)
		if err != nil {
			return nil, err
		}
		// DuckDB's GetPartitionKeyName: the column for identity, else the
		// transform, with "_<column>" added when the name is taken, and
		// then "_2", "_3", ... until it is free
		dir := transformNames[kind]
		if kind == Identity {
			dir = c.Name
		}
		if used[strings.ToLower(dir)] {
			dir += "_" + c.Name
			for n, base := 2, dir; used[strings.ToLower(dir)]; n++ {
				dir = base + "_" + strconv.Itoa(n)
			}
		}
		used[strings.ToLower(dir)] = true
		keys = append(keys, Key{Col: col, Kind: kind, Buckets: n, T: ty, DLType: strings.ToLower(c.Type), Dir: dir})
	}
	return keys, nil
}

// CheckWritable reports whether lakepg can compute k's values for writing.
func (k *Key) CheckWritable(colName string) error {
	switch k.Kind {
	case Year, Month, Day, Hour, EpochYear, EpochMonth, EpochDay, EpochHour:
		if k.T.ID != types.Date && k.T.ID != types.Timestamp && k.T.ID != types.Timestamptz {
			return pgerr.New(pgerr.DatatypeMismatch, "partition transform %s needs a date or timestamp column, \"%s\" is %s", transformNames[k.Kind], colName, k.T)
		}
	case Identity:
		if k.T.ID == types.Interval {
			return pgerr.New(pgerr.FeatureNotSupported, "partitioning by an interval column (\"%s\") is not supported", colName)
		}
	case Bucket:
		if _, ok := bucketHashable(k.T, k.DLType); !ok {
			return pgerr.New(pgerr.FeatureNotSupported, "bucket partitioning of column \"%s\" (%s) is not supported", colName, k.T)
		}
	}
	return nil
}

// value computes key k's partition value of row i of v as text, as DuckDB
// writes ducklake_file_partition_value; null reports a NULL value.
func (k *Key) Value(dst []byte, v *vec.Vector, i int) (out []byte, null bool) {
	if v.IsNull(i) {
		return dst, true
	}
	switch k.Kind {
	case Identity:
		return AppendDuckText(dst, v, i), false
	case Bucket:
		h, ok := BucketHash(v, i, k.DLType)
		if !ok {
			return dst, true
		}
		return strconv.AppendInt(dst, int64(h&0x7fffffff)%k.Buckets, 10), false
	case EpochYear, EpochMonth, EpochDay, EpochHour:
		f, ok := EpochField(k.Kind, v.Type.ID, v.I64[i])
		if !ok {
			return dst, true
		}
		return strconv.AppendInt(dst, f, 10), false
	}
	f, ok := CalendarField(k.Kind, v.Type.ID, v.I64[i], k.Loc)
	if !ok {
		return dst, true
	}
	return strconv.AppendInt(dst, f, 10), false
}

// CalendarField is year, month, day (of month) or hour of a date (days) or
// timestamp (microseconds; a timestamptz in loc, nil meaning UTC); infinite
// values have none, as DuckDB's year(infinity) is NULL.
func CalendarField(kind Transform, id types.ID, x int64, loc *time.Location) (int64, bool) {
	var tm time.Time
	switch id {
	case types.Date:
		tm = time.Unix(x*86400, 0).UTC()
	case types.Timestamp, types.Timestamptz:
		if x == types.InfinityMicros || x == types.NegInfinityMicros {
			return 0, false
		}
		tm = time.UnixMicro(x).UTC()
		if id == types.Timestamptz && loc != nil {
			tm = tm.In(loc)
		}
	default:
		return 0, false
	}
	switch kind {
	case Year:
		return int64(tm.Year()), true
	case Month:
		return int64(tm.Month()), true
	case Day:
		return int64(tm.Day()), true
	case Hour:
		return int64(tm.Hour()), true
	}
	return 0, false
}

// EpochField is an epoch transform of a date (days) or timestamp
// (microseconds; a timestamptz at its UTC instant): the whole years,
// months, days or hours since 1970-01-01, floored. Infinite values have
// none.
func EpochField(kind Transform, id types.ID, x int64) (int64, bool) {
	var days, hours int64
	switch id {
	case types.Date:
		if x >= types.DateInfinity || x <= types.DateNegInfinity {
			return 0, false
		}
		days, hours = x, x*24
	case types.Timestamp, types.Timestamptz:
		if x == types.InfinityMicros || x == types.NegInfinityMicros {
			return 0, false
		}
		days, hours = FloorDiv(x, microsPerDay), FloorDiv(x, microsPerHour)
	default:
		return 0, false
	}
	switch kind {
	case EpochDay:
		return days, true
	case EpochHour:
		return hours, true
	}
	tm := time.Unix(days*86400, 0).UTC()
	years := int64(tm.Year()) - 1970
	if kind == EpochYear {
		return years, true
	}
	return years*12 + int64(tm.Month()) - 1, true
}

const (
	microsPerHour = int64(time.Hour / time.Microsecond)
	microsPerDay  = 24 * microsPerHour
)

// EpochRange is the inclusive range of a column's values (days for a date,
// microseconds for timestamps, a timestamptz's UTC instant) whose epoch
// transform kind is n; ok is false when the range does not fit.
func EpochRange(kind Transform, id types.ID, n int64) (lo, hi int64, ok bool) {
	const maxYears = 300000 // beyond any date or timestamp PostgreSQL holds
	var start, end time.Time
	switch kind {
	case EpochYear:
		if n < -maxYears || n > maxYears {
			return 0, 0, false
		}
		start = time.Date(1970+int(n), 1, 1, 0, 0, 0, 0, time.UTC)
		end = start.AddDate(1, 0, 0)
	case EpochMonth:
		if n < -12*maxYears || n > 12*maxYears {
			return 0, 0, false
		}
		y, m := FloorDiv(n, 12), n-12*FloorDiv(n, 12)
		start = time.Date(1970+int(y), time.Month(m+1), 1, 0, 0, 0, 0, time.UTC)
		end = start.AddDate(0, 1, 0)
	case EpochDay:
		if n < -366*maxYears || n > 366*maxYears {
			return 0, 0, false
		}
		if id == types.Date {
			return n, n, true
		}
		return n * microsPerDay, (n+1)*microsPerDay - 1, true
	case EpochHour:
		if n < -366*24*maxYears || n > 366*24*maxYears {
			return 0, 0, false
		}
		if id == types.Date {
			// a date is its midnight, so its hour is a multiple of 24; a
			// partition of another hour proves nothing lakepg can use
			if n%24 != 0 {
				return 0, 0, false
			}
			return n / 24, n / 24, true
		}
		return n * microsPerHour, (n+1)*microsPerHour - 1, true
	default:
		return 0, 0, false
	}
	if id == types.Date {
		return FloorDiv(start.Unix(), 86400), FloorDiv(end.Unix(), 86400) - 1, true
	}
	return start.UnixMicro(), end.UnixMicro() - 1, true
}

// AppendDuckText appends DuckDB's text of a value (Value::ToString), which
// is what DuckDB stores as an identity partition value.
func AppendDuckText(dst []byte, v *vec.Vector, i int) []byte {
	switch v.Type.ID {
	case types.Bool:
		if v.B[i] {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case types.Float32:
		return appendDuckFloat(dst, v.F64[i], 32)
	case types.Float64:
		return appendDuckFloat(dst, v.F64[i], 64)
	case types.Bytea:
		return appendDuckBlob(dst, v.S[i])
	case types.Timestamp, types.Timestamptz:
		switch v.I64[i] {
		case types.InfinityMicros:
			return append(dst, "infinity"...)
		case types.NegInfinityMicros:
			return append(dst, "-infinity"...)
		}
	}
	// integers, numeric, text, uuid, date and timestamps print as in
	// PostgreSQL (timestamptz in UTC, "+00")
	return v.AppendText(dst, i, time.UTC)
}

// appendDuckFloat prints a float as DuckDB does: the shortest text that
// reads back to the same value, in positional notation with at least one
// decimal for exponents -4..15, else in exponent form (1e+20).
func appendDuckFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return append(dst, e...)
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	dst = append(dst, s...)
	if !strings.ContainsAny(s, ".") {
		dst = append(dst, ".0"...)
	}
	return dst
}

// appendDuckBlob prints bytes as DuckDB's BLOB text: printable ASCII as is,
// other bytes and the quote and backslash characters as \xNN.
func appendDuckBlob(dst []byte, b string) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < 32 || c > 126 || c == '\\' || c == '"' || c == '\'' {
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// HiveValue escapes a partition value for a directory name as DuckDB does:
// everything but ASCII letters, digits and -_.~ is percent-encoded (UTF-8,
// upper-case hex); NULL is __HIVE_DEFAULT_PARTITION__.
func HiveValue(dst []byte, v *string) []byte {
	if v == nil {
		return append(dst, "__HIVE_DEFAULT_PARTITION__"...)
	}
	return hiveEscape(dst, *v)
}

func hiveEscape(dst []byte, s string) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			dst = append(dst, c)
			continue
		}
		dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
	}
	return dst
}

// HivePath is the directory (relative to the table's, ending in '/') of a
// file holding the partition with these values.
func HivePath(keys []Key, values []*string) string {
	var b []byte
	for i, k := range keys {
		b = hiveEscape(b, k.Dir)
		b = append(b, '=')
		b = HiveValue(b, values[i])
		b = append(b, '/')
	}
	return string(b)
}

// bucketForm is how DuckDB's murmur3_32 reads a value: by its physical
// type, integers (dates, timestamps, decimals and booleans included) as an
// 8-byte little-endian long, floats as the long bits of the double,
// strings and blobs as their bytes, anything else as its text.
type bucketForm uint8

const (
	bucketLong bucketForm = iota
	bucketDouble
	bucketBytes
	bucketText
	bucketScaled // timestamp_s/_ms/_ns: DuckDB's long is in that unit
)

// bucketHashable reports how a column of type t (DuckLake type dl) is
// hashed; ok is false for types lakepg cannot hash as DuckDB does.
func bucketHashable(t types.T, dl string) (bucketForm, bool) {
	switch {
	case strings.HasPrefix(dl, "uint"):
		return bucketText, t.Storage() == types.StoreInt
	case dl == "timestamp_s" || dl == "timestamp_ms" || dl == "timestamp_ns":
		return bucketScaled, true
	}
	switch t.ID {
	case types.Bool, types.Int16, types.Int32, types.Int64, types.Date, types.Timestamp, types.Timestamptz:
		return bucketLong, true
	case types.Numeric:
		// DuckDB decimals up to 18 digits are integers; wider ones hash
		// their text, which lakepg cannot hold anyway
		return bucketLong, t.Scale >= 0
	case types.Float32, types.Float64:
		return bucketDouble, true
	case types.Text, types.Bytea:
		return bucketBytes, true
	case types.UUID:
		return bucketText, true
	}
	return 0, false
}

// BucketHash is DuckDB's murmur3_32 of row i of v.
func BucketHash(v *vec.Vector, i int, dl string) (int32, bool) {
	form, ok := bucketHashable(v.Type, dl)
	if !ok {
		return 0, false
	}
	var buf [8]byte
	switch form {
	case bucketLong:
		x := int64(0)
		if v.Type.ID == types.Bool {
			if v.B[i] {
				x = 1
			}
		} else {
			x = v.I64[i]
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		return murmur3(buf[:]), true
	case bucketScaled:
		x := v.I64[i]
		switch dl {
		case "timestamp_s":
			x = FloorDiv(x, 1000000)
		case "timestamp_ms":
			x = FloorDiv(x, 1000)
		case "timestamp_ns":
			x *= 1000
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		return murmur3(buf[:]), true
	case bucketDouble:
		f := v.F64[i]
		if f == 0 {
			f = 0 // -0.0 hashes as 0.0
		}
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(f))
		return murmur3(buf[:]), true
	case bucketBytes:
		return murmur3([]byte(v.S[i])), true
	}
	if v.Type.ID == types.UUID {
		return murmur3(types.AppendUUID(nil, v.S[i])), true
	}
	return murmur3(strconv.AppendInt(nil, v.I64[i], 10)), true
}

func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// murmur3 is MurmurHash3's x86 32-bit variant with seed 0, the hash
// Iceberg and DuckLake bucket by.
func murmur3(data []byte) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	var h uint32
	n := len(data)
	for len(data) >= 4 {
		k := binary.LittleEndian.Uint32(data)
		data = data[4:]
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) {
	case 3:
		k ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[0])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}
