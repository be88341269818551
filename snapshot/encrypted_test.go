package snapshot

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/lakepg/lakepg/catalog"
)

// An encrypted lake (DuckDB's ENCRYPTED, lakepg's --encrypted) keeps each
// file's key in encryption_key, and refuses a file without one.
func TestEncryptedLakeKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		dsn, opts := be.newCatalog(t)
		opts.Encrypted = true
		e := &env{t: t, dsn: dsn, opts: opts, data: filepath.Join(t.TempDir(), "data"), ctx: context.Background()}
		db, err := catalog.OpenWithOptions(e.ctx, dsn, e.data, opts)
		if err != nil {
			t.Fatal(err)
		}
		e.db = db
		t.Cleanup(func() { db.Close() })
		if !db.Encrypted() {
			t.Fatal("a catalog created with Options.Encrypted is not encrypted")
		}
		e.expectRows(`SELECT value FROM ducklake_metadata WHERE key = 'encrypted'`, "true")
		m := twoTables(t, e)
		a, _ := m.TableByName(0, "a")

		c := Begin(e.db, m.Snapshot, m)
		c.AddDataFile(*a, file("plain.parquet", 3))
		if _, err := c.Commit(e.ctx); !errors.Is(err, ErrPlainInEncrypted) {
			t.Fatalf("committing a plain file to an encrypted lake: %v, want ErrPlainInEncrypted", err)
		}

		m = e.load(e.head())
		c = Begin(e.db, m.Snapshot, m)
		f := file("enc.parquet", 3)
		f.EncryptionKey = "h5DCeneJWPB8+Ppuub/qkQ=="
		c.AddDataFile(*a, f)
		e.commit(c)
		e.expectRows(`SELECT path, encryption_key FROM ducklake_data_file`, "enc.parquet|h5DCeneJWPB8+Ppuub/qkQ==")
		files, err := e.db.Files(e.ctx, &catalog.Schema{ID: 0, Path: "main/"}, a, e.head())
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].EncryptionKey != "h5DCeneJWPB8+Ppuub/qkQ==" {
			t.Fatalf("catalog.Files keys: %+v", files)
		}
	})
}

// Encryption is chosen when a lake is created: asking for it on an existing
// plain lake is an error, not a silent no.
func TestEncryptedOnPlainLake(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		e := newEnv(t, be)
		if e.db.Encrypted() {
			t.Fatal("a default catalog is encrypted")
		}
		opts := e.opts
		opts.Encrypted = true
		if db, err := catalog.OpenWithOptions(e.ctx, e.dsn, "", opts); err == nil {
			db.Close()
			t.Fatal("opening a plain lake with Options.Encrypted succeeded")
		}
	})
}
