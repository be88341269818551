package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/lakepg/lakepg/cli"
	"github.com/lakepg/lakepg/sql"
	"github.com/lakepg/lakepg/wire"
)

// security holds the TLS and password options.
type security struct {
	tlsCert, tlsKey   *string
	requireTLS        *bool
	bootstrapUser     *string
	bootstrapPassword *string
}

func addSecurityFlags(fs *flag.FlagSet) *security {
	requireTLS, _ := strconv.ParseBool(cli.Env("require-tls", "false"))
	return &security{
		tlsCert: fs.String("tls-cert", cli.Env("tls-cert", ""),
			"PEM certificate (chain) for TLS; without --tls-cert/--tls-key a self-signed certificate for localhost is made at start (env "+cli.EnvName("tls-cert")+")"),
		tlsKey: fs.String("tls-key", cli.Env("tls-key", ""), "PEM private key of --tls-cert (env "+cli.EnvName("tls-key")+")"),
		requireTLS: fs.Bool("require-tls", requireTLS,
			"refuse connections that do not use TLS (env "+cli.EnvName("require-tls")+")"),
		bootstrapUser: fs.String("bootstrap-user", cli.Env("bootstrap-user", "lakepg"),
			"superuser created with --bootstrap-password when no role of that name exists (env "+cli.EnvName("bootstrap-user")+")"),
		// No default from the environment here: flag would print it in --help.
		bootstrapPassword: fs.String("bootstrap-password", "",
			"password of --bootstrap-user, created at start if missing; prefer the environment, which ps does not show (env "+
				cli.EnvName("bootstrap-password")+" or LAKEPG_PASSWORD)"),
	}
}

// tlsConfig loads the certificate, or makes a self-signed one so that
// sslmode=require works out of the box.
func (s *security) tlsConfig(log *slog.Logger) (*tls.Config, error) {
	switch {
	case *s.tlsCert != "" && *s.tlsKey != "":
		return wire.LoadTLSConfig(*s.tlsCert, *s.tlsKey)
	case *s.tlsCert != "" || *s.tlsKey != "":
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	cfg, err := wire.SelfSignedTLSConfig()
	if err != nil {
		return nil, fmt.Errorf("self-signed TLS certificate: %w", err)
	}
	log.Info("TLS with a self-signed certificate for localhost (give --tls-cert and --tls-key for clients that verify the server)",
		"sha256", wire.CertificateFingerprint(cfg))
	return cfg, nil
}

// apply sets the wire options.
func (s *security) apply(opts *wire.Options, cfg *tls.Config) {
	opts.TLS = cfg
	opts.RequireTLS = *s.requireTLS
}

// prepare creates the bootstrap superuser when asked to, then refuses a
// listen address beyond loopback while no role has a password: without one
// every login is trusted, and trust is only for this machine.
func (s *security) prepare(ctx context.Context, eng *sql.Engine, listen string, log *slog.Logger) error {
	if *s.bootstrapPassword == "" {
		// LAKEPG_PASSWORD is the short spelling of LAKEPG_BOOTSTRAP_PASSWORD.
		*s.bootstrapPassword = cli.Env("bootstrap-password", os.Getenv("LAKEPG_PASSWORD"))
	}
	if *s.bootstrapPassword != "" {
		if *s.bootstrapUser == "" {
			return errors.New("--bootstrap-user is empty")
		}
		created, err := eng.BootstrapRole(ctx, *s.bootstrapUser, *s.bootstrapPassword)
		if err != nil {
			return fmt.Errorf("bootstrap role %q: %w", *s.bootstrapUser, err)
		}
		if created {
			log.Info("created superuser role", "role", *s.bootstrapUser)
		} else {
			log.Info("bootstrap role exists; its password is left as it is (change it with ALTER ROLE)", "role", *s.bootstrapUser)
		}
	}
	if loopbackOnly(listen) {
		return nil
	}
	has, err := eng.HasPasswords(ctx)
	if err != nil {
		return err
	}
	if !has {
		return fmt.Errorf("--listen %s: no role has a password, so every login would be trusted; "+
			"lakepg listens beyond loopback only with password authentication: start with "+
			"--bootstrap-password (or LAKEPG_PASSWORD), or create a role with a password first", listen)
	}
	return nil
}

// loopbackOnly reports whether listen is a loopback address ("localhost"
// included); an empty host means every interface.
func loopbackOnly(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
