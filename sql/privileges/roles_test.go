package privileges

import (
	"encoding/base64"
	"testing"
)

func TestSASLPrep(t *testing.T) {
	for in, want := range map[string]string{
		"plain ascii":             "plain ascii",
		"ctl\x01ascii":            "ctl\x01ascii", // ASCII is never touched
		"I\u00ADX":                "IX",           // soft hyphen maps to nothing
		"a\u00A0b":                "a b",          // no-break space maps to space
		"\uFF50\uFF57":            "pw",           // fullwidth letters, NFKC
		"\u2168":                  "IX",           // ROMAN NUMERAL NINE, NFKC
		"p\u00E4ss":               "p\u00E4ss",
		"pa\u0308ss":              "p\u00E4ss", // composed by NFKC
		"bad\u0007\u00E4":         "bad\u0007\u00E4",
		"\u05D0\u05D1":            "\u05D0\u05D1",  // right-to-left only: fine
		"\u05D0a\u05D1":           "\u05D0a\u05D1", // mixed direction: prohibited, used raw
		"private\uE000\u00E4":     "private\uE000\u00E4",
		string([]byte{0xff, 'a'}): string([]byte{0xff, 'a'}), // not UTF-8: used raw
	} {
		if got := saslPrep(in); got != want {
			t.Errorf("saslPrep(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVerifierKnownAnswer(t *testing.T) {
	// RFC 7677's example user: password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==,
	// 4096 iterations; the RFC's proof implies StoredKey and ServerKey,
	// which PostgreSQL stores as below for the same inputs.
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	got, err := scramVerifier("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	want := "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
	if got != want {
		t.Errorf("verifier\n got  %s\n want %s", got, want)
	}
	if !isSCRAMVerifier(got) || isSCRAMVerifier("SCRAM-SHA-256$4096:abc") || isSCRAMVerifier("pencil") {
		t.Error("isSCRAMVerifier")
	}
}

func TestRedactPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1": "SELECT 1",
		"CREATE ROLE a LOGIN PASSWORD 'se''cret'":                  "CREATE ROLE a LOGIN PASSWORD '********'",
		"alter user b with encrypted password\n  E'x\\'y' login":   "alter user b with encrypted password\n  E'********' login",
		"ALTER ROLE c PASSWORD NULL":                               "ALTER ROLE c PASSWORD NULL",
		"SELECT 'password ''x''' AS password_col, password":        "SELECT 'password ''x''' AS password_col, password",
		"CREATE USER d PASSWORD 'p1'; CREATE USER e PASSWORD 'p2'": "CREATE USER d PASSWORD '********'; CREATE USER e PASSWORD '********'",
		"CREATE USER f PASSWORD 'unterminated":                     "CREATE USER f PASSWORD '********'",
	} {
		if got := RedactPasswords(in); got != want {
			t.Errorf("RedactPasswords(%q) = %q, want %q", in, got, want)
		}
	}
}
