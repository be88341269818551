package types

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The general date/time reader, for what the ISO fast path (parseYMD,
// parseClock) does not take: month names ('15 Jan 2024', 'January 15,
// 2024', '15-Jan-2024'), DateStyle MDY numbers ('1/15/2024'), run-together
// digits ('20240115'), AM/PM, zone abbreviations and names
// ('2024-01-15 10:00 America/New_York', '… EDT') and the special words
// (epoch, infinity, now, today, tomorrow, yesterday, allballs), as
// PostgreSQL's ParseDateTime/DecodeDateTime read them with DateStyle
// 'ISO, MDY'.

// DateOrder is the field order DateStyle gives numeric dates whose first
// field is not a year ('1/2/2024'): MDY (the default), DMY or YMD.
type DateOrder uint8

const (
	MDY DateOrder = iota
	DMY
	YMD
)

// DateOrderOf reads the order from a DateStyle setting ("ISO, DMY").
func DateOrderOf(dateStyle string) DateOrder {
	switch {
	case strings.HasSuffix(dateStyle, "DMY"):
		return DMY
	case strings.HasSuffix(dateStyle, "YMD"):
		return YMD
	}
	return MDY
}

// dtSpecial is a special input word standing for a whole value or a day.
type dtSpecial uint8

const (
	specNone dtSpecial = iota
	specEpoch
	specInfinity
	specNegInfinity
	specNow
	specToday
	specTomorrow
	specYesterday
	specAllballs
)

// dtInput is a date/time string taken apart.
type dtInput struct {
	y, m, d  int
	hasDate  bool
	clock    int64
	hasClock bool
	off      int            // zone offset east of UTC in seconds, when hasZone and loc == nil
	loc      *time.Location // a named zone, whose offset depends on the instant
	hasZone  bool
	special  dtSpecial
}

// unknownZoneError is a zone name the time zone database lacks (22023).
type unknownZoneError struct{ name string }

func (e *unknownZoneError) Error() string { return "time zone \"" + e.name + "\" not recognized" }

var (
	errDTSyntax = errors.New("datetime syntax")
	errDTRange  = errors.New("datetime field out of range")
)

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3,
	"apr": 4, "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7,
	"aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10,
	"nov": 11, "november": 11, "dec": 12, "december": 12,
}

var weekdayNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

var specialWords = map[string]dtSpecial{
	"epoch": specEpoch, "infinity": specInfinity, "-infinity": specNegInfinity,
	"now": specNow, "today": specToday, "tomorrow": specTomorrow, "yesterday": specYesterday,
	"allballs": specAllballs,
}

// ZoneAbbrevs are the fixed-offset abbreviations of PostgreSQL's Default
// timezone_abbreviations set (seconds east of UTC).
var ZoneAbbrevs = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0, "uct": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"wet": 0, "west": 3600, "cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "bst": 3600, "ist": 2 * 3600, "idt": 3 * 3600,
	"msk": 3 * 3600, "jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "awst": 8 * 3600,
	"acst": 9*3600 + 1800, "acdt": 10*3600 + 1800, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600, "sast": 2 * 3600, "cat": 2 * 3600, "eat": 3 * 3600, "wat": 3600,
}

// decodeDateTime takes s apart; errDTSyntax and errDTRange tell the
// caller which PostgreSQL error to raise.
func decodeDateTime(s string, order DateOrder) (dtInput, error) { return decodeFields(s, true, order) }

