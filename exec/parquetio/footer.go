package parquetio

// Decoding of the Parquet FileMetaData (the footer) into the few fields the
// reader needs. Field numbers follow parquet.thrift.

// Physical types.
const (
	physBoolean   = 0
	physInt32     = 1
	physInt64     = 2
	physInt96     = 3
	physFloat     = 4
	physDouble    = 5
	physByteArray = 6
	physFixed     = 7
)

// Converted (legacy logical) types.
const (
	convUTF8            = 0
	convDecimal         = 5
	convDate            = 6
	convTimeMillis      = 7
	convTimeMicros      = 8
	convTimestampMillis = 9
	convTimestampMicros = 10
	convUint8           = 11
	convUint16          = 12
	convUint32          = 13
	convUint64          = 14
	convInt8            = 15
	convInt16           = 16
	convInt32           = 17
	convInt64           = 18
	convJSON            = 19
	convInterval        = 21
)

// Repetition types.
const (
	repRequired = 0
	repOptional = 1
	repRepeated = 2
)

// Encodings.
const (
	encPlain             = 0
	encPlainDictionary   = 2
	encRLE               = 3
	encBitPacked         = 4
	encDeltaBinaryPacked = 5
	encDeltaLengthBytes  = 6
	encDeltaBytes        = 7
	encRLEDictionary     = 8
	encByteStreamSplit   = 9
)

// Compression codecs.
const (
	codecUncompressed = 0
	codecSnappy       = 1
	codecGzip         = 2
	codecLZO          = 3
	codecBrotli       = 4
	codecLZ4          = 5
	codecZstd         = 6
	codecLZ4Raw       = 7
)

// Logical type union members.
const (
	logString    = 1
	logMap       = 2
	logList      = 3
	logEnum      = 4
	logDecimal   = 5
	logDate      = 6
	logTime      = 7
	logTimestamp = 8
	logInteger   = 10
	logUnknown   = 11
	logJSON      = 12
	logBSON      = 13
	logUUID      = 14
	logFloat16   = 15
)

// Time units.
const (
	unitNone   = 0
	unitMillis = 1
	unitMicros = 2
	unitNanos  = 3
)

type logicalType struct {
	kind      int16 // union member id, 0 = none
	decScale  int32
	decPrec   int32
	utc       bool
	unit      int8
	intBits   int8
	intSigned bool
}

type schemaElem struct {
	name         string
	typ          int32
	hasType      bool
	typeLen      int32
	rep          int32
	hasRep       bool
	numChildren  int32
	converted    int32
	hasConverted bool
	scale        int32
	precision    int32
	fieldID      int32
	hasFieldID   bool
	logical      logicalType
}

type statsMeta struct {
	max, min           []byte // deprecated, signed order
	hasMax, hasMin     bool
	maxValue, minValue []byte
	hasMaxV, hasMinV   bool
	nullCount          int64
	hasNullCount       bool
}

type chunkMeta struct {
	filePath          string
	typ               int32
	codec             int32
	numValues         int64
	totalUncompressed int64
	totalCompressed   int64
	dataPageOffset    int64
	dictPageOffset    int64
	hasDictOffset     bool
	stats             statsMeta
	hasStats          bool
	encrypted         bool
	// page index (pageindex.go): where the chunk's offset and column
	// indexes are; zero lengths when the writer wrote none
	offsetIndexOff, columnIndexOff int64
	offsetIndexLen, columnIndexLen int32
}

type rowGroupMeta struct {
	columns []chunkMeta
	numRows int64
}

type fileMeta struct {
	schema    []schemaElem
	numRows   int64
	rowGroups []rowGroupMeta
	createdBy string
	encrypted bool
}

func decodeFileMeta(b []byte) (*fileMeta, error) {
	r := &tReader{b: b}
	m := &fileMeta{}
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 2 && typ == ctList:
			n, elem := r.list()
			if elem != ctStruct {
				r.fail()
				break
			}
			m.schema = make([]schemaElem, 0, n)
			for i := 0; i < n && r.err == nil; i++ {
				m.schema = append(m.schema, r.schemaElement())
			}
		case id == 3 && typ == ctI64:
			m.numRows = r.varint()
		case id == 4 && typ == ctList:
			n, elem := r.list()
			if elem != ctStruct {
				r.fail()
				break
			}
			m.rowGroups = make([]rowGroupMeta, 0, n)
			for i := 0; i < n && r.err == nil; i++ {
				m.rowGroups = append(m.rowGroups, r.rowGroup())
			}
		case id == 6 && typ == ctBinary:
			m.createdBy = r.str()
		case id == 8 && typ == ctStruct:
			m.encrypted = true
			r.skip(typ, 0)
		default:
			r.skip(typ, 0)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return m, nil
}

