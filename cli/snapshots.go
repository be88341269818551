package cli

import (
	"bufio"
	"context"
	"flag"
	"fmt"
)

const snapshotsQuery = "SELECT snapshot_id, snapshot_time, schema_version, changes FROM lakepg.snapshots ORDER BY snapshot_id"

func snapshotsFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, true)
	format := fs.String("format", Env("format", "table"), "output format: table, csv or json (env "+EnvName("format")+")")
	return func(ctx context.Context, args []string, info Info) int {
		if len(args) > 0 {
			fmt.Fprintf(info.Stderr, "lakepg snapshots: unexpected argument %q\n", args[0])
			return ExitUsage
		}
		f, err := ParseFormat(*format)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg snapshots:", err)
			return ExitUsage
		}
		var conn Conn
		if *lf.connect != "" {
			conn, err = OpenClient(ctx, *lf.connect)
		} else {
			// listing must not create a lake where there was none
			if err = lakeExists(ctx, lf.lake()); err == nil {
				conn, err = OpenEmbedded(ctx, lf.lake(), nil)
			}
		}
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg snapshots:", err)
			return ExitError
		}
		defer conn.Close()
		out := bufio.NewWriter(info.Stdout)
		p := newPrinter(f, out, false)
		tag, err := conn.Run(ctx, snapshotsQuery, p)
		if err != nil {
			fmt.Fprintln(info.Stderr, errorLine(err))
			return ExitError
		}
		if err := p.Finish(tag, 0); err != nil {
			fmt.Fprintln(info.Stderr, "lakepg snapshots:", err)
			return ExitError
		}
		return ExitOK
	}
}

// lakeExists checks that the lake exists by opening and closing it.
func lakeExists(ctx context.Context, lake Lake) error {
	db, _, err := openLake(ctx, lake, false)
	if err != nil {
		return err
	}
	return db.Close()
}
