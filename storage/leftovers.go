package storage

import "context"

// Leftovers is implemented by backends whose writers leave partial state
// behind when the process dies mid-write: a local writer's temporary file
// (".name.tmp-*", renamed into place only when complete). They are not
// objects — List skips them — and nothing references them; cleanup removes
// them with Delete once they are old enough that no live writer can own
// them.
type Leftovers interface {
	ListLeftovers(ctx context.Context, prefix string) ([]ObjectInfo, error)
}

// ListLeftovers lists the temporary files of unfinished writes under prefix.
func (local) ListLeftovers(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	return walkLocal(ctx, prefix, isTempName)
}