func (r *tReader) schemaElement() schemaElem {
	var e schemaElem
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctI32:
			e.typ, e.hasType = r.i32(), true
		case id == 2 && typ == ctI32:
			e.typeLen = r.i32()
		case id == 3 && typ == ctI32:
			e.rep, e.hasRep = r.i32(), true
		case id == 4 && typ == ctBinary:
			e.name = r.str()
		case id == 5 && typ == ctI32:
			e.numChildren = r.i32()
		case id == 6 && typ == ctI32:
			e.converted, e.hasConverted = r.i32(), true
		case id == 7 && typ == ctI32:
			e.scale = r.i32()
		case id == 8 && typ == ctI32:
			e.precision = r.i32()
		case id == 9 && typ == ctI32:
			e.fieldID, e.hasFieldID = r.i32(), true
		case id == 10 && typ == ctStruct:
			e.logical = r.logical()
		default:
			r.skip(typ, 1)
		}
	}
	return e
}

func (r *tReader) logical() logicalType {
	var lt logicalType
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		if typ != ctStruct {
			r.skip(typ, 2)
			continue
		}
		lt.kind = id
		var l int16
		for {
			fid, ft, ok := r.field(&l)
			if !ok {
				break
			}
			switch {
			case id == logDecimal && fid == 1 && ft == ctI32:
				lt.decScale = r.i32()
			case id == logDecimal && fid == 2 && ft == ctI32:
				lt.decPrec = r.i32()
			case (id == logTime || id == logTimestamp) && fid == 1 && (ft == ctTrue || ft == ctFalse):
				lt.utc = boolField(ft)
			case (id == logTime || id == logTimestamp) && fid == 2 && ft == ctStruct:
				var ul int16
				for {
					uid, ut, ok := r.field(&ul)
					if !ok {
						break
					}
					if ut == ctStruct && uid >= 1 && uid <= 3 {
						lt.unit = int8(uid)
					}
					r.skip(ut, 4)
				}
			case id == logInteger && fid == 1 && ft == ctByte:
				lt.intBits = int8(r.byte1())
			case id == logInteger && fid == 2 && (ft == ctTrue || ft == ctFalse):
				lt.intSigned = boolField(ft)
			default:
				r.skip(ft, 3)
			}
		}
	}
	return lt
}

func (r *tReader) rowGroup() rowGroupMeta {
	var g rowGroupMeta
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctList:
			n, elem := r.list()
			if elem != ctStruct {
				r.fail()
				break
			}
			g.columns = make([]chunkMeta, 0, n)
			for i := 0; i < n && r.err == nil; i++ {
				g.columns = append(g.columns, r.columnChunk())
			}
		case id == 3 && typ == ctI64:
			g.numRows = r.varint()
		default:
			r.skip(typ, 1)
		}
	}
	return g
}

func (r *tReader) columnChunk() chunkMeta {
	var c chunkMeta
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctBinary:
			c.filePath = r.str()
		case id == 3 && typ == ctStruct:
			r.columnMeta(&c)
		case id == 4 && typ == ctI64:
			c.offsetIndexOff = r.varint()
		case id == 5 && typ == ctI32:
			c.offsetIndexLen = r.i32()
		case id == 6 && typ == ctI64:
			c.columnIndexOff = r.varint()
		case id == 7 && typ == ctI32:
			c.columnIndexLen = r.i32()
		case (id == 8 || id == 9) && (typ == ctStruct || typ == ctBinary):
			c.encrypted = true
			r.skip(typ, 2)
		default:
			r.skip(typ, 2)
		}
	}
	return c
}

func (r *tReader) columnMeta(c *chunkMeta) {
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctI32:
			c.typ = r.i32()
		case id == 4 && typ == ctI32:
			c.codec = r.i32()
		case id == 5 && typ == ctI64:
			c.numValues = r.varint()
		case id == 6 && typ == ctI64:
			c.totalUncompressed = r.varint()
		case id == 7 && typ == ctI64:
			c.totalCompressed = r.varint()
		case id == 9 && typ == ctI64:
			c.dataPageOffset = r.varint()
		case id == 11 && typ == ctI64:
			c.dictPageOffset, c.hasDictOffset = r.varint(), true
		case id == 12 && typ == ctStruct:
			c.hasStats = true
			r.statistics(&c.stats)
		default:
			r.skip(typ, 3)
		}
	}
}

func (r *tReader) statistics(s *statsMeta) {
	var last int16
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctBinary:
			s.max, s.hasMax = r.binary(), true
		case id == 2 && typ == ctBinary:
			s.min, s.hasMin = r.binary(), true
		case id == 3 && typ == ctI64:
			s.nullCount, s.hasNullCount = r.varint(), true
		case id == 5 && typ == ctBinary:
			s.maxValue, s.hasMaxV = r.binary(), true
		case id == 6 && typ == ctBinary:
			s.minValue, s.hasMinV = r.binary(), true
		default:
			r.skip(typ, 4)
		}
	}
}
