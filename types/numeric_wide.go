package types

import (
	"math/big"
	"strconv"

	"github.com/lakepg/lakepg/pgerr"
)

// Wide numerics: numeric(p,s) with p above MaxInt64Precision. Their values
// do not fit a scaled int64, so they are held like an unconstrained
// numeric's — decimal text carrying its own scale (Scale -1, StoreBytes) —
// while Precision and DeclScale keep the declaration: values are rounded to
// DeclScale digits and checked against Precision on the way in, and the
// typmod, type name and DuckLake type show the declaration. Everything that
// computes with numerics treats them as unconstrained ones, which is what
// PostgreSQL's arithmetic results are anyway.

// MaxDuckLakePrecision is the widest DuckLake decimal (Parquet
// FIXED_LEN_BYTE_ARRAY(16)); int128 columns read as numeric(39,0).
const MaxDuckLakePrecision = 39

// Wide reports a numeric with a declared precision above MaxInt64Precision.
func (t T) Wide() bool { return t.ID == Numeric && t.Scale < 0 && t.Precision > 0 }

func wideDuckLake(t T) (string, error) {
	if t.Precision > 38 {
		return "", pgerr.New(pgerr.FeatureNotSupported, "type %s cannot be stored in a table: DuckLake decimals have at most 38 digits", t)
	}
	return "decimal(" + strconv.Itoa(t.Precision) + "," + strconv.Itoa(t.DeclScale) + ")", nil
}

// FitWide rounds the exact decimal v·10^-scale to a wide numeric's
// declared scale and checks its precision, as numeric(p,s) input does.
func FitWide(t T, v *big.Int, scale int) (string, error) {
	r := RescaleBig(v, scale, t.DeclScale)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
	if new(big.Int).Abs(r).Cmp(limit) >= 0 {
		e := pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow")
		e.Detail = "A field with precision " + strconv.Itoa(t.Precision) + ", scale " + strconv.Itoa(t.DeclScale) +
			" must round to an absolute value less than 10^" + strconv.Itoa(t.Precision-t.DeclScale) + "."
		return "", e
	}
	return FormatBig(r, t.DeclScale), nil
}
