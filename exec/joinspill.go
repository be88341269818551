package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/joinspill"
	"github.com/lakepg/lakepg/exec/memory"
	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/types"
)

// A hash join whose build side outgrows memory spills by grace
// partitioning (package joinspill says how); here are the join's own parts
// of it: its keys, its partition joins and chunk passes.

// ErrChunkFull ends a chunk's build: the batch that did not fit goes to the
// next chunk.
var ErrChunkFull = joinspill.ErrChunkFull

// keyVecs are the key vectors of a build batch: the computed ones (kb,
// indexed by comp) or the batch's own columns.
func keyVecs(dst []*vec.Vector, rightKeys []Expr, comp []int, b, kb *vec.Batch) []*vec.Vector {
	dst = dst[:0]
	for i, k := range rightKeys {
		if comp[i] >= 0 {
			dst = append(dst, kb.Vecs[comp[i]])
		} else {
			dst = append(dst, b.Vecs[k.(*ColRef).Idx])
		}
	}
	return dst
}

// nextSpilled runs a join whose build side spilled.
func (j *HashJoin) nextSpilled(ctx context.Context) (*vec.Batch, error) {
	js := j.spill
	if !j.probed {
		j.probed = true
		js.StartProbe(j.Left.Types(), QueryStatsOf(ctx).Spill())
		err := Drain(ctx, j.Left, func(b *vec.Batch) error {
			if err := memory.ErrCanceled(ctx); err != nil {
				return err
			}
			j.pkeys = j.pkeys[:0]
			for _, k := range j.LeftKeys {
				v, err := k.Eval(j.Env, b)
				if err != nil {
					return err
				}
				j.pkeys = append(j.pkeys, v)
			}
			return js.AddProbe(b, j.pkeys)
		})
		if err != nil {
			return nil, err
		}
		if j.Shared != nil && !j.Shared.finishSpillProbe() {
			return nil, nil // the last probe joins the partitions
		}
		if err := js.EndProbe(); err != nil {
			return nil, err
		}
	}
	t := j.Type
	keepsBuild := t == JoinRight || t == JoinFull || t == JoinRightAnti
	keepsProbe := t == JoinLeft || t == JoinFull || t == JoinAnti || t == JoinAntiNullAware
	return js.Next(ctx, keepsBuild, keepsProbe, func(p int) (joinspill.Operator, error) { return j.partitionJoin(ctx, js, p) })
}

// partitionJoin makes the join of partition p's two files: a HashJoin one
// level down, or a chunk join when hashing cannot split the build side.
func (j *HashJoin) partitionJoin(ctx context.Context, js *joinspill.Spill, p int) (joinspill.Operator, error) {
	if js.Chunked(p) {
		return newChunkJoin(ctx, j.Type, j.Mem, j.chunkPass, js.Left().Part(p), js.Right.Part(p), nil, js.Left().Types(), js.Right.Types()), nil
	}
	lop, err := js.Left().Scan(p)
	if err != nil {
		return nil, err
	}
	rop, err := js.Right.Scan(p)
	if err != nil {
		lop.Close()
		return nil, err
	}
	return &HashJoin{Env: j.Env, Left: lop, Right: rop, LeftKeys: j.LeftKeys, RightKeys: j.subRightKeys(), Type: j.Type,
		Extra: j.Extra, Mem: j.Mem, spillLevel: js.Level + 1}, nil
}

// newChunkJoin joins a build side hashing cannot split by chunks, as join
// type t says.
func newChunkJoin(ctx context.Context, t JoinType, mem *memory.Memory, pass func(context.Context, *joinspill.ChunkSource) (joinspill.ChunkPass, error),
	left, right *memory.SpillPart, live Operator, lt, rt []types.T) *joinspill.ChunkJoin {
	return &joinspill.ChunkJoin{Mem: mem, Pass: pass, Left: left, Right: right, Live: live, LTypes: lt, RTypes: rt,
		Out: joinTypesOf(lt, rt, t), Stats: QueryStatsOf(ctx).Spill(),
		Deferred:    t == JoinLeft || t == JoinFull || t == JoinSemi || t == JoinAnti || t == JoinAntiNullAware,
		KeepMatched: t == JoinSemi, PadBuild: !t.leftOnly()}
}

// subRightKeys are the build keys of a partition join (a shared build's
// when the build is shared).
func (j *HashJoin) subRightKeys() []Expr {
	if j.Shared != nil {
		return j.Shared.RightKeys
	}
	return j.RightKeys
}

// finishSpillProbe counts a probe done writing its rows to a spilled
// build's partitions; true for the last one.
func (s *SharedBuild) finishSpillProbe() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished++
	return s.finished == s.Probes
}

// chunkPass builds the next chunk of a hash join's spilled build side.
func (j *HashJoin) chunkPass(ctx context.Context, src *joinspill.ChunkSource) (joinspill.ChunkPass, error) {
	kts := make([]types.T, len(j.LeftKeys))
	for i, k := range j.LeftKeys {
		kts[i] = k.Type()
	}
	jb, _, err := buildJoin(ctx, j.Env, src, j.subRightKeys(), kts, j.Mem, buildOpts{chunk: src})
	if err != nil {
		return nil, err
	}
	return &HashJoin{Env: j.Env, Right: &joinspill.Empty{T: src.Types()}, LeftKeys: j.LeftKeys, RightKeys: j.subRightKeys(),
		Type: j.Type, Extra: j.Extra, Mem: j.Mem, prebuilt: jb}, nil
}

// SetProbe makes probe the join's probe side and record, when set, the
// receiver of which of its rows matched (a chunk pass of ChunkJoin).
func (j *HashJoin) SetProbe(probe joinspill.Operator, record func([]bool)) {
	j.Left = probe
	j.core.onProbe = record
}
