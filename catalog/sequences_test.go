package catalog

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// TestSequences: lakepg_sequence on each backend: create, read, duplicate names, update,
// compare-and-set advances racing from several goroutines (every value once), drop.
func TestSequences(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		db, _, _, _ := openNewOn(t, be)
		if qs, err := db.Sequences(ctx); err != nil || len(qs) != 0 {
			t.Fatalf("Sequences before the table exists: %v %v", qs, err)
		}
		if err := db.EnsureSequenceTable(ctx); err != nil {
			t.Fatal(err)
		}
		if err := db.EnsureSequenceTable(ctx); err != nil {
			t.Fatalf("second EnsureSequenceTable: %v", err)
		}
		create := func(q Sequence) (int64, error) {
			tx, err := db.BeginWrite(ctx)
			if err != nil {
				return 0, err
			}
			defer tx.Rollback()
			id, err := tx.CreateSequence(ctx, q)
			if err != nil {
				return 0, err
			}
			return id, tx.Commit()
		}
		q := Sequence{SchemaID: 1, Name: "s", DataType: "bigint", Start: 1, Inc: 1, Min: 1, Max: 1 << 62, Cache: 1,
			LastValue: 1, OwnerTable: 7, OwnerColumn: 2, Identity: "a"}
		id, err := create(q)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := create(q); !errors.Is(err, ErrSequenceExists) {
			t.Fatalf("duplicate name: %v", err)
		}
		got, err := db.Sequence(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		q.ID = id
		if got != q {
			t.Fatalf("read back %+v, want %+v", got, q)
		}

		const workers, each = 4, 25
		var mu sync.Mutex
		seen := map[int64]bool{}
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					_, nw, err := db.AdvanceSequence(ctx, id, func(cur Sequence) (Sequence, error) {
						if cur.IsCalled {
							cur.LastValue += cur.Inc
						}
						cur.IsCalled = true
						return cur, nil
					})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if seen[nw.LastValue] {
						t.Errorf("value %d handed out twice", nw.LastValue)
					}
					seen[nw.LastValue] = true
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != workers*each || !seen[1] || !seen[workers*each] {
			t.Fatalf("values %d, want 1..%d", len(seen), workers*each)
		}

		tx, err := db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		q.Name, q.Inc, q.OwnerTable, q.OwnerColumn, q.Identity = "renamed", 5, 0, 0, ""
		if err := tx.UpdateSequence(ctx, q); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		got, _ = db.Sequence(ctx, id)
		if got.Name != "renamed" || got.Inc != 5 || got.OwnerTable != 0 || got.Identity != "" || got.LastValue != workers*each {
			t.Fatalf("after update: %+v", got)
		}
		tx, err = db.BeginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.DropSequence(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Sequence(ctx, id); !errors.Is(err, ErrSequenceNotFound) {
			t.Fatalf("after drop: %v", err)
		}
		if _, _, err := db.AdvanceSequence(ctx, id, func(c Sequence) (Sequence, error) { return c, nil }); !errors.Is(err, ErrSequenceNotFound) {
			t.Fatalf("advance after drop: %v", err)
		}
	})
}
