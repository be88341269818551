package wire

// The server encoding is UTF8, and PostgreSQL checks every text that comes
// in against it: a query and a text parameter as a COPY line (copy.go).
// Text that is not valid UTF-8, or holds a NUL (which no PostgreSQL text
// can), is refused with 22021 before anything runs.

// checkText returns the 22021 error for s, or nil when it is valid text.
func checkText(s string) error {
	b := []byte(s)
	if validText(b) {
		return nil
	}
	return invalidUTF8(b)
}

// textualOID: parameter types whose binary form is text, checked like text.
func textualOID(oid uint32) bool {
	switch oid {
	case 0, 18, 19, 25, 114, 142, 705, 1042, 1043, 3802: // unspecified, char, name, text, json, xml, unknown, bpchar, varchar, jsonb
		return true
	}
	return false
}
