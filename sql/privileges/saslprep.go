package privileges

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// saslPrep prepares a password for SCRAM the way PostgreSQL's pg_saslprep
// does (RFC 4013): ASCII passwords are used as they are; others have
// non-ASCII spaces mapped to a space, "mapped to nothing" characters
// removed, NFKC normalisation applied. A password that is not UTF-8 or
// contains a prohibited character is used as given, as PostgreSQL does, so
// that any byte string can still be a password.
//
// PostgreSQL judges "unassigned" by Unicode 3.2 and lakepg by the Unicode
// version Go carries; the two differ only for characters assigned since
// 2002 whose NFKC form differs from themselves.
func saslPrep(pw string) string {
	ascii := true
	for i := 0; i < len(pw); i++ {
		if pw[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || !utf8.ValidString(pw) {
		return pw
	}
	mapped := make([]rune, 0, len(pw))
	for _, r := range pw {
		switch {
		case mappedToNothing(r):
		case nonASCIISpace(r):
			mapped = append(mapped, ' ')
		default:
			mapped = append(mapped, r)
		}
	}
	out := norm.NFKC.String(string(mapped))
	if out == "" {
		return pw
	}
	randAL, hasL := false, false
	for _, r := range out {
		if prohibited(r) {
			return pw
		}
		switch bidiClass(r) {
		case bidi.R, bidi.AL:
			randAL = true
		case bidi.L:
			hasL = true
		}
	}
	if randAL {
		// RFC 3454 section 6: right-to-left text must be purely so, and
		// start and end with a right-to-left character.
		first, _ := utf8.DecodeRuneInString(out)
		last, _ := utf8.DecodeLastRuneInString(out)
		if hasL || !isRandAL(first) || !isRandAL(last) {
			return pw
		}
	}
	return out
}

func bidiClass(r rune) bidi.Class {
	p, _ := bidi.LookupRune(r)
	return p.Class()
}

func isRandAL(r rune) bool {
	c := bidiClass(r)
	return c == bidi.R || c == bidi.AL
}

// mappedToNothing is RFC 3454 table B.1.
func mappedToNothing(r rune) bool {
	switch r {
	case 0x00AD, 0x034F, 0x1806, 0x180B, 0x180C, 0x180D, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF:
		return true
	}
	return r >= 0xFE00 && r <= 0xFE0F
}

// nonASCIISpace is RFC 3454 table C.1.2.
func nonASCIISpace(r rune) bool {
	switch r {
	case 0x00A0, 0x1680, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200B
}

// prohibited is RFC 4013 section 2.3 (tables C.1.2 and C.2.1 to C.9 of RFC
// 3454) plus unassigned code points.
func prohibited(r rune) bool {
	switch {
	case nonASCIISpace(r):
		return true
	case r < 0x20 || r == 0x7F: // C.2.1
		return true
	case r >= 0x80 && r <= 0x9F, r == 0x06DD, r == 0x070F, r == 0x180E, r >= 0x200C && r <= 0x200D,
		r >= 0x2028 && r <= 0x2029, r >= 0x2060 && r <= 0x2063, r >= 0x206A && r <= 0x206F, r == 0xFEFF,
		r >= 0xFFF9 && r <= 0xFFFC, r >= 0x1D173 && r <= 0x1D17A: // C.2.2
		return true
	case r >= 0xE000 && r <= 0xF8FF, r >= 0xF0000 && r <= 0xFFFFD, r >= 0x100000 && r <= 0x10FFFD: // C.3
		return true
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE: // C.4
		return true
	case r >= 0xD800 && r <= 0xDFFF: // C.5
		return true
	case r >= 0xFFF9 && r <= 0xFFFD: // C.6
		return true
	case r >= 0x2FF0 && r <= 0x2FFB: // C.7
		return true
	case r == 0x0340, r == 0x0341, r == 0x200E, r == 0x200F, r >= 0x202A && r <= 0x202E: // C.8
		return true
	case r == 0xE0001, r >= 0xE0020 && r <= 0xE007F: // C.9
		return true
	}
	return !assigned(r)
}

func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Cf)
}
