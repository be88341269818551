package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"

	"github.com/lakepg/lakepg/catalog"
	"github.com/lakepg/lakepg/storage"
)

// Exit statuses of the commands.
const (
	ExitOK    = 0
	ExitError = 1 // a statement, an import or the check failed
	ExitUsage = 2 // bad flags or arguments
)

// Info is what the command line needs from cmd/lakepg.
type Info struct {
	Version string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

type command struct {
	name, args, summary string
	// flags defines the command's flags; run gets the parsed arguments.
	flags func(fs *flag.FlagSet) func(ctx context.Context, args []string, info Info) int
}

var commands []command

func init() {
	commands = []command{
		{"shell", "[-c SQL | -f FILE]", "interactive SQL shell, or run SQL non-interactively", shellFlags},
		{"import", "TABLE FILE...", "load CSV or Parquet files into a table, as one snapshot", importFlags},
		{"snapshots", "", "list the lake's snapshots", snapshotsFlags},
		{"maintenance", "TASK...", "flush, compact (rewrite, merge), expire, cleanup, orphans; --dry-run reports", maintenanceFlags},
		{"check", "", "verify the catalog against the data files", checkFlags},
		{"migrate", "[--to 1.1]", "move the catalog to a newer DuckLake format version (1.0 to 1.1)", migrateFlags},
		{"version", "", "print lakepg's version", func(*flag.FlagSet) func(context.Context, []string, Info) int {
			return func(_ context.Context, _ []string, info Info) int {
				fmt.Fprintln(info.Stdout, "lakepg", info.Version)
				return ExitOK
			}
		}},
	}
}

// IsCommand reports whether name is one of the commands Run handles
// (serving, the default, is not).
func IsCommand(name string) bool {
	if name == "help" {
		return true
	}
	for _, c := range commands {
		if c.name == name {
			return true
		}
	}
	return false
}

// Run runs the command args[0] with the rest of args and returns the exit
// status.
func Run(args []string, info Info) int {
	if info.Stdin == nil {
		info.Stdin = os.Stdin
	}
	if info.Stdout == nil {
		info.Stdout = os.Stdout
	}
	if info.Stderr == nil {
		info.Stderr = os.Stderr
	}
	if len(args) == 0 || !IsCommand(args[0]) {
		usage(info.Stderr)
		return ExitUsage
	}
	if args[0] == "help" {
		usage(info.Stdout)
		return ExitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		fs := flag.NewFlagSet("lakepg "+c.name, flag.ContinueOnError)
		fs.SetOutput(info.Stderr)
		run := c.flags(fs)
		fs.Usage = func() {
			fmt.Fprintf(info.Stderr, "usage: lakepg %s [flags] %s\n\n%s.\n\nflags:\n", c.name, c.args, c.summary)
			fs.PrintDefaults()
		}
		pos, err := parseInterspersed(fs, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg:", err)
			return ExitUsage
		}
		return run(context.Background(), pos, info)
	}
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "usage: lakepg [serve] [flags]     serve the lake over the PostgreSQL protocol\n")
	for _, c := range commands {
		fmt.Fprintf(w, "       lakepg %-11s %-18s %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nlakepg COMMAND -h lists a command's flags.\n")
}

// commandOptions is the set of option names the commands define, so the
// server can tell a config file key meant for them from a typo.
func commandOptions() map[string]bool {
	names := map[string]bool{}
	for _, c := range commands {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	}
	return names
}

// lakeFlags are the flags naming the lake: embedded (--catalog, --data)
// or a server (--connect).
type lakeFlags struct {
	catalog, schema, data, connect *string
	store                          *storage.Options // --s3-*, --cache-*, as the server's
}

func addLakeFlags(fs *flag.FlagSet, connect bool) lakeFlags {
	lf := lakeFlags{
		catalog: fs.String("catalog", Env("catalog", "sqlite:lakehouse/catalog.sqlite"), "DuckLake catalog: sqlite:PATH or postgres://… (env "+EnvName("catalog")+")"),
		schema:  fs.String("catalog-schema", Env("catalog-schema", ""), "PostgreSQL catalogs: the schema of the DuckLake tables; default public (env "+EnvName("catalog-schema")+")"),
		data:    fs.String("data", Env("data", "lakehouse/data"), "directory (or s3://bucket/prefix) of the Parquet files (env "+EnvName("data")+")"),
		store:   storage.RegisterFlags(fs),
	}
	if connect {
		lf.connect = fs.String("connect", Env("connect", ""), "postgres://… URL of a running lakepg; empty: open the lake directly (env "+EnvName("connect")+")")
	}
	return lf
}

func (lf lakeFlags) lake() Lake {
	return Lake{Catalog: *lf.catalog, Schema: *lf.schema, Data: *lf.data, Storage: *lf.store}
}

func (lf lakeFlags) open(ctx context.Context) (Conn, error) {
	return lf.openLogged(ctx, nil)
}

// openLogged is open with a statement log for an embedded lake (a server
// keeps its own).
func (lf lakeFlags) openLogged(ctx context.Context, qlog *QueryLog) (Conn, error) {
	if lf.connect != nil && *lf.connect != "" {
		return OpenClient(ctx, *lf.connect)
	}
	return openEmbedded(ctx, lf.lake(), nil, qlog)
}

func (lf lakeFlags) describe() string {
	if lf.connect != nil && *lf.connect != "" {
		return "connected to " + redactURL(*lf.connect)
	}
	return fmt.Sprintf("embedded: catalog %s, data %s", catalog.RedactDSN(*lf.catalog), *lf.data)
}

// redactURL hides a password in a connection URL.
func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	cred := u[scheme+3 : at]
	if user, _, ok := strings.Cut(cred, ":"); ok {
		return u[:scheme+3] + user + ":***" + u[at:]
	}
	return u
}