// decodeFields is decodeDateTime; without needDate a time alone will do.
func decodeFields(s string, needDate bool, order DateOrder) (dtInput, error) {
	var in dtInput
	var nums []string // bare numbers, placed once the month name is known
	monthByName := false
	ampm := 0 // 1 AM, 2 PM
	bc := false
	tokens := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		tokens++
		j := i + 1
		switch {
		case isDigit(c):
			for j < len(s) && (isDigit(s[j]) || isAlpha(s[j]) || s[j] == '.' || s[j] == '/' || s[j] == ':' || s[j] == '-') {
				j++
			}
			tok := s[i:j]
			if k := isoT(tok); k > 0 {
				// 2024-01-15T10:00: the date now, the time next round
				j = i + k
				tok = s[i:j]
			}
			switch {
			case strings.Contains(tok, ":"):
				if in.hasClock {
					return in, errDTSyntax
				}
				clock, rest, ok := parseClock(tok)
				if !ok {
					if isDigit(tok[0]) {
						return in, errDTRange
					}
					return in, errDTSyntax
				}
				in.clock, in.hasClock = clock, true
				if rest != "" {
					switch strings.ToLower(rest) {
					case "am":
						ampm = 1
					case "pm":
						ampm = 2
					default:
						off, ok := parseZone(rest)
						if !ok {
							return in, errDTSyntax
						}
						in.off, in.hasZone = off, true
					}
				}
			case strings.ContainsAny(tok, "-/."):
				if in.hasDate || monthByName {
					return in, errDTSyntax
				}
				if err := in.dateToken(tok, order); err != nil {
					return in, err
				}
			case strings.Trim(tok, "0123456789") == "":
				if !in.hasDate && !monthByName && len(nums) == 0 && (len(tok) == 8 || len(tok) == 6) {
					// run-together YYYYMMDD or YYMMDD
					yl := len(tok) - 4
					in.y, _ = strconv.Atoi(tok[:yl])
					if yl == 2 {
						in.y = adjustTwoDigitYear(in.y)
					}
					in.m, _ = strconv.Atoi(tok[yl : yl+2])
					in.d, _ = strconv.Atoi(tok[yl+2:])
					in.hasDate = true
					break
				}
				nums = append(nums, tok)
			default:
				return in, errDTSyntax
			}
		case c == '+' || c == '-':
			for j < len(s) && (isDigit(s[j]) || isAlpha(s[j]) || s[j] == ':') {
				j++
			}
			tok := s[i:j]
			if sp, ok := specialWords[strings.ToLower(tok)]; ok {
				in.special = sp
				break
			}
			off, ok := parseZone(tok)
			if !ok || !in.hasClock || in.hasZone {
				return in, errDTSyntax
			}
			in.off, in.hasZone = off, true
		case (c == 'T' || c == 't') && j < len(s) && isDigit(s[j]):
			tokens-- // ISO's date/time separator
		case isAlpha(c):
			for j < len(s) && (isDigit(s[j]) || isAlpha(s[j]) || s[j] == '_' || s[j] == '/' || s[j] == '-' || s[j] == '+' || s[j] == '.') {
				j++
			}
			tok := s[i:j]
			low := strings.ToLower(tok)
			if k := strings.IndexAny(low, "-/."); k > 0 && monthNames[low[:k]] != 0 {
				if in.hasDate || monthByName {
					return in, errDTSyntax
				}
				if err := in.dateToken(tok, order); err != nil {
					return in, err
				}
				break
			}
			if m, ok := monthNames[low]; ok {
				if monthByName || in.hasDate {
					return in, errDTSyntax
				}
				in.m, monthByName = m, true
				break
			}
			if sp, ok := specialWords[low]; ok {
				if in.special != specNone {
					return in, errDTSyntax
				}
				in.special = sp
				break
			}
			switch {
			case weekdayNames[low], low == "ad", low == "t":
			case low == "bc":
				bc = true
			case low == "am":
				ampm = 1
			case low == "pm":
				ampm = 2
			default:
				if in.hasZone {
					return in, errDTSyntax
				}
				if off, ok := ZoneAbbrevs[low]; ok {
					in.off, in.hasZone = off, true
					break
				}
				loc, ok := zoneByName(tok)
				if !ok {
					if strings.Contains(tok, "/") {
						return in, &unknownZoneError{tok}
					}
					return in, errDTSyntax
				}
				in.loc, in.hasZone = loc, true
			}
		default:
			return in, errDTSyntax
		}
		i = j
	}
	if tokens == 0 {
		return in, errDTSyntax
	}
	switch {
	case monthByName:
		switch len(nums) {
		case 2:
			a, b := nums[0], nums[1]
			if len(a) > 2 {
				a, b = b, a // a year first: 2024 Jan 15
			}
			in.d, _ = strconv.Atoi(a)
			in.y, _ = strconv.Atoi(b)
			if len(b) <= 2 {
				in.y = adjustTwoDigitYear(in.y)
			}
		default:
			return in, errDTSyntax
		}
		in.hasDate = true
	case len(nums) > 0:
		return in, errDTSyntax
	}
	if in.special != specNone {
		if in.hasDate || tokens > 1 && in.special != specToday && in.special != specTomorrow && in.special != specYesterday {
			return in, errDTSyntax
		}
		return in, nil
	}
	if ampm != 0 {
		if !in.hasClock || in.clock >= 13*3600*1000000 {
			return in, errDTRange
		}
		hour12 := in.clock >= 12*3600*1000000
		switch {
		case ampm == 2 && !hour12:
			in.clock += 12 * 3600 * 1000000
		case ampm == 1 && hour12:
			in.clock -= 12 * 3600 * 1000000
		}
	}
	if !in.hasDate {
		if needDate || !in.hasClock {
			return in, errDTSyntax
		}
		return in, nil
	}
	if bc {
		if in.y <= 0 {
			return in, errDTRange
		}
		in.y = 1 - in.y
	} else if in.y == 0 {
		return in, errDTRange
	}
	if in.m < 1 || in.m > 12 || in.d < 1 || in.d > daysIn(in.y, in.m) {
		return in, errDTRange
	}
	if in.clock > MicrosPerDay {
		return in, errDTRange
	}
	return in, nil
}

