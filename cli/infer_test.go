package cli

import (
	"reflect"
	"testing"

	"github.com/lakepg/lakepg/types"
)

func TestInferTypes(t *testing.T) {
	in := newInferrer(7)
	rows := [][]string{
		{"1", "1.5", "true", "2024-01-02", "2024-01-02 10:00:00", "x", ""},
		{"-20", "3", "f", "2024-12-31", "2024-01-03", "2", ""},
		{"", "", "", "", "", "", ""},
	}
	for _, r := range rows {
		in.add(r)
	}
	want := []types.T{types.Int64T, types.Float64T, types.BoolT, types.DateT, types.TimestampT, types.TextT, types.TextT}
	if got := in.types(); !reflect.DeepEqual(got, want) {
		t.Errorf("types %v, want %v", got, want)
	}
}
