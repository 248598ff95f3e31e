package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins"
)

// Plugin log files: $CWX_HOME/logs/<disk name>.log, one per plugin, each rotated to .log.1
// once it passes logFileMax, so a plugin keeps at most twice that on disk. They are not part
// of state.json. Every cwx process that runs plugins appends to them (O_APPEND, one write per
// line).
const (
	logDirName = "logs"
	logFileMax = 1 << 20
)

// logLevelFlag is --log-level; "" leaves CWX_LOG in charge.
var logLevelFlag string

// stderrLevel is the level of the core's log lines on stderr: --log-level, else CWX_LOG,
// else error.
func stderrLevel() hclog.Level {
	for _, v := range []string{logLevelFlag, os.Getenv("CWX_LOG")} {
		if v == "" {
			continue
		}
		if l := hclog.LevelFromString(v); l != hclog.NoLevel {
			return l
		}
	}
	return hclog.Error
}

// pluginLogPath is the log file of plugin id under home.
func pluginLogPath(home, id string) string {
	return filepath.Join(home, logDirName, plugins.DiskName(id)+".log")
}

// fileSink appends the hosts' plugin log lines to the plugins' log files, whatever the
// stderr level.
type fileSink struct {
	home string
	mu   sync.Mutex
	now  func() time.Time
}

// Accept implements hclog.SinkAdapter for "host: " lines that name a plugin.
func (s *fileSink) Accept(_ string, level hclog.Level, msg string, args ...interface{}) {
	text, ok := strings.CutPrefix(msg, "host: ")
	if !ok {
		return
	}
	id := ""
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "plugin" {
			id, _ = args[i+1].(string)
		}
	}
	if id == "" {
		return
	}
	text = strings.TrimPrefix(text, "["+id+"] ")
	line := fmt.Sprintf("%s %-5s [%s] %s\n", s.now().UTC().Format(logTime),
		strings.ToLower(level.String()), id, strings.ReplaceAll(text, "\n", `\n`))
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = appendLog(pluginLogPath(s.home, id), line) // a log line that cannot be kept is dropped
}

// appendLog appends line to p and rotates p to p.1 once it passes logFileMax.
func appendLog(p, line string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(line)
	fi, serr := f.Stat()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return err
	}
	if fi.Size() > logFileMax {
		return os.Rename(p, p+".1")
	}
	return nil
}

func init() {
	register(func() *cobra.Command {
		var follow bool
		var lines int
		cmd := &cobra.Command{
			Use:   "logs [PLUGIN] [-f]",
			Short: "Print the plugins' log lines (console.* and ctx.logger), kept under $CWX_HOME/logs",
			Long: "Every cwx process that runs plugins keeps their console.* and ctx.logger lines, each\n" +
				"with its time, level and plugin, in $CWX_HOME/logs (one file per plugin, rotated at\n" +
				"1 MiB, two files kept). With PLUGIN only its lines are printed, else every plugin's\n" +
				"in time order; -f keeps printing new lines until Ctrl-C.",
			Args: cobra.MaximumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				home, err := config.Home()
				if err != nil {
					return &ExitError{Code: ExitInternal, Err: err}
				}
				id := ""
				if len(args) == 1 {
					id = args[0]
				}
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
				defer stop()
				return printLogs(ctx, cmd.OutOrStdout(), home, id, lines, follow)
			},
		}
		cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines")
		cmd.Flags().IntVarP(&lines, "lines", "n", 100, "print at most the last N lines (0: all)")
		return cmd
	})
}

