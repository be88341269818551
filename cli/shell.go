package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/chzyer/readline"
)

// errQuit ends the shell's loop without an error.
var errQuit = errors.New("quit")

// shell reads statements and shortcuts and prints their results.
type shell struct {
	conn   Conn
	format Format
	timing bool
	out    *bufio.Writer
	errOut io.Writer
	// stopOnError ends the run at the first failed statement (-c, -f and
	// piped input); an interactive shell reports the error and goes on.
	stopOnError bool
	// interrupt cancels the running statement on ^C (interactive only).
	interrupt bool
	sp        splitter
	failed    bool
}

// notice shows a statement's notice as psql does, after the output so far.
func (sh *shell) notice(n Notice) {
	sh.out.Flush()
	fmt.Fprintf(sh.errOut, "%s:  %s\n", n.Severity, n.Message)
	if n.Detail != "" {
		fmt.Fprintf(sh.errOut, "DETAIL:  %s\n", n.Detail)
	}
}

// runText runs the statements of text (the -c argument), the last one
// needing no semicolon.
func (sh *shell) runText(ctx context.Context, text string) error {
	for _, line := range strings.SplitAfter(text, "\n") {
		if err := sh.line(ctx, line); err != nil {
			return err
		}
	}
	return sh.finish(ctx)
}

// runReader runs everything read from r, line by line.
func (sh *shell) runReader(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if lerr := sh.line(ctx, line); lerr != nil {
				return lerr
			}
		}
		if err == io.EOF {
			return sh.finish(ctx)
		}
		if err != nil {
			return err
		}
	}
}

// finish runs a last statement that lacked its semicolon.
func (sh *shell) finish(ctx context.Context) error {
	if rest := sh.sp.rest(); rest != "" {
		return sh.exec(ctx, rest)
	}
	return nil
}

// line handles one input line: a meta-command or shortcut when no SQL is
// pending, else more SQL.
func (sh *shell) line(ctx context.Context, line string) error {
	if sh.sp.empty() {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, `\`) {
			return sh.meta(t)
		}
		if isShortcut(t) {
			return sh.shortcut(ctx, t)
		}
	}
	for _, stmt := range sh.sp.feed(line) {
		if err := sh.exec(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}

func (sh *shell) meta(cmd string) error {
	f := strings.Fields(cmd)
	switch f[0] {
	case `\q`, `\quit`:
		return errQuit
	case `\timing`:
		switch {
		case len(f) > 1 && strings.EqualFold(f[1], "on"):
			sh.timing = true
		case len(f) > 1 && strings.EqualFold(f[1], "off"):
			sh.timing = false
		default:
			sh.timing = !sh.timing
		}
		state := "off"
		if sh.timing {
			state = "on"
		}
		fmt.Fprintf(sh.out, "Timing is %s.\n", state)
		return sh.out.Flush()
	case `\?`, `\h`, `\help`:
		fmt.Fprintln(sh.out, shortcutHelp)
		return sh.out.Flush()
	}
	return sh.fail(fmt.Errorf("invalid command %s; try help", f[0]))
}

func (sh *shell) shortcut(ctx context.Context, line string) error {
	sc, err := parseShortcut(line)
	if err != nil {
		return sh.fail(err)
	}
	switch {
	case sc.quit:
		return errQuit
	case sc.help:
		fmt.Fprintln(sh.out, shortcutHelp)
		return sh.out.Flush()
	case sc.build != nil:
		q, err := sc.build(ctx, sh.conn)
		if err != nil {
			return sh.failStatement(err)
		}
		return sh.exec(ctx, q)
	}
	return sh.exec(ctx, sc.sql)
}

// exec runs one statement and prints its result or its error.
func (sh *shell) exec(ctx context.Context, stmt string) error {
	if sh.interrupt {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
	}
	p := newPrinter(sh.format, sh.out, sh.timing)
	start := time.Now()
	tag, err := sh.conn.Run(ctx, stmt, p)
	if err != nil {
		sh.out.Flush()
		return sh.failStatement(err)
	}
	return p.Finish(tag, time.Since(start))
}

func (sh *shell) failStatement(err error) error {
	sh.failed = true
	fmt.Fprintln(sh.errOut, errorLine(err))
	if sh.stopOnError {
		return err
	}
	return nil
}

func (sh *shell) fail(err error) error {
	sh.failed = true
	fmt.Fprintln(sh.errOut, "ERROR:", err)
	if sh.stopOnError {
		return err
	}
	return nil
}

// Prompts as psql shows them: a new statement, a continued one.
const (
	promptNew  = "lakepg=> "
	promptMore = "lakepg-> "
)

// interactive reads lines with editing and history until quit or EOF.
func (sh *shell) interactive(ctx context.Context, banner string) error {
	history := ""
	if home, err := os.UserHomeDir(); err == nil {
		history = filepath.Join(home, ".lakepg_history")
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 promptNew,
		HistoryFile:            history,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		InterruptPrompt:        "^C",
		EOFPrompt:              `\q`,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintln(sh.out, banner)
	sh.out.Flush()
	var pending []string // the lines of the statement being typed, for history
	for {
		if sh.sp.empty() {
			rl.SetPrompt(promptNew)
		} else {
			rl.SetPrompt(promptMore)
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			// ^C drops the statement being typed, as in psql
			sh.sp.rest()
			pending = pending[:0]
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		if strings.TrimSpace(line) != "" {
			pending = append(pending, strings.TrimSpace(line))
		}
		err = sh.line(ctx, line+"\n")
		if sh.sp.empty() && len(pending) > 0 {
			_ = rl.SaveHistory(strings.Join(pending, " "))
			pending = pending[:0]
		}
		if errors.Is(err, errQuit) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
