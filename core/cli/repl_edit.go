package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/chzyer/readline"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/registry"
)

// replPrompt is the repl's prompt.
const replPrompt = "cwx> "

// replHistoryLimit bounds $CWX_HOME/repl_history.
const replHistoryLimit = 1000

// replInput is the reader the repl, its approval prompt and its questions share. On a
// terminal (stdin and stdout both) it is a line editor with history and tab completion,
// else stdin as it is.
func replInput(m liveCore, stdin io.Reader, stdout io.Writer) (*bufio.Reader, *lineEditor) {
	in, ok := stdin.(*os.File)
	if !ok || !isTerminal(stdin) || !isTerminal(stdout) {
		return bufio.NewReader(stdin), nil
	}
	cfg := &readline.Config{
		AutoComplete:    replCompleter{m},
		HistoryLimit:    replHistoryLimit,
		InterruptPrompt: "^C",
		Stdin:           in,
		Stdout:          stdout,
	}
	if home, err := config.Home(); err == nil && os.MkdirAll(home, 0o700) == nil {
		cfg.HistoryFile = filepath.Join(home, "repl_history")
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return bufio.NewReader(stdin), nil
	}
	e := &lineEditor{rl: rl}
	return bufio.NewReader(e), e
}

// lineEditor serves the lines a readline.Instance reads as a stream; each line ends in
// '\n'. The prompt is shown only for the line the repl asks for (an approval's answer is
// read without it).
type lineEditor struct {
	rl      *readline.Instance
	mu      sync.Mutex
	pending []byte
}

// Read implements io.Reader.
func (e *lineEditor) Read(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) == 0 {
		line, err := e.rl.Readline()
		e.rl.SetPrompt("")
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			line = "" // Ctrl-C clears the line
		case err != nil:
			return 0, err
		}
		e.pending = []byte(line + "\n")
	}
	n := copy(p, e.pending)
	e.pending = e.pending[n:]
	return n, nil
}

// prompt shows replPrompt for the next line.
func (e *lineEditor) prompt() { e.rl.SetPrompt(replPrompt) }

func (e *lineEditor) close() { _ = e.rl.Close() }

// prompt shows the repl's prompt before a command line is read.
func (s *replSession) prompt() {
	if s.editor != nil {
		s.editor.prompt()
		return
	}
	printf(s.out, "%s", replPrompt)
}

func (s *replSession) closeEditor() {
	if s.editor != nil {
		s.editor.close()
	}
}

// runLive runs `/NAME ARGS` as the live command NAME, when one is live.
func (s *replSession) runLive(ctx context.Context, verb, rest string) (ran bool, err error) {
	if !hasLive(s.m, liveCommand, verb) {
		return false, nil
	}
	return true, s.runCommand(ctx, strings.TrimSpace(verb+" "+rest))
}

// unknownVerb is the error of `/VERB` when VERB is neither the REPL's nor a live command's:
// the answer a call to a command that is not live gets (notLiveAnswer) when a plugin claims
// the name or it nearly is a known one, else a usage error.
func (s *replSession) unknownVerb(verb string) error {
	if w, ok := s.m.(interface{ NotLive(kind, name string) error }); ok {
		if e, ok := errors.AsType[*core.NotLiveError](w.NotLive(liveCommand.String(), verb)); ok && (e.Plugin != "" || len(e.Near) > 0) {
			msg, code := notLiveAnswer(e)
			return &ExitError{Code: code, Err: errors.New(msg)}
		}
	}
	return exitf(ExitUsage, "unknown command %q; /help lists the commands", verb)
}

// reload is /reload: config.toml and the plugin state read again, failed plugins retried.
func (s *replSession) reload(ctx context.Context) error {
	var err error
	if r, ok := s.m.(reloader); ok {
		err = r.Reload(ctx)
	} else {
		err = s.m.Reconcile(ctx)
	}
	failures, _ := splitFailures(err)
	s.notActive = append(failures, heldBack()...)
	printf(s.out, "reloaded: %s and %s live\n", plural(len(s.m.Tools()), "tool"), plural(len(s.m.Commands()), "command"))
	return err
}

// replCompleter completes the first word (built-in commands and live commands, with or
// without the leading /) and the tool name after /call.
type replCompleter struct{ m liveCore }

// Do implements readline.AutoCompleter: the candidates' remaining runes and how many runes
// of the line they share.
func (c replCompleter) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	words := strings.Fields(head)
	var prefix string
	var names []string
	switch {
	case len(words) <= 1 && !strings.HasSuffix(head, " "):
		prefix = strings.TrimPrefix(strings.TrimLeft(head, " "), "/")
		names = append(names, registry.BuiltinCommandNames...)
		for _, cmd := range c.m.Commands() {
			names = append(names, cmd.Name)
		}
	case (words[0] == "/call" || words[0] == "call") && (len(words) == 1 || len(words) == 2 && !strings.HasSuffix(head, " ")):
		if len(words) == 2 {
			prefix = words[1]
		}
		for _, t := range c.m.Tools() {
			names = append(names, t.Name)
		}
	default:
		return nil, 0
	}
	sort.Strings(names)
	var out [][]rune
	for i, n := range names {
		if strings.HasPrefix(n, prefix) && (i == 0 || names[i-1] != n) {
			out = append(out, []rune(n[len(prefix):]+" "))
		}
	}
	return out, len([]rune(prefix))
}

// writeOwnerTimes prints, under the repl's /host status, each installed plugin's live owner:
// its generation, state and how long its activation took.
func (s *replSession) writeOwnerTimes() {
	store := s.m.Plugins()
	if store == nil {
		return
	}
	recs, err := store.List()
	if err != nil {
		return
	}
	tw := newTable(s.out)
	printed := false
	for _, r := range recs {
		info, ok := ownerOf(s.m, r.ID)
		if !ok {
			continue
		}
		if !printed {
			printf(tw, "PLUGIN\tTIER\tGENERATION\tSTATE\tACTIVATION\n")
			printed = true
		}
		took := "-"
		if info.Activation > 0 {
			took = fmt.Sprintf("%.1f ms", float64(info.Activation.Microseconds())/1000)
		}
		printf(tw, "%s\t%s\t%d\t%s\t%s\n", r.ID, info.Tier, info.Generation, info.State, took)
	}
	_ = tw.Flush()
}
