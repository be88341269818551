package compose

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// scaleOutProfile is the profile of docker-compose.yml that serves the lake
// from several lakepg servers behind HAProxy and PgBouncer.
const scaleOutProfile = "scaleout"

// TestComposeScaleOut checks the "scaleout" profile the way
// TestComposeWiring checks the default one, from the files alone: every
// lakepg service (the default one and the profile's) is given the same
// catalog, bucket, S3 endpoint and password, and lists all of them, at the
// port they listen on, as peers; HAProxy balances over exactly those
// servers and checks them with the bootstrap user; PgBouncer, built from
// the Dockerfile's "pgbouncer" stage (Debian's package, not as root), pools
// transactions onto HAProxy's port, resets sessions with DISCARD ALL,
// ignores pgJDBC's extra_float_digits, logs clients in with SCRAM against
// an auth file holding the bootstrap user and the password lakepg gets;
// and the header documents how to connect to it. test/topology runs the
// same arrangement for real (two lakepg, HAProxy, PgBouncer 1.18, real
// drivers); what only `docker compose --profile scaleout up` proves is that
// the images and the network's names work.
func TestComposeScaleOut(t *testing.T) {
	cf := parseCompose(t, composeText(t), nil)
	df := loadDockerfile(t)
	w := wire(t, cf, df)

	// The lakepg services: the default one and the profile's.
	var lakepgs []string
	for name, s := range cf.Services {
		if s.Build == nil || s.Build.Target != "lakepg" {
			continue
		}
		if len(s.Profiles) > 0 && !slices.Equal(s.Profiles, []string{scaleOutProfile}) {
			t.Errorf("lakepg service %s has profiles %v, want [%s]", name, s.Profiles, scaleOutProfile)
		}
		lakepgs = append(lakepgs, name)
	}
	sort.Strings(lakepgs)
	if len(lakepgs) < 2 {
		t.Fatalf("lakepg services %v: the %s profile adds none", lakepgs, scaleOutProfile)
	}
	_, port, err := net.SplitHostPort(w.setting("listen"))
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, name := range lakepgs {
		addrs = append(addrs, net.JoinHostPort(name, port))
	}
	sort.Strings(addrs)
	for _, name := range lakepgs {
		env := w.service(t, name).Environment
		for _, k := range []string{"LAKEPG_CATALOG", "LAKEPG_DATA", "LAKEPG_S3_ENDPOINT", "LAKEPG_S3_PATH_STYLE", "LAKEPG_LISTEN",
			"LAKEPG_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
			if env[k] != w.lakepgEnv[k] {
				t.Errorf("service %s has %s=%q, the %s service %q: one lake needs one setting", name, k, env[k], w.lakepgName, w.lakepgEnv[k])
			}
		}
		peers := strings.Split(env["LAKEPG_PEERS"], ",")
		sort.Strings(peers)
		if !slices.Equal(peers, addrs) {
			t.Errorf("service %s has LAKEPG_PEERS %q, want every lakepg server: %s", name, env["LAKEPG_PEERS"], strings.Join(addrs, ","))
		}
		if name != w.lakepgName {
			s := w.service(t, name)
			if s.DependsOn[w.catalogName] != "service_healthy" || s.DependsOn[w.bucketName] != "service_completed_successfully" {
				t.Errorf("service %s does not wait for a healthy %s and a created bucket: %v", name, w.catalogName, s.DependsOn)
			}
		}
	}

	// HAProxy: over exactly the lakepg servers, checked with a start-up of
	// the bootstrap user.
	user := w.setting("bootstrap-user")
	if user == "" {
		user = "lakepg"
	}
	haName, ha := profileService(t, cf, func(s *service) bool { return strings.HasPrefix(s.Image, "haproxy:") })
	haCfg := mountedConfig(t, cf, haName, ha, "/usr/local/etc/haproxy/haproxy.cfg")
	var servers []string
	for _, m := range regexp.MustCompile(`(?m)^\s*server\s+\S+\s+(\S+)(.*)$`).FindAllStringSubmatch(haCfg, -1) {
		servers = append(servers, m[1])
		if !strings.Contains(m[2], "check") {
			t.Errorf("HAProxy does not health-check server %s", m[1])
		}
	}
	sort.Strings(servers)
	if !slices.Equal(servers, addrs) {
		t.Errorf("HAProxy balances over %v, want every lakepg server %v", servers, addrs)
	}
	if m := regexp.MustCompile(`option\s+pgsql-check\s+user\s+(\S+)`).FindStringSubmatch(haCfg); m == nil || m[1] != user {
		t.Errorf("HAProxy's pgsql-check user %v, want lakepg's bootstrap user %s", m, user)
	}
	if !regexp.MustCompile(`(?m)^\s*mode\s+tcp\s*$`).MatchString(haCfg) {
		t.Error("HAProxy is not in TCP mode")
	}
	bind := regexp.MustCompile(`(?m)^\s*bind\s+\S*:(\d+)\s*$`).FindStringSubmatch(haCfg)
	if bind == nil {
		t.Fatal("HAProxy's configuration binds no port")
	}

	// PgBouncer: Debian's, not as root, onto HAProxy.
	pbName, pb := profileService(t, cf, func(s *service) bool { return s.Build != nil && s.Build.Target == "pgbouncer" })
	st := df.stage(t, "pgbouncer")
	if debianRelease(st.base) != debianRelease(df.stage(t, "lakepg").base) {
		t.Errorf("pgbouncer stage FROM %s, lakepg stage FROM %s: want the same Debian release (its PgBouncer is what test/topology runs)",
			st.base, df.stage(t, "lakepg").base)
	}
	if runs := strings.Join(instrArgs(st.all("RUN")), " "); !strings.Contains(runs, "apt-get install") || !strings.Contains(runs, "pgbouncer") {
		t.Errorf("the pgbouncer stage does not install Debian's pgbouncer: %s", runs)
	}
	if u := instrArgs(st.all("USER")); len(u) == 0 || u[len(u)-1] == "root" {
		t.Errorf("the pgbouncer stage runs as %v; PgBouncer refuses root", u)
	}
	ini := iniFile(mountedConfig(t, cf, pbName, pb, "/etc/pgbouncer/pgbouncer.ini"))
	dbs := ini["databases"]
	if len(dbs) == 0 {
		t.Fatal("PgBouncer's configuration has no [databases]")
	}
	for db, spec := range dbs {
		kv := iniWords(spec)
		if kv["host"] != haName || kv["port"] != bind[1] || kv["dbname"] != "lake" {
			t.Errorf("PgBouncer database %s = %q: want host=%s port=%s dbname=lake", db, spec, haName, bind[1])
		}
	}
	pg := ini["pgbouncer"]
	want := map[string]string{
		"auth_type":                 "scram-sha-256",
		"pool_mode":                 "transaction",
		"server_reset_query":        "DISCARD ALL",
		"ignore_startup_parameters": "extra_float_digits",
	}
	for k, v := range want {
		if pg[k] != v {
			t.Errorf("PgBouncer %s = %q, want %q", k, pg[k], v)
		}
	}
	users := mountedConfig(t, cf, pbName, pb, pg["auth_file"])
	if m := regexp.MustCompile(`^"([^"]+)" "([^"]*)"\s*$`).FindStringSubmatch(strings.TrimSpace(users)); m == nil ||
		m[1] != user || m[2] != w.lakepgEnv["LAKEPG_PASSWORD"] {
		t.Errorf("PgBouncer's auth file %q: want %q with the password lakepg is given", users, user)
	}
	published := publishedPort(t, pb, pg["listen_port"])
	if published == "" {
		t.Errorf("PgBouncer listens on %s, which it does not publish", pg["listen_port"])
	}
	if !strings.Contains(cf.Header, fmt.Sprintf("--profile %s up", scaleOutProfile)) ||
		!strings.Contains(cf.Header, fmt.Sprintf(`psql "host=127.0.0.1 port=%s user=%s dbname=lake`, published, user)) {
		t.Errorf("the header does not say how to start the %s profile and connect to PgBouncer on port %s", scaleOutProfile, published)
	}
	t.Logf("%s: lakepg servers %v, HAProxy %s on :%s, PgBouncer %s published on 127.0.0.1:%s",
		scaleOutProfile, lakepgs, haName, bind[1], pbName, published)
}

