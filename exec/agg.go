package exec

import (
	"context"
	"encoding/binary"
	"math"
	"math/big"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// AggKind names an aggregate function.
type AggKind uint8

const (
	AggCountStar AggKind = iota
	AggCount
	AggSum
	AggAvg
	AggMin
	AggMax
)

// Agg is one aggregate over input column Arg.
type Agg struct {
	Kind AggKind
	Arg  int
	In   types.T
	Out  types.T
}

// AggResultType returns PostgreSQL's result type of kind over in.
func AggResultType(kind AggKind, in types.T) (types.T, error) {
	switch kind {
	case AggCountStar, AggCount:
		return types.Int64T, nil
	case AggMin, AggMax:
		return in, nil
	case AggSum:
		switch {
		case in.ID == types.Int16 || in.ID == types.Int32:
			return types.Int64T, nil
		case in.ID == types.Int64:
			return types.T{ID: types.Numeric, Scale: 0}, nil
		case in.IsFloat():
			return in, nil
		case in.ID == types.Numeric:
			if in.Scale < 0 {
				return types.NumericAnyT, nil
			}
			return types.T{ID: types.Numeric, Scale: in.Scale}, nil
		}
	case AggAvg:
		switch {
		case in.IsInteger() || in.ID == types.Numeric:
			return types.NumericAnyT, nil
		case in.IsFloat():
			return types.Float64T, nil
		}
	}
	return types.T{}, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", aggName(kind), in)
}

func aggName(k AggKind) string {
	return [...]string{"count", "count", "sum", "avg", "min", "max"}[k]
}

// aggState is the column-major state of one aggregate over all groups.
type aggState struct {
	agg   Agg
	count []int64
	isum  []int64
	fsum  []float64
	big   []*big.Int // dynamic numeric sums
	has   []bool
	ext   *vec.Vector // min/max values by group
}

func (s *aggState) grow(n int) {
	for len(s.count) < n {
		s.count = append(s.count, 0)
		s.isum = append(s.isum, 0)
		s.fsum = append(s.fsum, 0)
		s.has = append(s.has, false)
		if s.agg.In.DynNumeric() {
			s.big = append(s.big, new(big.Int))
		}
		if s.ext != nil {
			s.ext.AppendNull()
		}
	}
}

// HashAgg groups by the first NGroup input columns and computes Aggs.
type HashAgg struct {
	Input  Operator
	NGroup int
	Aggs   []Agg
	groups map[string]int32
	keys   *vec.Batch
	states []*aggState
	ngrp   int
	done   bool
	emit   int
	out    *vec.Batch
	keybuf []byte
	gids   []int32
}

func (h *HashAgg) Types() []types.T {
	in := h.Input.Types()
	ts := append([]types.T{}, in[:h.NGroup]...)
	for _, a := range h.Aggs {
		ts = append(ts, a.Out)
	}
	return ts
}
func (h *HashAgg) Close() error { return h.Input.Close() }

func (h *HashAgg) init() {
	in := h.Input.Types()
	h.groups = make(map[string]int32)
	h.keys = vec.NewBatch(in[:h.NGroup], 64)
	for _, a := range h.Aggs {
		st := &aggState{agg: a}
		if a.Kind == AggMin || a.Kind == AggMax {
			st.ext = vec.New(a.In, 64)
			st.ext.Nulls = []bool{}
		}
		h.states = append(h.states, st)
	}
	if h.NGroup == 0 {
		h.ngrp = 1
		for _, s := range h.states {
			s.grow(1)
		}
	}
}

// appendKey encodes row i of v so equal values (and NULL) give equal bytes.
func appendKey(dst []byte, v *vec.Vector, i int) []byte {
	if v.IsNull(i) {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	switch v.Type.Storage() {
	case types.StoreInt:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.I64[i]))
	case types.StoreFloat:
		f := v.F64[i]
		if f == 0 {
			f = 0 // -0 groups with 0
		}
		if f != f {
			return append(dst, 0xff, 0xff)
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	case types.StoreBool:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	}
	s := v.S[i]
	if v.Type.DynNumeric() {
		if n, err := types.NormalizeDecimal(s); err == nil {
			d, sc, _ := types.ParseDecimal(n)
			d, sc = trimDecimal(d, sc)
			s = types.FormatBig(d, sc)
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

func (h *HashAgg) consume(b *vec.Batch) error {
	h.gids = h.gids[:0]
	if h.NGroup == 0 {
		for i := 0; i < b.N; i++ {
			h.gids = append(h.gids, 0)
		}
	} else {
		for i := 0; i < b.N; i++ {
			h.keybuf = h.keybuf[:0]
			for c := 0; c < h.NGroup; c++ {
				h.keybuf = appendKey(h.keybuf, b.Vecs[c], i)
			}
			g, ok := h.groups[string(h.keybuf)]
			if !ok {
				g = int32(h.ngrp)
				h.ngrp++
				h.groups[string(h.keybuf)] = g
				for c := 0; c < h.NGroup; c++ {
					h.keys.Vecs[c].AppendFrom(b.Vecs[c], i)
				}
				for _, s := range h.states {
					s.grow(h.ngrp)
				}
			}
			h.gids = append(h.gids, g)
		}
	}
	for _, s := range h.states {
		if err := s.update(b, h.gids); err != nil {
			return err
		}
	}
	return nil
}

func (s *aggState) update(b *vec.Batch, gids []int32) error {
	a := s.agg
	if a.Kind == AggCountStar {
		for _, g := range gids {
			s.count[g]++
		}
		return nil
	}
	v := b.Vecs[a.Arg]
	for i, g := range gids {
		if v.IsNull(i) {
			continue
		}
		s.count[g]++
		switch a.Kind {
		case AggSum, AggAvg:
			switch v.Type.Storage() {
			case types.StoreInt:
				x, y := s.isum[g], v.I64[i]
				z := x + y
				if (z > x) != (y > 0) {
					return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", a.Out)
				}
				s.isum[g] = z
			case types.StoreFloat:
				s.fsum[g] += v.F64[i]
			default: // dynamic numeric
				d, sc := NumericValue(v, i)
				cur := s.big[g]
				if !s.has[g] {
					s.isum[g] = int64(sc)
					cur.Set(d)
				} else {
					z, zs, _ := DecimalArith('+', cur, int(s.isum[g]), d, sc)
					cur.Set(z)
					s.isum[g] = int64(zs)
				}
			}
			s.has[g] = true
		case AggMin, AggMax:
			if !s.has[g] {
				setAt(s.ext, int(g), v, i)
				s.has[g] = true
				continue
			}
			c := CompareRows(v, i, s.ext, int(g))
			if (a.Kind == AggMin && c < 0) || (a.Kind == AggMax && c > 0) {
				setAt(s.ext, int(g), v, i)
			}
		}
	}
	return nil
}

func setAt(dst *vec.Vector, g int, src *vec.Vector, i int) {
	switch dst.Type.Storage() {
	case types.StoreInt:
		dst.I64[g] = src.I64[i]
	case types.StoreFloat:
		dst.F64[g] = src.F64[i]
	case types.StoreBool:
		dst.B[g] = src.B[i]
	default:
		dst.S[g] = src.S[i]
	}
	dst.Nulls[g] = false
}

func (s *aggState) final(out *vec.Vector, g int) error {
	a := s.agg
	switch a.Kind {
	case AggCountStar, AggCount:
		out.AppendInt(s.count[g])
		return nil
	}
	if !s.has[g] {
		out.AppendNull()
		return nil
	}
	switch a.Kind {
	case AggMin, AggMax:
		out.AppendFrom(s.ext, g)
	case AggSum:
		switch a.In.Storage() {
		case types.StoreInt:
			out.AppendInt(s.isum[g])
		case types.StoreFloat:
			f := s.fsum[g]
			if a.Out.ID == types.Float32 {
				f = float64(float32(f))
			}
			out.AppendFloat(f)
		default:
			out.AppendString(types.FormatBig(s.big[g], int(s.isum[g])))
		}
	case AggAvg:
		switch a.In.Storage() {
		case types.StoreFloat:
			out.AppendFloat(s.fsum[g] / float64(s.count[g]))
		default:
			var sum *big.Int
			scale := 0
			if a.In.DynNumeric() {
				sum, scale = s.big[g], int(s.isum[g])
			} else {
				sum = big.NewInt(s.isum[g])
				if a.In.ID == types.Numeric {
					scale = a.In.Scale
				}
			}
			q, qs, err := DecimalArith('/', sum, scale, big.NewInt(s.count[g]), 0)
			if err != nil {
				return err
			}
			out.AppendString(types.FormatBig(q, qs))
		}
	}
	return nil
}

func (h *HashAgg) Next(ctx context.Context) (*vec.Batch, error) {
	if !h.done {
		h.init()
		for {
			b, err := h.Input.Next(ctx)
			if err != nil {
				return nil, err
			}
			if b == nil {
				break
			}
			if err := ctx.Err(); err != nil {
				return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
			}
			if err := h.consume(b); err != nil {
				return nil, err
			}
		}
		h.done = true
		h.out = vec.NewBatch(h.Types(), vec.BatchSize)
	}
	if h.emit >= h.ngrp {
		return nil, nil
	}
	h.out.Reset()
	end := min(h.emit+vec.BatchSize, h.ngrp)
	for g := h.emit; g < end; g++ {
		for c := 0; c < h.NGroup; c++ {
			h.out.Vecs[c].AppendFrom(h.keys.Vecs[c], g)
		}
		for k, s := range h.states {
			if err := s.final(h.out.Vecs[h.NGroup+k], g); err != nil {
				return nil, err
			}
		}
	}
	h.out.N = end - h.emit
	h.emit = end
	return h.out, nil
}
