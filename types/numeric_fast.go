package types

// ParseNumericFast parses plain decimal text ("-12.345", "+7", ".5", "3.")
// of at most 18 digits straight into numeric(p,s)'s scaled int64, rounding
// half away from zero as RescaleBig does. ok is false for anything else
// (white space, exponents, NaN, more digits, a value over the precision):
// the general path (ParseNumeric) answers those, errors included. COPY and
// casts of numeric text spend most of their time here, and big.Int
// arithmetic per value was half the cost of loading a numeric column.
func ParseNumericFast(str string, p, s int) (v int64, ok bool) {
	i, n := 0, len(str)
	neg := false
	if i < n && (str[i] == '+' || str[i] == '-') {
		neg = str[i] == '-'
		i++
	}
	digits, frac := 0, 0
	for ; i < n && str[i] >= '0' && str[i] <= '9'; i++ {
		v = v*10 + int64(str[i]-'0')
		if v != 0 {
			digits++
		}
		if digits > 18 {
			return 0, false
		}
	}
	seen := i > 0 && str[i-1] >= '0' && str[i-1] <= '9'
	up := false
	if i < n && str[i] == '.' {
		i++
		for ; i < n && str[i] >= '0' && str[i] <= '9'; i++ {
			seen = true
			switch {
			case frac < s:
				v = v*10 + int64(str[i]-'0')
				frac++
				if v != 0 {
					digits++
				}
				if digits > 18 {
					return 0, false
				}
			case frac == s:
				up = str[i] >= '5' // the first digit dropped decides
				frac++
			}
		}
	}
	if i != n || !seen {
		return 0, false
	}
	for ; frac < s; frac++ {
		if digits > 0 {
			digits++
		}
		if digits > 18 {
			return 0, false
		}
		v *= 10
	}
	if up {
		v++
	}
	if v >= pow10Int64(p) {
		return 0, false // numeric field overflow: the general path says so
	}
	if neg {
		v = -v
	}
	return v, true
}

func pow10Int64(p int) int64 {
	if p > 18 {
		return 1<<63 - 1
	}
	x := int64(1)
	for range p {
		x *= 10
	}
	return x
}
