package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgres is the PostgreSQL server of the comparisons: a throwaway cluster the run
// starts (Debian's binaries, settings below), or an existing server (Config.PGDSN, e.g.
// the one scripts/test.sh starts for the tests) in which the run creates and drops
// databases of its own.
type postgres struct {
	admin    string // DSN of the maintenance database
	own      bool
	dir      string // of an own cluster
	postmast int    // the postmaster's pid, 0 when it is not on this machine
	version  string
	created  []string // databases to drop at the end on a server that is not ours
}

// pgSettings are the throwaway cluster's settings besides the defaults: memory for an
// analytical workload on this machine, parallel workers as lakepg has threads.
// Durability (fsync, synchronous_commit) stays on, as lakepg's commits are durable too.
func (r *Runner) pgSettings() []string {
	m := readMachine()
	shared := min(max(m.memTotal/4, 128<<20), 4<<30)
	return []string{
		"shared_buffers=" + strconv.FormatInt(shared>>20, 10) + "MB",
		"work_mem=256MB",
		"maintenance_work_mem=1GB",
		"max_parallel_workers_per_gather=" + strconv.Itoa(r.cfg.Threads),
		"max_worker_processes=" + strconv.Itoa(max(8, r.cfg.Threads)),
		"max_parallel_workers=" + strconv.Itoa(max(8, r.cfg.Threads)),
		"max_connections=200",
		"TimeZone=UTC",
	}
}

// postgresServer starts or connects the PostgreSQL server and creates the benchmark's
// database on first use.
func (r *Runner) postgresServer(ctx context.Context) (*postgres, error) {
	if r.pg != nil {
		return r.pg, nil
	}
	pg := &postgres{}
	if r.cfg.PGDSN != "" {
		pg.admin = r.cfg.PGDSN
		r.rep.setting("PostgreSQL server", "an existing server (BENCH_PG_DSN or LAKEPG_TEST_PG_DSN), settings as shown below")
	} else if err := r.startPostgres(ctx, pg); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, pg.admin)
	if err != nil {
		pg.close(r)
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var backend int
	if err := conn.QueryRow(ctx, "SELECT version(), pg_backend_pid()").Scan(&pg.version, &backend); err != nil {
		return nil, err
	}
	if !pg.own {
		pg.postmast = parentPostgres(backend)
	}
	var settings []string
	for _, name := range []string{"shared_buffers", "work_mem", "max_parallel_workers_per_gather", "fsync", "synchronous_commit", "jit"} {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err == nil {
			settings = append(settings, name+"="+v)
		}
	}
	r.rep.version("PostgreSQL", pg.version)
	r.rep.setting("PostgreSQL settings", strings.Join(settings, ", "))
	r.pg = pg
	db, err := pg.createDB(ctx, r, "bench")
	if err != nil {
		return nil, err
	}
	r.pgDB = db
	return pg, nil
}

// parentPostgres is the postmaster of a backend when both are on this machine.
func parentPostgres(backend int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", backend))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …: comm may hold blanks, so split after the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid)); err == nil && strings.Contains(string(comm), "postgres") {
				return ppid
			}
		}
	}
	return 0
}

// asPostgres runs a server binary as the postgres user when we are root (the server
// refuses to run as root).
func asPostgres(argv ...string) []string {
	if os.Geteuid() == 0 {
		return append([]string{"runuser", "-u", "postgres", "--"}, argv...)
	}
	return argv
}

func (r *Runner) startPostgres(ctx context.Context, pg *postgres) error {
	if err := r.ensurePGBin(ctx); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			return fmt.Errorf("running as root without runuser to start PostgreSQL as the postgres user")
		}
	}
	// Under /tmp whatever TMPDIR says, so that the postgres user reaches it.
	dir, err := os.MkdirTemp("/tmp", "lakepg-bench-pg-")
	if err != nil {
		return err
	}
	pg.dir, pg.own = dir, true
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("chown postgres %s: %v: %s", dir, err, out)
		}
	}
	bin := r.tools.pgBin
	data := filepath.Join(dir, "data")
	if _, err := r.run(ctx, "/", os.Environ(), asPostgres(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C")...); err != nil {
		return err
	}
	for try := 0; try < 5; try++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s", port, dir)
		for _, s := range r.pgSettings() {
			opts += " -c " + s
		}
		_, err = r.run(ctx, "/", os.Environ(), asPostgres(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "120", "start", "-o", opts)...)
		if err != nil {
			continue
		}
		pg.admin = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
		if b, err := os.ReadFile(filepath.Join(data, "postmaster.pid")); err == nil {
			pg.postmast, _ = strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
		}
		r.rep.setting("PostgreSQL server", "a throwaway cluster: initdb -A trust -E UTF8 --locale=C, started with -c "+strings.Join(r.pgSettings(), " -c "))
		return nil
	}
	log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
	return fmt.Errorf("could not start PostgreSQL: %s", tail(string(log), 2000))
}

// createDB creates a fresh database and returns its DSN.
func (pg *postgres) createDB(ctx context.Context, r *Runner, prefix string) (string, error) {
	name := prefix
	if !pg.own {
		name = fmt.Sprintf("lakepg_bench_%s_%d", prefix, os.Getpid())
	}
	conn, err := pgx.Connect(ctx, pg.admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return "", fmt.Errorf("PostgreSQL: CREATE DATABASE %s: %w", name, err)
	}
	if !pg.own {
		pg.created = append(pg.created, name)
	}
	u, err := url.Parse(pg.admin)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// pids are the server's processes on this machine.
func (pg *postgres) pids() []int { return processTree(pg.postmast) }

func (pg *postgres) close(r *Runner) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(pg.created) > 0 {
		if conn, err := pgx.Connect(ctx, pg.admin); err == nil {
			for _, db := range pg.created {
				if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
					r.logf("PostgreSQL: dropping %s: %v", db, err)
				}
			}
			conn.Close(ctx)
		}
	}
	if pg.own && pg.dir != "" {
		data := filepath.Join(pg.dir, "data")
		if fileExists(filepath.Join(data, "postmaster.pid")) {
			cmd := asPostgres(filepath.Join(r.tools.pgBin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop")
			_ = exec.CommandContext(ctx, cmd[0], cmd[1:]...).Run()
		}
		os.RemoveAll(pg.dir)
	}
}