// dateToken reads a date written with separators: Y-M-D, M/D/Y (or D/M/Y,
// Y/M/D as DateStyle orders), or with a month name in any position
// (15-Jan-2024, Jan-15-2024).
func (in *dtInput) dateToken(tok string, order DateOrder) error {
	k := strings.IndexAny(tok, "-/.")
	parts := strings.Split(tok, tok[k:k+1])
	if len(parts) != 3 {
		return errDTSyntax
	}
	var nums []string
	month := 0
	for _, p := range parts {
		if p == "" {
			return errDTSyntax
		}
		if isAlpha(p[0]) {
			m, ok := monthNames[strings.ToLower(p)]
			if !ok || month != 0 {
				return errDTSyntax
			}
			month = m
			continue
		}
		if strings.Trim(p, "0123456789") != "" {
			return errDTSyntax
		}
		nums = append(nums, p)
	}
	var ys string
	switch {
	case month != 0:
		d := nums[0]
		ys = nums[1]
		if len(nums[0]) > 2 {
			d, ys = nums[1], nums[0]
		}
		in.m = month
		in.d, _ = strconv.Atoi(d)
	case len(nums[0]) > 2:
		ys = nums[0]
		in.m, _ = strconv.Atoi(nums[1])
		in.d, _ = strconv.Atoi(nums[2])
	case order == YMD:
		ys = nums[0]
		in.m, _ = strconv.Atoi(nums[1])
		in.d, _ = strconv.Atoi(nums[2])
	case order == DMY:
		ys = nums[2]
		in.d, _ = strconv.Atoi(nums[0])
		in.m, _ = strconv.Atoi(nums[1])
	default:
		ys = nums[2]
		in.m, _ = strconv.Atoi(nums[0])
		in.d, _ = strconv.Atoi(nums[1])
	}
	in.y, _ = strconv.Atoi(ys)
	if len(ys) <= 2 {
		in.y = adjustTwoDigitYear(in.y)
	}
	in.hasDate = true
	return nil
}

// isoT finds the T between an ISO date and its time (0: none).
func isoT(tok string) int {
	for k := 1; k+1 < len(tok); k++ {
		if (tok[k] == 'T' || tok[k] == 't') && isDigit(tok[k-1]) && isDigit(tok[k+1]) {
			return k
		}
	}
	return 0
}

// adjustTwoDigitYear maps 70..99 to 1970..1999 and 0..69 to 2000..2069.
func adjustTwoDigitYear(y int) int {
	if y < 70 {
		return y + 2000
	}
	return y + 1900
}

var zoneNames sync.Map // spelling → *time.Location

// zoneByName resolves an IANA zone name case-insensitively, as PostgreSQL
// does (America/New_York, america/new_york).
func zoneByName(name string) (*time.Location, bool) {
	if l, ok := zoneNames.Load(name); ok {
		return l.(*time.Location), true
	}
	if strings.EqualFold(name, "local") || strings.Contains(name, "..") {
		return nil, false
	}
	for _, cand := range []string{name, titleZone(name), strings.ToUpper(name)} {
		if l, err := time.LoadLocation(cand); err == nil {
			zoneNames.Store(name, l)
			return l, true
		}
	}
	return nil, false
}

// titleZone capitalises each word of a zone name (new_york → New_York).
func titleZone(name string) string {
	b := []byte(strings.ToLower(name))
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return string(b)
}
