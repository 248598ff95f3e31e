package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

func TestPluginLogFiles(t *testing.T) {
	home := pluginHome(t)
	clock := testNow
	sink := &fileSink{home: home, now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	// kept: alpha's (the host's [id] not repeated), beta's (one record per line, escapes
	// stripped when printed), alpha's debug line (below the stderr level); not kept: the
	// host's own line and the core's line about a plugin.
	lines := []struct {
		level hclog.Level
		msg   string
		args  []any
	}{
		{hclog.Info, "host: [alpha] started", []any{"tier", "plugin", "plugin", "alpha"}},
		{hclog.Warn, "host: two\nlines \x1b[31mred\x1b[0m", []any{"plugin", "beta"}},
		{hclog.Error, "host: no plugin", []any{"plugin", ""}},
		{hclog.Info, "plugin activated", []any{"plugin", "alpha"}},
		{hclog.Debug, "host: [alpha] done", []any{"plugin", "alpha"}},
	}
	for _, l := range lines {
		sink.Accept("cwx", l.level, l.msg, l.args...)
	}
	r := runPluginCLI(t, "logs")
	checkGolden(t, "logs-all.golden", []byte(r.stdout))
	r = runPluginCLI(t, "logs", "alpha", "-n", "1")
	checkGolden(t, "logs-alpha-last.golden", []byte(r.stdout))
	if r := runPluginCLI(t, "logs", "gamma"); r.code != ExitUnavailable || !strings.Contains(r.stderr, "no plugin `gamma` is installed and no log lines are kept for it") {
		t.Fatalf("logs gamma (not installed): %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "state.json")); err == nil {
		t.Fatal("logging wrote the state file")
	}
	if r := runPluginCLI(t, "plugin", "install", "../../testdata/plugins/tool"); r.code != ExitOK {
		t.Fatalf("install: %+v", r)
	}
	if r := runPluginCLI(t, "logs", "fixture-tool"); r.code != ExitOK || !strings.HasPrefix(r.stdout, "no log lines kept for fixture-tool (") {
		t.Fatalf("logs of an installed plugin without lines: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

func TestPluginLogRotates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "logs", "x.log")
	line := strings.Repeat("x", 1023) + "\n"
	for range logFileMax/len(line) + 2 {
		if err := appendLog(p, line); err != nil {
			t.Fatal(err)
		}
	}
	cur, err1 := os.Stat(p)
	old, err2 := os.Stat(p + ".1")
	if err1 != nil || err2 != nil || old.Size() <= logFileMax || cur.Size() >= logFileMax {
		t.Fatalf("after rotation: %v %v %v %v", cur, err1, old, err2)
	}
	for range logFileMax/len(line) + 2 {
		_ = appendLog(p, line)
	}
	if old, _ := os.Stat(p + ".1"); old.Size() > logFileMax+int64(len(line)) {
		t.Fatalf("the rotated file grew past the bound: %d", old.Size())
	}
}

func TestLogLevelIsDocumented(t *testing.T) {
	help := mustCLI(t, "--help")
	for _, want := range []string{"--log-level", "CWX_LOG", "$CWX_HOME/logs", "cwx logs"} {
		if !strings.Contains(help, want) {
			t.Errorf("cwx --help lacks %q", want)
		}
	}
	cases := []struct {
		flag, env string
		want      hclog.Level
	}{
		{"", "", hclog.Error},
		{"", "debug", hclog.Debug},
		{"warn", "debug", hclog.Warn},
		{"nonsense", "info", hclog.Info},
	}
	for _, c := range cases {
		t.Setenv("CWX_LOG", c.env)
		logLevelFlag = c.flag
		if got := stderrLevel(); got != c.want {
			t.Errorf("flag %q, CWX_LOG %q: level %v, want %v", c.flag, c.env, got, c.want)
		}
	}
	logLevelFlag = ""
}