// multiFlag collects a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, "; ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func shellFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, true)
	var cmds multiFlag
	fs.Var(&cmds, "c", "run this SQL (or shortcut) and exit; may be repeated")
	file := fs.String("f", "", "run the SQL of this file and exit (- for standard input)")
	format := fs.String("format", Env("format", "table"), "output format: table, csv or json (env "+EnvName("format")+")")
	timing := fs.Bool("timing", true, "show how long each statement took (table format)")
	logs := addLogFlags(fs)
	return func(ctx context.Context, args []string, info Info) int {
		if len(args) > 0 {
			fmt.Fprintf(info.Stderr, "lakepg shell: unexpected argument %q\n", args[0])
			return ExitUsage
		}
		f, err := ParseFormat(*format)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg shell:", err)
			return ExitUsage
		}
		qlog, err := logs.queryLog(fs, info.Stderr)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg shell:", err)
			return ExitUsage
		}
		conn, err := lf.openLogged(ctx, qlog)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg shell:", err)
			return ExitError
		}
		defer conn.Close()
		out := bufio.NewWriterSize(info.Stdout, 64<<10)
		defer out.Flush()
		sh := &shell{conn: conn, format: f, timing: *timing && f == FormatTable, out: out, errOut: info.Stderr, stopOnError: true}
		if n, ok := conn.(noticer); ok {
			n.OnNotice(sh.notice)
		}
		switch {
		case len(cmds) > 0:
			for _, c := range cmds {
				if err = sh.runText(ctx, c); err != nil {
					break
				}
			}
		case *file == "-":
			err = sh.runReader(ctx, info.Stdin)
		case *file != "":
			var fh *os.File
			if fh, err = os.Open(*file); err == nil {
				err = sh.runReader(ctx, fh)
				fh.Close()
			} else {
				fmt.Fprintln(info.Stderr, "lakepg shell:", err)
			}
		case isTerminal(info.Stdin):
			sh.stopOnError, sh.interrupt = false, true
			banner := fmt.Sprintf("lakepg %s shell (%s). Type help for help, quit to leave.", info.Version, lf.describe())
			err = sh.interactive(ctx, banner)
			sh.failed = false // errors were shown as they happened; quitting is success
		default:
			err = sh.runReader(ctx, info.Stdin)
		}
		out.Flush()
		if errors.Is(err, errQuit) {
			err = nil
		}
		if err != nil || sh.failed {
			return ExitError
		}
		return ExitOK
	}
}

// isTerminal reports whether standard input or output f is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && readline.IsTerminal(int(file.Fd()))
}
