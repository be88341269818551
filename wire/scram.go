package wire

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"

	"github.com/lakepg/lakepg/pgerr"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: the user name
// comes from the startup packet (the SCRAM "n=" attribute is ignored), no
// authorization identity, channel binding only as tls-server-end-point.
const (
	mechSCRAM     = "SCRAM-SHA-256"
	mechSCRAMPlus = "SCRAM-SHA-256-PLUS"
	cbindType     = "tls-server-end-point"
	// scramNonceLen is how many random bytes the server adds to the nonce
	// (PostgreSQL's SCRAM_RAW_NONCE_LEN).
	scramNonceLen = 18
	// mockSaltLen is the salt length of the pretend secret of an unknown
	// user, PostgreSQL's default.
	mockSaltLen = 16
	mockIters   = 4096
)

// errAuthFailed means the proof did not verify (or there was nothing to
// verify it against); the caller reports 28P01 with the user's name, the same
// for an unknown user as for a wrong password.
var errAuthFailed = errors.New("SCRAM authentication failed")

// scramSecret is a parsed verifier SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>.
type scramSecret struct {
	iters     int
	salt      []byte
	storedKey []byte
	serverKey []byte
}

// parseSCRAMSecret parses a verifier in PostgreSQL's format.
func parseSCRAMSecret(v string) (scramSecret, bool) {
	rest, ok := strings.CutPrefix(v, "SCRAM-SHA-256$")
	if !ok {
		return scramSecret{}, false
	}
	params, keys, ok := strings.Cut(rest, "$")
	if !ok {
		return scramSecret{}, false
	}
	iterText, saltText, ok1 := strings.Cut(params, ":")
	storedText, serverText, ok2 := strings.Cut(keys, ":")
	if !ok1 || !ok2 {
		return scramSecret{}, false
	}
	iters, err := strconv.Atoi(iterText)
	if err != nil || iters < 1 {
		return scramSecret{}, false
	}
	var s scramSecret
	s.iters = iters
	dec := base64.StdEncoding
	if s.salt, err = dec.DecodeString(saltText); err != nil || len(s.salt) == 0 {
		return scramSecret{}, false
	}
	if s.storedKey, err = dec.DecodeString(storedText); err != nil || len(s.storedKey) != sha256.Size {
		return scramSecret{}, false
	}
	if s.serverKey, err = dec.DecodeString(serverText); err != nil || len(s.serverKey) != sha256.Size {
		return scramSecret{}, false
	}
	return s, true
}

// mockSecret is what an unknown user (or one without a usable password) is
// challenged with: a salt derived from the name and a per-server key, so the
// same name always sees the same salt and a client cannot tell that the user
// does not exist. No proof verifies against it.
func mockSecret(key []byte, user string) scramSecret {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(user))
	return scramSecret{iters: mockIters, salt: m.Sum(nil)[:mockSaltLen]}
}

// scramServer is the server side of one exchange; it does no I/O.
type scramServer struct {
	secret scramSecret
	mock   bool   // secret is a mockSecret: the exchange must fail
	cbData []byte // tls-server-end-point hash of our certificate; nil without TLS

	gs2Header       string // as the client sent it, e.g. "n,," or "p=tls-server-end-point,,"
	clientFirstBare string
	serverFirst     string
	nonce           string // client nonce + server nonce
}

// mechanisms are the SASL mechanisms offered, preferred first.
func (s *scramServer) mechanisms() []string {
	if s.cbData != nil {
		return []string{mechSCRAMPlus, mechSCRAM}
	}
	return []string{mechSCRAM}
}

func malformed(detail string) error {
	return &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "malformed SCRAM message", Detail: detail}
}

