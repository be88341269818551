package parquetio

import (
	"encoding/binary"
	"fmt"
)

// Writing DuckDB-style encrypted Parquet (crypt.go describes the layout).
// parquet-go writes the plain file; encryptFile then re-frames it: every page
// header and body becomes a sealed module, the footer's chunk offsets and
// sizes are rewritten to the framed layout, the page index (whose offsets
// would be of plain pages, and which DuckDB does not write for encrypted
// files) is dropped, and the FileMetaData is sealed behind a plaintext
// FileCryptoMetaData.

// chunkPlace is where a column chunk landed in the encrypted file.
type chunkPlace struct {
	start, dataPage, dict, total int64
	hasDict                      bool
}

// fileCryptoMeta is FileCryptoMetaData{encryption_algorithm: AES_GCM_V1{}}
// with no key metadata: the key is in the catalog, as DuckDB does it.
var fileCryptoMeta = []byte{0x1c, 0x1c, 0x00, 0x00, 0x00}

// encryptFile turns the plain Parquet file plain into its encrypted form.
// It returns the file and the length of its footer (FileCryptoMetaData and
// sealed FileMetaData, the number before the trailing "PARE").
func encryptFile(plain []byte, key Key) ([]byte, int64, error) {
	c, err := newCrypter(key)
	if err != nil {
		return nil, 0, err
	}
	size := int64(len(plain))
	if size < 12 {
		return nil, 0, fmt.Errorf("parquet: encrypting: file too small")
	}
	flen, enc, err := readFooterLength(plain[size-8:])
	if err != nil || enc || flen <= 0 || flen > size-12 {
		return nil, 0, fmt.Errorf("parquet: encrypting: bad plain footer")
	}
	footer := plain[size-8-flen : size-8]
	meta, err := decodeFileMeta(footer)
	if err != nil {
		return nil, 0, fmt.Errorf("parquet: encrypting: %w", err)
	}
	out := make([]byte, 0, size+size/8+1024)
	out = append(out, "PARE"...)
	places := make([][]chunkPlace, len(meta.rowGroups))
	for g := range meta.rowGroups {
		places[g] = make([]chunkPlace, len(meta.rowGroups[g].columns))
		for j := range meta.rowGroups[g].columns {
			cm := &meta.rowGroups[g].columns[j]
			start, n := chunkStart(cm), cm.totalCompressed
			if start < 4 || n < 0 || start+n > size-8-flen {
				return nil, 0, fmt.Errorf("parquet: encrypting: chunk outside the file")
			}
			p := &places[g][j]
			p.start = int64(len(out))
			p.dataPage = -1
			for pos := start; pos < start+n; {
				var h pageHeader
				hl, err := readPageHeader(plain[pos:start+n], &h)
				if err != nil {
					return nil, 0, fmt.Errorf("parquet: encrypting: bad page header")
				}
				body := pos + int64(hl)
				end := body + int64(h.compressedSize)
				if end > start+n {
					return nil, 0, fmt.Errorf("parquet: encrypting: page overruns its chunk")
				}
				if pos == cm.dataPageOffset {
					p.dataPage = int64(len(out))
				}
				if h.typ == pageDictionary && !p.hasDict {
					p.dict, p.hasDict = int64(len(out)), true
				}
				if out, err = c.seal(out, plain[pos:body]); err != nil {
					return nil, 0, err
				}
				if out, err = c.seal(out, plain[body:end]); err != nil {
					return nil, 0, err
				}
				pos = end
			}
			if p.dataPage < 0 {
				return nil, 0, fmt.Errorf("parquet: encrypting: data page offset is not a page")
			}
			p.total = int64(len(out)) - p.start
		}
	}
	rw := &footerRewriter{r: &tReader{b: footer}, places: places}
	newFooter := rw.fileMeta()
	if rw.r.err != nil || rw.err != nil {
		return nil, 0, fmt.Errorf("parquet: encrypting: rewriting the footer failed")
	}
	fstart := len(out)
	out = append(out, fileCryptoMeta...)
	if out, err = c.seal(out, newFooter); err != nil {
		return nil, 0, err
	}
	fl := int64(len(out) - fstart)
	out = binary.LittleEndian.AppendUint32(out, uint32(fl))
	out = append(out, "PARE"...)
	return out, fl, nil
}

// footerRewriter copies a FileMetaData in the Thrift compact protocol,
// replacing the offsets and sizes of row groups and column chunks by their
// places in the encrypted file and dropping page index and bloom filter
// references. Everything else is copied byte for byte.
type footerRewriter struct {
	r      *tReader
	out    []byte
	places [][]chunkPlace
	err    error
}