// profileService is the one service of the scale-out profile that match
// says is the one.
func profileService(t *testing.T, cf *composeFile, match func(*service) bool) (string, *service) {
	t.Helper()
	var names []string
	for name, s := range cf.Services {
		if match(s) {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		t.Fatalf("services %v match, want one", names)
	}
	s := cf.Services[names[0]]
	if !slices.Equal(s.Profiles, []string{scaleOutProfile}) {
		t.Errorf("service %s has profiles %v, want [%s]", names[0], s.Profiles, scaleOutProfile)
	}
	return names[0], s
}

// mountedConfig is the content of the config a service mounts at target.
func mountedConfig(t *testing.T, cf *composeFile, name string, s *service, target string) string {
	t.Helper()
	for _, m := range s.Configs {
		if m.Target != target {
			continue
		}
		c, ok := cf.Configs[m.Source]
		if !ok || c == nil || c.Content == "" {
			t.Fatalf("service %s mounts config %q, which has no content under configs:", name, m.Source)
		}
		return c.Content
	}
	t.Fatalf("service %s mounts no config at %s (it has %v)", name, target, s.Configs)
	return ""
}

func instrArgs(ins []instruction) []string {
	var out []string
	for _, in := range ins {
		out = append(out, in.args)
	}
	return out
}

// iniFile parses PgBouncer's ini format: [section] then key = value.
func iniFile(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	sec := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			sec = line[1 : len(line)-1]
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		if out[sec] == nil {
			out[sec] = map[string]string{}
		}
		out[sec][strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out
}

// iniWords splits a database entry's "key=value key=value".
func iniWords(spec string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(spec) {
		k, v, _ := strings.Cut(f, "=")
		out[k] = v
	}
	return out
}
