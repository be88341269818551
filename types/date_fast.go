package types

// ParseDateFast parses the ISO form COPY and drivers send ("2024-01-31",
// years 1000 to 9999) straight into days since 1970-01-01. ok is false for
// anything else, including impossible days: ParseDate answers those,
// errors included. Going through time.Date per value was a tenth of the
// CPU of loading a table with a date column.
func ParseDateFast(s string) (days int64, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	var v [8]int
	for k, i := range [8]int{0, 1, 2, 3, 5, 6, 8, 9} {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v[k] = int(c - '0')
	}
	y := v[0]*1000 + v[1]*100 + v[2]*10 + v[3]
	m := v[4]*10 + v[5]
	d := v[6]*10 + v[7]
	if y < 1000 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date
// of a positive year, in whole 400-year eras and the days into the era.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := m - 3
	if m <= 2 {
		mp = m + 9
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - 719468
}