// first handles SASLInitialResponse and returns the server-first-message.
func (s *scramServer) first(mechanism string, msg []byte) ([]byte, error) {
	plus := false
	switch mechanism {
	case mechSCRAM:
	case mechSCRAMPlus:
		if s.cbData == nil {
			return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "client selected an invalid SASL authentication mechanism"}
		}
		plus = true
	default:
		return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "client selected an invalid SASL authentication mechanism"}
	}
	m := string(msg)
	if m == "" {
		return nil, malformed("The message is empty.")
	}
	// gs2-cbind-flag
	var flagEnd int
	switch m[0] {
	case 'n', 'y':
		if plus {
			return nil, malformed("The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel binding data.")
		}
		if m[0] == 'y' && s.cbData != nil {
			// The client could bind but believes we cannot: someone in
			// the middle removed SCRAM-SHA-256-PLUS from our offer.
			return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "SCRAM channel binding negotiation error",
				Detail: "The client supports SCRAM channel binding but thinks the server does not.  However, this server does support channel binding."}
		}
		flagEnd = 1
	case 'p':
		if !plus {
			return nil, malformed("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.")
		}
		name, _, ok := strings.Cut(strings.TrimPrefix(m, "p="), ",")
		if !strings.HasPrefix(m, "p=") || !ok {
			return nil, malformed("Unexpected channel-binding flag.")
		}
		if name != cbindType {
			return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "unsupported SCRAM channel-binding type \"" + name + "\""}
		}
		flagEnd = len("p=") + len(name)
	default:
		return nil, malformed("Unexpected channel-binding flag \"" + m[:1] + "\".")
	}
	rest := m[flagEnd:]
	if !strings.HasPrefix(rest, ",") {
		return nil, malformed("Comma expected, but found character \"" + firstChar(rest) + "\".")
	}
	rest = rest[1:]
	// authzid: PostgreSQL takes the user from the startup packet only.
	if strings.HasPrefix(rest, "a=") {
		return nil, &pgerr.Error{Code: pgerr.FeatureNotSupported, Message: "client uses authorization identity, but it is not supported"}
	}
	if !strings.HasPrefix(rest, ",") {
		return nil, malformed("Unexpected attribute \"" + firstChar(rest) + "\" in client-first-message.")
	}
	s.gs2Header = m[:len(m)-len(rest)+1]
	s.clientFirstBare = rest[1:]

	attrs := strings.Split(s.clientFirstBare, ",")
	if len(attrs) > 0 && strings.HasPrefix(attrs[0], "m=") {
		return nil, &pgerr.Error{Code: pgerr.FeatureNotSupported, Message: "client requires an unsupported SCRAM extension"}
	}
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "n=") || !strings.HasPrefix(attrs[1], "r=") {
		return nil, malformed("Expected attributes \"n\" and \"r\" in client-first-message.")
	}
	clientNonce := attrs[1][2:]
	if clientNonce == "" || !printable(clientNonce) {
		return nil, malformed("Could not parse the client nonce.")
	}
	var raw [scramNonceLen]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	s.nonce = clientNonce + base64.StdEncoding.EncodeToString(raw[:])
	s.serverFirst = "r=" + s.nonce + ",s=" + base64.StdEncoding.EncodeToString(s.secret.salt) + ",i=" + strconv.Itoa(s.secret.iters)
	return []byte(s.serverFirst), nil
}

// final handles the client-final-message: it checks the channel binding and
// the proof and returns the server-final-message ("v=<ServerSignature>").
// errAuthFailed means a wrong password or an unknown user.
func (s *scramServer) final(msg []byte) ([]byte, error) {
	m := string(msg)
	i := strings.LastIndex(m, ",p=")
	if i < 0 {
		return nil, malformed("Could not find proof in client-final-message.")
	}
	withoutProof, proofText := m[:i], m[i+len(",p="):]
	attrs := strings.Split(withoutProof, ",")
	if len(attrs) < 2 || !strings.HasPrefix(attrs[0], "c=") || !strings.HasPrefix(attrs[1], "r=") {
		return nil, malformed("Expected attributes \"c\" and \"r\" in client-final-message.")
	}
	cbind, err := base64.StdEncoding.DecodeString(attrs[0][2:])
	if err != nil {
		return nil, malformed("Could not decode the channel-binding data.")
	}
	want := []byte(s.gs2Header)
	if strings.HasPrefix(s.gs2Header, "p=") {
		want = append(want, s.cbData...)
	}
	if subtle.ConstantTimeCompare(cbind, want) != 1 {
		return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Message: "SCRAM channel binding check failed"}
	}
	proof, err := base64.StdEncoding.DecodeString(proofText)
	if err != nil || len(proof) != sha256.Size {
		return nil, malformed("Malformed proof in client-final-message.")
	}
	if attrs[1][2:] != s.nonce || s.mock {
		return nil, errAuthFailed
	}
	authMessage := []byte(s.clientFirstBare + "," + s.serverFirst + "," + withoutProof)
	clientKey := hmacSHA256(s.secret.storedKey, authMessage)
	for i := range clientKey {
		clientKey[i] ^= proof[i]
	}
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], s.secret.storedKey) != 1 {
		return nil, errAuthFailed
	}
	sig := hmacSHA256(s.secret.serverKey, authMessage)
	return []byte("v=" + base64.StdEncoding.EncodeToString(sig)), nil
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

// printable is RFC 5802's printable: %x21-2B / %x2D-7E.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == ',' {
			return false
		}
	}
	return true
}

func firstChar(s string) string {
	if s == "" {
		return ""
	}
	return s[:1]
}
