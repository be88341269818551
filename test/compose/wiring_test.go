package compose

import (
	"net"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// wiring is the compose set-up as the files configure it: each service's
// role, and what lakepg is told to connect to. wire derives it, checking
// what it reads on the way.
type wiring struct {
	cf *composeFile
	df *dockerfile

	// Service names by role.
	lakepgName, catalogName, s3Name, bucketName string

	// lakepg as its container runs it: the Dockerfile's ENTRYPOINT and CMD
	// as the service overrides them, the stage's ENV and the service's.
	lakepgArgs []string
	lakepgEnv  map[string]string
	workdir    string

	catalogDSN *url.URL // --catalog
	dataURL    *url.URL // --data
	endpoint   *url.URL // --s3-endpoint

	// versitygw as its container runs it.
	s3Args []string
	s3Env  map[string]string
	s3Port string // the port of its --port

	bucketArgs []string // the bucket job's command line
	bucket     string   // the bucket it creates
}

// service returns a service of the compose file, failing when it is missing.
func (w *wiring) service(t testing.TB, name string) *service {
	t.Helper()
	s, ok := w.cf.Services[name]
	if !ok || s == nil {
		t.Fatalf("docker-compose.yml has no service %q", name)
	}
	return s
}

// byTarget is the one service of the default profile (what `docker
// compose up` starts) built from the Dockerfile's target stage.
func byTarget(t testing.TB, cf *composeFile, target string) string {
	t.Helper()
	var names []string
	for name, s := range cf.Services {
		if s.Build != nil && s.Build.Target == target && len(s.Profiles) == 0 {
			names = append(names, name)
		}
	}
	if len(names) != 1 {
		t.Fatalf("docker-compose.yml: services built from the Dockerfile's %q target: %v, want one", target, names)
	}
	return names[0]
}

// setting is what lakepg takes for an option: the flag when the command
// line has it, else LAKEPG_<NAME> from the environment, else "".
func (w *wiring) setting(name string) string {
	for i, a := range w.lakepgArgs {
		for _, dash := range []string{"-", "--"} {
			if v, ok := strings.CutPrefix(a, dash+name+"="); ok {
				return v
			}
			if a == dash+name && i+1 < len(w.lakepgArgs) {
				return w.lakepgArgs[i+1]
			}
		}
	}
	return w.lakepgEnv["LAKEPG_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))]
}

// flagValue is the value of --name in a command line, "" without it.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// imageCommand is what a service's container runs: the image's ENTRYPOINT
// and CMD, as the service's entrypoint and command override them (an
// entrypoint override also drops the image's CMD, as Compose does).
func imageCommand(t testing.TB, st *stage, s *service) []string {
	t.Helper()
	entry, cmd := st.exec(t, "ENTRYPOINT"), st.exec(t, "CMD")
	if s.Entrypoint != nil {
		entry, cmd = s.Entrypoint, nil
	}
	if s.Command != nil {
		cmd = s.Command
	}
	return append(slices.Clone(entry), cmd...)
}

func wire(t testing.TB, cf *composeFile, df *dockerfile) *wiring {
	t.Helper()
	w := &wiring{cf: cf, df: df}
	w.lakepgName = byTarget(t, cf, "lakepg")
	w.s3Name = byTarget(t, cf, "versitygw")
	for _, name := range []string{w.lakepgName, w.s3Name} {
		if b := w.service(t, name).Build; b.Context != "." || (b.Dockerfile != "" && b.Dockerfile != "Dockerfile") {
			t.Errorf("service %s builds from context %q, Dockerfile %q: want the Dockerfile beside docker-compose.yml", name, b.Context, b.Dockerfile)
		}
	}

	// lakepg's command line and environment.
	lst := df.stage(t, "lakepg")
	lsvc := w.service(t, w.lakepgName)
	cmd := imageCommand(t, lst, lsvc)
	if len(cmd) == 0 || path.Base(cmd[0]) != "lakepg" {
		t.Fatalf("the lakepg service runs %q, not lakepg", cmd)
	}
	w.lakepgArgs = cmd[1:]
	w.lakepgEnv = map[string]string{}
	for k, v := range lst.env(t) {
		w.lakepgEnv[k] = v
	}
	for k, v := range lsvc.Environment {
		w.lakepgEnv[k] = v
	}
	w.workdir = "/"
	for _, in := range lst.all("WORKDIR") {
		w.workdir = path.Join(w.workdir, in.args)
	}

	var err error
	if w.catalogDSN, err = url.Parse(w.setting("catalog")); err != nil || (w.catalogDSN.Scheme != "postgres" && w.catalogDSN.Scheme != "postgresql") {
		t.Fatalf("lakepg's --catalog %q: want a postgres:// URL (%v)", w.setting("catalog"), err)
	}
	w.catalogName = w.catalogDSN.Hostname()
	if w.dataURL, err = url.Parse(w.setting("data")); err != nil || w.dataURL.Scheme != "s3" || w.dataURL.Host == "" {
		t.Fatalf("lakepg's --data %q: want s3://BUCKET/PREFIX (%v)", w.setting("data"), err)
	}
	if w.endpoint, err = url.Parse(w.setting("s3-endpoint")); err != nil || w.endpoint.Scheme != "http" || w.endpoint.Port() == "" {
		t.Fatalf("lakepg's --s3-endpoint %q: want http://SERVICE:PORT (%v)", w.setting("s3-endpoint"), err)
	}

	// versitygw's command line and environment.
	sst := df.stage(t, "versitygw")
	ssvc := w.service(t, w.s3Name)
	w.s3Args = imageCommand(t, sst, ssvc)
	w.s3Env = map[string]string{}
	for k, v := range sst.env(t) {
		w.s3Env[k] = v
	}
	for k, v := range ssvc.Environment {
		w.s3Env[k] = v
	}
	_, w.s3Port, err = net.SplitHostPort(flagValue(w.s3Args, "port"))
	if err != nil {
		t.Fatalf("versitygw's --port in %q: %v", w.s3Args, err)
	}

	// The bucket job: the service whose command creates a bucket.
	create := regexp.MustCompile(`create-bucket\s+--bucket\s+([a-z0-9.-]+)`)
	for name, s := range cf.Services {
		argv := append(slices.Clone(s.Entrypoint), s.Command...)
		if m := create.FindStringSubmatch(strings.Join(argv, " ")); m != nil {
			if w.bucketName != "" {
				t.Fatalf("services %s and %s both create buckets", w.bucketName, name)
			}
			w.bucketName, w.bucketArgs, w.bucket = name, argv, m[1]
		}
	}
	if w.bucketName == "" {
		t.Fatal("no service of docker-compose.yml creates a bucket")
	}
	return w
}

// TestComposeWiring checks that the services of docker-compose.yml are
// wired to each other as the Dockerfile and the PostgreSQL image make them
// listen: lakepg's catalog DSN names the catalog service, its user,
// password, database and port; its data bucket is the one the bucket job
// creates; its S3 endpoint, region and credentials are the s3 service's;
// the volumes hold what the images store; ports are published on loopback
// only; the start order waits for a healthy catalog and a created bucket;
// and the header comment documents what the file does.
func TestComposeWiring(t *testing.T) {
	checkWiring(t, composeText(t))
}

func checkWiring(t testing.TB, text []byte) {
	t.Helper()
	cf := parseCompose(t, text, nil)
	w := wire(t, cf, loadDockerfile(t))

	// The catalog: a PostgreSQL service with the user, password and database of the DSN.
	cat := w.service(t, w.catalogName)
	if !strings.HasPrefix(cat.Image, "postgres:") {
		t.Errorf("lakepg's catalog host %q is service image %q, want a postgres image", w.catalogName, cat.Image)
	}
	pgUser := cat.Environment["POSTGRES_USER"]
	if pgUser == "" {
		pgUser = "postgres"
	}
	pgDB := cat.Environment["POSTGRES_DB"]
	if pgDB == "" {
		pgDB = pgUser
	}
	pass, _ := w.catalogDSN.User.Password()
	if w.catalogDSN.User.Username() != pgUser || pass != cat.Environment["POSTGRES_PASSWORD"] || pass == "" {
		t.Errorf("--catalog logs in as %s (password set: %v); the %s service creates user %s with password %q",
			w.catalogDSN.User.Username(), pass != "", w.catalogName, pgUser, cat.Environment["POSTGRES_PASSWORD"])
	}
	if db := strings.TrimPrefix(w.catalogDSN.Path, "/"); db != pgDB {
		t.Errorf("--catalog names database %q, the %s service creates %q", db, w.catalogName, pgDB)
	}
	// The postgres image listens on 5432 unless told otherwise.
	if p := w.catalogDSN.Port(); p != "5432" || cat.Environment["PGPORT"] != "" {
		t.Errorf("--catalog port %q, the %s service listens on 5432 (PGPORT %q)", p, w.catalogName, cat.Environment["PGPORT"])
	}
	if w.catalogDSN.Query().Get("sslmode") != "disable" {
		t.Errorf("--catalog %s: the postgres image serves no TLS, want sslmode=disable", w.catalogDSN.Redacted())
	}
	if cat.Healthcheck == nil {
		t.Errorf("the %s service has no healthcheck for lakepg to wait on", w.catalogName)
	} else if h := strings.Join(cat.Healthcheck.Test, " "); !strings.Contains(h, "pg_isready") ||
		!strings.Contains(h, "-U "+pgUser) || !strings.Contains(h, "-d "+pgDB) {
		t.Errorf("the %s healthcheck %q does not run pg_isready for user %s and database %s", w.catalogName, h, pgUser, pgDB)
	}

	// The data: the bucket the bucket job creates, on the s3 service, with its keys.
	if w.dataURL.Host != w.bucket {
		t.Errorf("--data %s is in bucket %q, the %s service creates %q", w.dataURL, w.dataURL.Host, w.bucketName, w.bucket)
	}
	if strings.Trim(w.dataURL.Path, "/") == "" {
		t.Errorf("--data %s: want a prefix under the bucket", w.dataURL)
	}
	if w.endpoint.Hostname() != w.s3Name || w.endpoint.Port() != w.s3Port {
		t.Errorf("--s3-endpoint %s, the %s service's versitygw listens on %s:%s", w.endpoint, w.s3Name, w.s3Name, w.s3Port)
	}
	// A host name like "s3" has no bucket subdomains: path-style addressing is needed.
	if w.setting("s3-path-style") != "true" {
		t.Errorf("--s3-path-style is %q, want true for an endpoint addressed by service name", w.setting("s3-path-style"))
	}
	region := w.setting("s3-region")
	if region == "" {
		region = w.lakepgEnv["AWS_REGION"]
	}
	if vr := flagValue(w.s3Args, "region"); region != vr || vr == "" {
		t.Errorf("lakepg signs for region %q, versitygw serves region %q", region, vr)
	}
	key, secret := w.s3Env["ROOT_ACCESS_KEY"], w.s3Env["ROOT_SECRET_KEY"]
	if key == "" || secret == "" {
		t.Errorf("the %s service sets no ROOT_ACCESS_KEY/ROOT_SECRET_KEY for versitygw", w.s3Name)
	}
	bsvc := w.service(t, w.bucketName)
	for name, env := range map[string]map[string]string{w.lakepgName: w.lakepgEnv, w.bucketName: bsvc.Environment} {
		if env["AWS_ACCESS_KEY_ID"] != key || env["AWS_SECRET_ACCESS_KEY"] != secret {
			t.Errorf("the %s service's AWS credentials (%s) are not the %s service's root keys (%s)", name, env["AWS_ACCESS_KEY_ID"], w.s3Name, key)
		}
	}
	if ep := regexp.MustCompile(`--endpoint-url\s+(\S+)`).FindAllStringSubmatch(strings.Join(w.bucketArgs, " "), -1); len(ep) == 0 {
		t.Errorf("the %s job names no --endpoint-url", w.bucketName)
	} else {
		for _, m := range ep {
			if m[1] != w.endpoint.String() {
				t.Errorf("the %s job uses endpoint %s, lakepg %s", w.bucketName, m[1], w.endpoint)
			}
		}
	}

	// Volumes: where the images keep their state, declared at the top.
	posix := w.s3Args[len(w.s3Args)-1]
	checkVolume(t, cf, w.s3Name, posix)
	checkVolume(t, cf, w.catalogName, "/var/lib/postgresql/data")
	if cat.Environment["PGDATA"] != "" {
		t.Errorf("the %s service moves PGDATA to %s, away from its volume", w.catalogName, cat.Environment["PGDATA"])
	}

	// lakepg listens where its published port leads, beyond the container's
	// loopback, so it needs a password; every published port is on loopback.
	host, port, err := net.SplitHostPort(w.setting("listen"))
	if err != nil {
		t.Fatalf("lakepg's --listen %q: %v", w.setting("listen"), err)
	}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		t.Errorf("lakepg listens on %s: unreachable through a published port", w.setting("listen"))
	}
	if w.setting("bootstrap-password") == "" && w.lakepgEnv["LAKEPG_PASSWORD"] == "" {
		t.Errorf("lakepg listens on %s but has no password: it refuses to start", w.setting("listen"))
	}
	published := publishedPort(t, w.service(t, w.lakepgName), port)
	for name, s := range cf.Services {
		for _, p := range s.Ports {
			hostIP, _, _ := parsePort(t, name, p)
			if ip := net.ParseIP(hostIP); ip == nil || !ip.IsLoopback() {
				t.Errorf("service %s publishes %q beyond loopback", name, p)
			}
		}
	}

	// Start order: a healthy catalog, and a bucket that exists, before lakepg.
	lsvc := w.service(t, w.lakepgName)
	if c := lsvc.DependsOn[w.catalogName]; c != "service_healthy" {
		t.Errorf("lakepg depends on %s with condition %q, want service_healthy", w.catalogName, c)
	}
	switch {
	case lsvc.DependsOn[w.s3Name] == "service_healthy" && w.service(t, w.s3Name).Healthcheck != nil:
	case lsvc.DependsOn[w.bucketName] == "service_completed_successfully" && bsvc.DependsOn[w.s3Name] != "":
		// The job retries until versitygw answers, and lakepg waits for it.
		if !strings.Contains(strings.Join(w.bucketArgs, " "), "seq") {
			t.Errorf("the %s job does not retry while %s starts", w.bucketName, w.s3Name)
		}
	default:
		t.Errorf("lakepg does not wait for %s: want depends_on %s service_completed_successfully (which depends on %s) or %s service_healthy",
			w.s3Name, w.bucketName, w.s3Name, w.s3Name)
	}

	// The header documents the connection: user, database, port, default password.
	conn := headerConninfo(t, cf)
	if conn["port"] != published {
		t.Errorf("the header connects to port %s, lakepg is published on %s", conn["port"], published)
	}
	user := w.setting("bootstrap-user")
	if user == "" {
		user = "lakepg"
	}
	if conn["user"] != user {
		t.Errorf("the header connects as %q, lakepg's bootstrap user is %q", conn["user"], user)
	}
	m := regexp.MustCompile(`password "([^"]*)" unless LAKEPG_PASSWORD is set`).FindStringSubmatch(cf.Header)
	if m == nil || m[1] != w.lakepgEnv["LAKEPG_PASSWORD"] {
		t.Errorf("the header's default password %q, the lakepg service's LAKEPG_PASSWORD without one set is %q", m, w.lakepgEnv["LAKEPG_PASSWORD"])
	}
	set := parseCompose(t, text, map[string]string{"LAKEPG_PASSWORD": "secret"}).Services[w.lakepgName].Environment["LAKEPG_PASSWORD"]
	if set != "secret" {
		t.Errorf("with LAKEPG_PASSWORD=secret the lakepg service's password is %q", set)
	}
	module, version := testShPin(t)
	for _, claim := range []string{`database "` + pgDB + `"`, `bucket "` + w.bucket + `"`, "--data " + w.dataURL.String(), "versitygw " + version} {
		if !strings.Contains(cf.Header, claim) {
			t.Errorf("the header does not say %s", claim)
		}
	}
	t.Logf("catalog %s (user %s, database %s), data %s, S3 %s (versitygw %s@%s, region %s), lakepg on %s published on 127.0.0.1:%s",
		w.catalogName, pgUser, pgDB, w.dataURL, w.endpoint, module, version, region, w.setting("listen"), published)
}

// checkVolume checks that a service mounts a declared named volume at dir.
func checkVolume(t testing.TB, cf *composeFile, name, dir string) {
	t.Helper()
	for _, v := range cf.Services[name].Volumes {
		src, dst, _ := strings.Cut(v, ":")
		if strings.TrimSuffix(dst, ":rw") == dir {
			if _, ok := cf.Volumes[src]; !ok {
				t.Errorf("service %s mounts volume %q, which is not declared under volumes:", name, src)
			}
			return
		}
	}
	t.Errorf("service %s keeps its state in %s, which no volume holds", name, dir)
}

// parsePort splits a short-syntax port "HOST_IP:HOST_PORT:CONTAINER_PORT".
func parsePort(t testing.TB, name, p string) (hostIP, hostPort, containerPort string) {
	t.Helper()
	f := strings.Split(strings.TrimSuffix(p, "/tcp"), ":")
	if len(f) != 3 {
		t.Fatalf("service %s publishes %q: want HOST_IP:HOST_PORT:CONTAINER_PORT", name, p)
	}
	return f[0], f[1], f[2]
}

// publishedPort is the host port a service publishes its container port
// on, "" when it does not.
func publishedPort(t testing.TB, s *service, containerPort string) string {
	t.Helper()
	for _, p := range s.Ports {
		if _, hp, cp := parsePort(t, "", p); cp == containerPort {
			return hp
		}
	}
	return ""
}

// headerConninfo is the libpq connection string of the psql command in the
// header comment, as a map.
func headerConninfo(t testing.TB, cf *composeFile) map[string]string {
	t.Helper()
	m := regexp.MustCompile(`psql "([^"]+)"`).FindStringSubmatch(cf.Header)
	if m == nil {
		t.Fatal("the header of docker-compose.yml shows no psql \"…\" command")
	}
	out := map[string]string{}
	for _, kv := range strings.Fields(m[1]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("header conninfo %q: %q is not key=value", m[1], kv)
		}
		out[k] = v
	}
	return out
}
