package compose

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that collects failures instead of failing, so
// that a test can check that the checks fail.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Log(...any)          {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) FailNow()          { r.Fatal("FailNow") }
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors) > 0
}

// TestComposeWiringCatches breaks docker-compose.yml one way at a time, in
// memory, and requires TestComposeWiring's checks to name each break: they
// are only worth their passing if they fail on a miswired file.
func TestComposeWiringCatches(t *testing.T) {
	text := string(composeText(t))
	for _, m := range []struct{ old, new, want string }{
		{"LAKEPG_DATA: s3://lake/data", "LAKEPG_DATA: s3://lakes/data", `creates "lake"`},
		{"postgres://lake:lake@catalog", "postgres://lake:wrong@catalog", "creates user lake"},
		{"postgres://lake:lake@catalog:5432/lakehouse", "postgres://lake:lake@catalog:5432/lake", `creates "lakehouse"`},
		{"@catalog:5432/", "@catalog:5433/", "listens on 5432"},
		{"LAKEPG_S3_ENDPOINT: http://s3:7070", "LAKEPG_S3_ENDPOINT: http://s3:9000", "versitygw listens on s3:7070"},
		{"LAKEPG_S3_PATH_STYLE: \"true\"", "LAKEPG_S3_PATH_STYLE: \"false\"", "path-style"},
		{"LAKEPG_S3_PATH_STYLE: \"true\"", "LAKEPG_S3_PATH_STYLE: true", "quote it"},
		{"AWS_SECRET_ACCESS_KEY: lakepg-secret-key", "AWS_SECRET_ACCESS_KEY: other", "root keys"},
		{"ROOT_ACCESS_KEY: lakepg", "ROOT_ACCESS_KEY: admin", "root keys"},
		{"AWS_REGION: us-east-1", "AWS_REGION: eu-west-1", "signs for region"},
		{`"127.0.0.1:5433:5433"`, `"0.0.0.0:5433:5433"`, "beyond loopback"},
		{`"127.0.0.1:5433:5433"`, `"127.0.0.1:5433:5432"`, "published on"},
		{"LAKEPG_LISTEN: 0.0.0.0:5433", "LAKEPG_LISTEN: 127.0.0.1:5433", "unreachable"},
		{"${LAKEPG_PASSWORD:-change-me}", "${LAKEPG_PASSWORD:-}", "no password"},
		{"condition: service_healthy", "condition: service_started", "service_healthy"},
		{"condition: service_completed_successfully", "condition: service_started", "does not wait"},
		{"pg_isready -U lake -d lakehouse", "pg_isready -U postgres", "healthcheck"},
		{"- s3:/data", "- s3:/srv", "no volume holds"},
		{"s3api create-bucket --bucket lake", "s3api create-bucket --bucket lakes", `creates "lakes"`},
		{"user=lakepg dbname", "user=admin dbname", "bootstrap user"},
		{`password "change-me" unless`, `password "secret" unless`, "default password"},
	} {
		if strings.Count(text, m.old) == 0 {
			t.Errorf("docker-compose.yml no longer has %q: update this test", m.old)
			continue
		}
		r := &recorder{TB: t}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkWiring(r, []byte(strings.Replace(text, m.old, m.new, 1)))
		}()
		wg.Wait()
		joined := strings.Join(r.errors, "\n")
		if !strings.Contains(joined, m.want) {
			t.Errorf("with %q for %q the checks say %q, want a failure mentioning %q", m.new, m.old, r.errors, m.want)
		}
	}
}