func (w *footerRewriter) header(last *int16, id int16, typ byte) {
	if d := id - *last; d > 0 && d <= 15 {
		w.out = append(w.out, byte(d)<<4|typ)
	} else {
		w.out = append(w.out, typ)
		w.out = binary.AppendVarint(w.out, int64(id)) // zigzag, as Thrift
	}
	*last = id
}

func (w *footerRewriter) i64(last *int16, id int16, v int64) {
	w.header(last, id, ctI64)
	w.out = binary.AppendVarint(w.out, v)
}

// copyField copies the value of a field (its header written by the caller;
// bools live in the header and have no value).
func (w *footerRewriter) copyField(last *int16, id int16, typ byte) {
	w.header(last, id, typ)
	start := w.r.p
	w.r.skip(typ, 0)
	if w.r.err == nil {
		w.out = append(w.out, w.r.b[start:w.r.p]...)
	}
}

// skipField drops a field.
func (w *footerRewriter) skipField(typ byte) { w.r.skip(typ, 0) }

func (w *footerRewriter) listHeader(n int, elem byte) {
	if n < 15 {
		w.out = append(w.out, byte(n)<<4|elem)
		return
	}
	w.out = append(w.out, 0xf0|elem)
	w.out = binary.AppendUvarint(w.out, uint64(n))
}

func (w *footerRewriter) fileMeta() []byte {
	var last, olast int16
	g := 0
	for {
		id, typ, ok := w.r.field(&last)
		if !ok {
			break
		}
		if id == 4 && typ == ctList {
			n, elem := w.r.list()
			if elem != ctStruct || n != len(w.places) {
				w.r.fail()
				break
			}
			w.header(&olast, id, typ)
			w.listHeader(n, elem)
			for ; g < n && w.r.err == nil; g++ {
				w.rowGroup(w.places[g])
			}
			continue
		}
		w.copyField(&olast, id, typ)
	}
	w.out = append(w.out, ctStop)
	return w.out
}

func (w *footerRewriter) rowGroup(places []chunkPlace) {
	var last, olast int16
	var total int64
	for _, p := range places {
		total += p.total
	}
	for {
		id, typ, ok := w.r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 1 && typ == ctList:
			n, elem := w.r.list()
			if elem != ctStruct || n != len(places) {
				w.r.fail()
				return
			}
			w.header(&olast, id, typ)
			w.listHeader(n, elem)
			for j := 0; j < n && w.r.err == nil; j++ {
				w.columnChunk(places[j])
			}
		case id == 5 && typ == ctI64: // file_offset
			w.r.varint()
			if len(places) > 0 {
				w.i64(&olast, id, places[0].start)
			}
		case id == 6 && typ == ctI64: // total_compressed_size
			w.r.varint()
			w.i64(&olast, id, total)
		default:
			w.copyField(&olast, id, typ)
		}
	}
	w.out = append(w.out, ctStop)
}

func (w *footerRewriter) columnChunk(p chunkPlace) {
	var last, olast int16
	for {
		id, typ, ok := w.r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 2 && typ == ctI64: // file_offset
			w.r.varint()
			w.i64(&olast, id, p.start)
		case id == 3 && typ == ctStruct:
			w.header(&olast, id, typ)
			w.columnMeta(p)
		case id >= 4 && id <= 7: // offset/column index offset and length
			w.skipField(typ)
		default:
			w.copyField(&olast, id, typ)
		}
	}
	w.out = append(w.out, ctStop)
}

func (w *footerRewriter) columnMeta(p chunkPlace) {
	var last, olast int16
	for {
		id, typ, ok := w.r.field(&last)
		if !ok {
			break
		}
		switch {
		case id == 7 && typ == ctI64: // total_compressed_size
			w.r.varint()
			w.i64(&olast, id, p.total)
		case id == 9 && typ == ctI64: // data_page_offset
			w.r.varint()
			w.i64(&olast, id, p.dataPage)
		case id == 10 || id == 14 || id == 15: // index page, bloom filter
			w.skipField(typ)
		case id == 11 && typ == ctI64: // dictionary_page_offset
			w.r.varint()
			if p.hasDict {
				w.i64(&olast, id, p.dict)
			}
		default:
			w.copyField(&olast, id, typ)
		}
	}
	w.out = append(w.out, ctStop)
}
