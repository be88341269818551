package wire

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"hash"
	"math/big"
	"net"
	"time"

	"github.com/lakepg/lakepg/pgerr"
)

// alpnPostgres is the ALPN protocol PostgreSQL 17 clients send, and require
// for direct TLS (sslnegotiation=direct).
const alpnPostgres = "postgresql"

// tlsRecordHandshake is the first byte of a TLS ClientHello. A startup
// packet starts with its length, whose first byte is 0 for every valid one,
// so a 0x16 means the client skipped the SSLRequest and speaks TLS at once.
const tlsRecordHandshake = 0x16

// LoadTLSConfig reads a PEM certificate chain and its private key.
func LoadTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load TLS certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
}

// SelfSignedTLSConfig makes a certificate for localhost (ECDSA P-256, valid
// for a year, SANs localhost, 127.0.0.1 and ::1), so that sslmode=require
// works without any setup. It lives only in memory; clients that verify the
// server need a real certificate (--tls-cert).
func SelfSignedTLSConfig() (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"lakepg self-signed"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}}}, nil
}

// CertificateFingerprint is the SHA-256 of the first certificate of cfg, in
// hex, for the log line that lets a user recognise a self-signed server.
func CertificateFingerprint(cfg *tls.Config) string {
	if cfg == nil || len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(cfg.Certificates[0].Certificate[0])
	return fmt.Sprintf("%X", sum[:])
}

// serverTLSConfig is the configuration connections use: the caller's, with
// PostgreSQL's ALPN name and at least TLS 1.2.
func serverTLSConfig(base *tls.Config) *tls.Config {
	cfg := base.Clone()
	cfg.NextProtos = []string{alpnPostgres}
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	return cfg
}

// endpointHash is the tls-server-end-point channel binding data (RFC 5929
// section 4.1) of the server certificate: its DER hashed with the hash of
// its signature algorithm, SHA-256 for MD5 and SHA-1. nil when cfg has no
// single static certificate to bind to.
func endpointHash(cfg *tls.Config) []byte {
	if cfg == nil || len(cfg.Certificates) != 1 || len(cfg.Certificates[0].Certificate) == 0 {
		return nil
	}
	der := cfg.Certificates[0].Certificate[0]
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil
	}
	var h hash.Hash
	switch cert.SignatureAlgorithm {
	case x509.SHA384WithRSA, x509.SHA384WithRSAPSS, x509.ECDSAWithSHA384:
		h = sha512.New384()
	case x509.SHA512WithRSA, x509.SHA512WithRSAPSS, x509.ECDSAWithSHA512:
		h = sha512.New()
	case x509.PureEd25519:
		return nil // RFC 5929 defines no hash for it; offer no binding
	default:
		h = crypto.SHA256.New()
	}
	h.Write(der)
	return h.Sum(nil)
}

// startTLS runs the server handshake over c.nc (first holds bytes already
// read from it) and switches the connection to TLS. direct is true when the
// client began with a ClientHello instead of an SSLRequest; PostgreSQL then
// insists on ALPN, so that a TLS connection meant for another protocol is
// not mistaken for ours.
func (c *conn) startTLS(first []byte, direct bool) bool {
	raw := c.nc
	if len(first) > 0 {
		raw = &prefixConn{Conn: raw, prefix: first}
	}
	tc := tls.Server(raw, c.srv.tls)
	if err := tc.Handshake(); err != nil {
		c.log.Debug("TLS handshake failed", "err", err)
		return false
	}
	c.nc = tc
	c.tls = true
	if direct && tc.ConnectionState().NegotiatedProtocol != alpnPostgres {
		c.sendFatal(&pgerr.Error{Code: pgerr.ProtocolViolation,
			Message: "received direct SSL connection request without ALPN protocol negotiation extension"})
		return false
	}
	return true
}

// prefixConn replays bytes already read before reading on.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}
