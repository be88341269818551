package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/lakepg/lakepg/catalog"
)

// migrateFlags is `lakepg migrate`: moves a DuckLake 1.0 catalog to 1.1, the
// only way lakepg changes a lake's format version (a server keeps the
// version it finds, as DuckDB 2.0 does without AUTOMATIC_MIGRATION).
func migrateFlags(fs *flag.FlagSet) func(context.Context, []string, Info) int {
	lf := addLakeFlags(fs, false)
	to := fs.String("to", catalog.Format11, "the DuckLake format version to migrate to")
	return func(ctx context.Context, args []string, info Info) int {
		if len(args) > 0 {
			fmt.Fprintf(info.Stderr, "lakepg migrate: unexpected argument %q\n", args[0])
			return ExitUsage
		}
		if _, err := catalog.ParseFormat(*to); err != nil {
			fmt.Fprintln(info.Stderr, "lakepg migrate:", err)
			return ExitUsage
		}
		db, _, err := openLake(ctx, lf.lake(), false)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg migrate:", err)
			return ExitError
		}
		defer db.Close()
		res, err := db.Migrate(ctx, *to)
		if err != nil {
			fmt.Fprintln(info.Stderr, "lakepg migrate:", err)
			return ExitError
		}
		if res.From == res.To {
			fmt.Fprintf(info.Stdout, "the lake is already in DuckLake format %s\n", res.To)
			return ExitOK
		}
		fmt.Fprintf(info.Stdout, "migrated the lake from DuckLake format %s to %s (%d inlined-data tables renamed); DuckDB before 2.0 can no longer open it\n",
			res.From, res.To, res.InlinedTables)
		return ExitOK
	}
}
