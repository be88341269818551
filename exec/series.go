package exec

import (
	"context"

	"github.com/lakepg/lakepg/exec/vec"
	"github.com/lakepg/lakepg/pgerr"
	"github.com/lakepg/lakepg/types"
)

// Series is generate_series(start, stop, step) over integers (I64 storage,
// including scaled numerics) or timestamps stepped by an interval (Add),
// streamed a batch at a time.
type Series struct {
	T     types.T
	Start int64
	Stop  int64
	Step  int64                      // for integers
	Add   func(int64) (int64, error) // for timestamps: next value
	cur   int64
	init  bool
	done  bool
	out   *vec.Batch
}

func (s *Series) Types() []types.T { return []types.T{s.T} }
func (s *Series) Close() error     { return nil }

func (s *Series) Next(ctx context.Context) (*vec.Batch, error) {
	if s.done {
		return nil, nil
	}
	if !s.init {
		s.init, s.cur = true, s.Start
		if s.Add == nil && s.Step == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		s.out = vec.NewBatch([]types.T{s.T}, vec.BatchSize)
		if s.Add != nil {
			probe, err := s.Add(s.Start)
			if err != nil {
				return nil, err
			}
			switch {
			case probe > s.Start:
				s.Step = 1
			case probe < s.Start:
				s.Step = -1
			default:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, pgerr.New(pgerr.QueryCanceled, "canceling statement due to user request")
	}
	s.out.Reset()
	v := s.out.Vecs[0]
	up := s.Step > 0
	for v.Len() < vec.BatchSize {
		if s.Add == nil {
			if (up && s.cur > s.Stop) || (!up && s.cur < s.Stop) {
				s.done = true
				break
			}
			v.I64 = append(v.I64, s.cur)
			next := s.cur + s.Step
			if (next > s.cur) != up { // overflow: the series ends here
				s.done = true
				break
			}
			s.cur = next
			continue
		}
		if (up && s.cur > s.Stop) || (!up && s.cur < s.Stop) {
			s.done = true
			break
		}
		v.I64 = append(v.I64, s.cur)
		next, err := s.Add(s.cur)
		if err != nil {
			return nil, err
		}
		if (next > s.cur) != up {
			s.done = true
			break
		}
		s.cur = next
	}
	s.out.N = v.Len()
	if s.out.N == 0 {
		return nil, nil
	}
	return s.out, nil
}
