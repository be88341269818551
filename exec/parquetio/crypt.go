package parquetio

// Parquet encryption as DuckDB (1.5, its parquet extension) writes it and
// DuckLake uses it for ENCRYPTED lakes, one fresh key per data or delete file:
//
//   - the file starts and ends with the magic "PARE" (not "PAR1");
//   - the footer is a plaintext FileCryptoMetaData (algorithm AES_GCM_V1, no
//     key metadata) followed by the FileMetaData as one encrypted module;
//   - every page header and every page body is its own encrypted module;
//   - a module is [length uint32 LE][nonce 12][ciphertext][GCM tag 16], the
//     length counting nonce, ciphertext and tag; AES-GCM with the file key
//     and no additional authenticated data (DuckDB writes no module AADs).
//
// The column metadata lives in the (encrypted) footer; column chunks carry no
// ColumnCryptoMetaData, and the chunk offsets and sizes in the footer count
// the on-disk (framed) bytes while a page header's compressed_page_size is the
// size of the decrypted body.
//
// Keys are secrets: no error or log line built here ever contains one.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/lakepg/lakepg/pgerr"
)

const (
	gcmNonceLen = 12
	gcmTagLen   = 16
	// moduleOverhead is what framing and GCM add to a module's plaintext.
	moduleOverhead = 4 + gcmNonceLen + gcmTagLen
)

// Key is the AES key of one encrypted Parquet file (16, 24 or 32 bytes).
type Key []byte

// String never shows the key, so a Key printed by mistake leaks nothing.
func (Key) String() string { return "[parquet key]" }

// GoString likewise for %#v.
func (Key) GoString() string { return "[parquet key]" }

// ParseKey decodes a key as DuckLake stores it in encryption_key (standard
// base64 of the raw AES key). The error never quotes the text.
func ParseKey(s string) (Key, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "the encryption key of a Parquet file is not valid base64")
	}
	switch len(b) {
	case 16, 24, 32:
		return Key(b), nil
	}
	return nil, pgerr.New(pgerr.DataCorrupted, "the encryption key of a Parquet file has %d bytes, want 16, 24 or 32", len(b))
}

// ParseKeyText is ParseKey with "" (a plain file's NULL encryption_key)
// giving no key.
func ParseKeyText(s string) (Key, error) {
	if s == "" {
		return nil, nil
	}
	return ParseKey(s)
}

// NewKey returns a fresh random 128-bit key, as DuckDB makes for each file of
// an encrypted lake.
func NewKey() (Key, error) {
	k := make(Key, 16)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("parquet: making an encryption key: %w", err)
	}
	return k, nil
}

// EncodeKey is the encryption_key column's text for k.
func EncodeKey(k Key) string { return base64.StdEncoding.EncodeToString(k) }

// errNoKey and errDecrypt carry SQLSTATEs so a client sees why a read failed;
// fresh values each time, as callers may add a detail to them.
func errNoKey() error {
	return pgerr.New(pgerr.DataCorrupted, "the Parquet file is encrypted and the catalog has no key for it")
}

func errDecrypt(what string) error {
	return pgerr.New(pgerr.DataCorrupted, "cannot decrypt the %s of an encrypted Parquet file: wrong key or corrupt file", what)
}

// crypter seals and opens modules with one file key.
type crypter struct{ aead cipher.AEAD }

func newCrypter(k Key) (*crypter, error) {
	blk, err := aes.NewCipher(k)
	if err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "the encryption key of a Parquet file has %d bytes, want 16, 24 or 32", len(k))
	}
	g, err := cipher.NewGCM(blk)
	if err != nil {
		return nil, err
	}
	return &crypter{aead: g}, nil
}

// open decrypts the module at the start of b, appending the plaintext to dst;
// it returns the result and the module's on-disk length.
func (c *crypter) open(dst, b []byte, what string) ([]byte, int, error) {
	if len(b) < 4 {
		return dst, 0, errDecrypt(what)
	}
	n := int64(binary.LittleEndian.Uint32(b))
	if n < gcmNonceLen+gcmTagLen || n > int64(len(b)-4) {
		return dst, 0, pgerr.New(pgerr.DataCorrupted, "corrupt encrypted Parquet file: the %s module of %d bytes does not fit", what, n)
	}
	m := b[4 : 4+n]
	out, err := c.aead.Open(dst, m[:gcmNonceLen], m[gcmNonceLen:], nil)
	if err != nil {
		return dst, 0, errDecrypt(what)
	}
	return out, int(4 + n), nil
}

// seal appends the module of plaintext p to dst, with a fresh random nonce.
func (c *crypter) seal(dst, p []byte) ([]byte, error) {
	var hdr [4 + gcmNonceLen]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(len(p)+gcmNonceLen+gcmTagLen))
	if _, err := io.ReadFull(rand.Reader, hdr[4:]); err != nil {
		return dst, fmt.Errorf("parquet: making a nonce: %w", err)
	}
	dst = append(dst, hdr[:]...)
	return c.aead.Seal(dst, hdr[4:], p, nil), nil
}

// decryptFooter takes the footer bytes of a "PARE" file (FileCryptoMetaData
// then the encrypted FileMetaData) and returns the plain FileMetaData.
func (c *crypter) decryptFooter(b []byte) ([]byte, error) {
	r := &tReader{b: b}
	var last int16
	algo := false
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			break
		}
		if id == 1 && typ == ctStruct {
			algo = c.checkAlgorithm(r)
			continue
		}
		r.skip(typ, 0)
	}
	if r.err != nil {
		return nil, pgerr.New(pgerr.DataCorrupted, "corrupt encrypted Parquet file: bad FileCryptoMetaData")
	}
	if !algo {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "encrypted Parquet file uses an algorithm other than AES_GCM_V1")
	}
	out, _, err := c.open(nil, b[r.p:], "footer")
	return out, err
}

// checkAlgorithm reads an EncryptionAlgorithm union; only AES_GCM_V1 (field 1)
// is what DuckDB writes and what we implement (AES_GCM_CTR_V1 is not).
func (c *crypter) checkAlgorithm(r *tReader) bool {
	var last int16
	gcm := false
	for {
		id, typ, ok := r.field(&last)
		if !ok {
			return gcm
		}
		if id == 1 && typ == ctStruct {
			gcm = true
		}
		r.skip(typ, 0)
	}
}

// decryptChunk turns an encrypted column chunk (alternating page header and
// page body modules) into the plain layout the page reader expects: each
// plain header followed by its plain body. dst is reused.
func (c *crypter) decryptChunk(dst, chunk []byte) ([]byte, error) {
	dst = dst[:0]
	for pos := 0; pos < len(chunk); {
		start := len(dst)
		var err error
		var n int
		dst, n, err = c.open(dst, chunk[pos:], "page header")
		if err != nil {
			return dst, err
		}
		pos += n
		var h pageHeader
		if _, err := readPageHeader(dst[start:], &h); err != nil {
			return dst, pgerr.New(pgerr.DataCorrupted, "corrupt encrypted Parquet file: bad page header")
		}
		body := len(dst)
		dst, n, err = c.open(dst, chunk[pos:], "page")
		if err != nil {
			return dst, err
		}
		pos += n
		if len(dst)-body != int(h.compressedSize) {
			return dst, pgerr.New(pgerr.DataCorrupted, "corrupt encrypted Parquet file: page of %d bytes, header says %d", len(dst)-body, h.compressedSize)
		}
	}
	return dst, nil
}