// printLogs prints the last n lines of one plugin's log (id) or of all of them, then follows.
func printLogs(ctx context.Context, w io.Writer, home, id string, n int, follow bool) error {
	files, err := logFiles(home, id)
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	var all []string
	for _, f := range files {
		for _, p := range []string{f + ".1", f} {
			ls, err := readLines(p)
			if err != nil {
				return &ExitError{Code: ExitInternal, Err: err}
			}
			all = append(all, ls...)
		}
	}
	all = append(all, diagnosticLines(home, id)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i][:min(24, len(all[i]))] < all[j][:min(24, len(all[j]))] })
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	for _, l := range all {
		printf(w, "%s\n", stripEscapes(l))
	}
	if !follow {
		if len(all) == 0 && id != "" {
			if !installed(home, id) {
				return exitf(ExitUnavailable, "no plugin `%s` is installed and no log lines are kept for it; `cwx plugin list` lists the installed plugins", id)
			}
			printf(w, "no log lines kept for %s (%s)\n", id, pluginLogPath(home, id))
		}
		return nil
	}
	return followLogs(ctx, w, home, id)
}

// diagnosticLines are the recorded diagnostics of plugin id (every plugin's when id is "")
// as log lines: its activation failures, faults, refused registrations and receipt, config
// and host problems, which no console line of the plugin tells. The plugin's own log lines
// are in its file already and are left out.
func diagnosticLines(home, id string) []string {
	s, err := plugins.Open(plugins.Options{Home: home})
	if err != nil {
		return nil
	}
	recs, err := s.List()
	if err != nil {
		return nil // the log files are all there is to go by
	}
	var out []string
	for _, r := range recs {
		if id != "" && r.ID != id {
			continue
		}
		for _, d := range r.Diagnostics {
			if d.Kind == "log" {
				continue
			}
			level := "error"
			if d.Kind == "dirty_teardown" {
				level = "warn"
			}
			out = append(out, fmt.Sprintf("%s %-5s [%s] %s: %s", d.Time.UTC().Format(logTime), level, r.ID,
				strings.ReplaceAll(d.Kind, "_", " "), strings.ReplaceAll(d.Message, "\n", `\n`)))
		}
	}
	return out
}

// logTime is the time format of a log line.
const logTime = "2006-01-02T15:04:05.000Z"

// installed reports whether plugin id is installed in home (false when the state cannot be
// read: then the logs are all there is to go by).
func installed(home, id string) bool {
	s, err := plugins.Open(plugins.Options{Home: home})
	if err != nil {
		return false
	}
	_, err = s.Get(id)
	return err == nil
}

// logFiles lists the current log file of id, or of every plugin when id is "".
func logFiles(home, id string) ([]string, error) {
	if id != "" {
		return []string{pluginLogPath(home, id)}, nil
	}
	ents, err := os.ReadDir(filepath.Join(home, logDirName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			out = append(out, filepath.Join(home, logDirName, e.Name()))
		}
	}
	return out, nil
}

func readLines(p string) ([]string, error) {
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}

// followLogs prints what is appended to the log files from now on (a rotated file is read
// again from its start), until ctx ends.
func followLogs(ctx context.Context, w io.Writer, home, id string) error {
	dir := filepath.Join(home, logDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	defer func() { _ = watcher.Close() }()
	if err := watcher.Add(dir); err != nil {
		return &ExitError{Code: ExitInternal, Err: err}
	}
	offsets := map[string]int64{}
	files, _ := logFiles(home, id)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			offsets[f] = fi.Size()
		}
	}
	want := ""
	if id != "" {
		want = pluginLogPath(home, id)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-watcher.Errors:
			return &ExitError{Code: ExitInternal, Err: err}
		case ev := <-watcher.Events:
			p := ev.Name
			if !strings.HasSuffix(p, ".log") || (want != "" && p != want) {
				continue
			}
			offsets[p] = printFrom(w, p, offsets[p])
		}
	}
}

// printFrom prints p from offset to its end and returns the new offset; a file shorter than
// offset was rotated and is printed from its start.
func printFrom(w io.Writer, p string, offset int64) int64 {
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return offset
	}
	if fi.Size() < offset {
		offset = 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset
	}
	b, err := io.ReadAll(io.LimitReader(f, fi.Size()-offset))
	if err != nil {
		return offset
	}
	end := strings.LastIndexByte(string(b), '\n') + 1 // a line still being written waits
	if end > 0 {
		printf(w, "%s", stripEscapes(string(b[:end])))
	}
	return offset + int64(end)
}
