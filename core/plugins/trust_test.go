package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/plugins/plugintest"
)

func installHello(t *testing.T, s *Store) *InstallResult {
	t.Helper()
	res, err := s.Install(helloFolder(t))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTrustNeedsTheRightToken(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	res := installHello(t, s)
	for _, tok := range []string{"", "rv1-0000", ReviewToken("hello", res.Closure, "another-policy"), ReviewToken("other", res.Closure, PolicyVersion)} {
		if err := s.Trust("hello", tok); !errors.Is(err, ErrBadToken) {
			t.Fatalf("token %q: got %v, want ErrBadToken", tok, err)
		}
	}
	r, _ := s.Get("hello")
	if r.Trust != nil {
		t.Fatal("a wrong token wrote a receipt")
	}
	rv, err := s.Review("hello")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Trust("hello", rv.Token); err != nil {
		t.Fatal(err)
	}
	r, _ = s.Get("hello")
	if err := s.CheckReceipt(r); err != nil {
		t.Fatal(err)
	}
	if r.Trust.Closure != res.Closure || r.Trust.Policy != PolicyVersion || !r.Trust.TrustedAt.Equal(fixedNow()) {
		t.Fatalf("receipt %+v", r.Trust)
	}
	g, _ := s.Generation()
	must(t, s.Trust("hello", rv.Token))
	if g2, _ := s.Generation(); g2 != g {
		t.Fatal("trusting the same bytes again moved the generation")
	}
	if err := s.Trust("nope", rv.Token); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("got %v", err)
	}
}

func trustEnable(t *testing.T, s *Store, id string) {
	t.Helper()
	rv, err := s.Review(id)
	must(t, err)
	must(t, s.Trust(id, rv.Token))
	must(t, s.Enable(id))
}

func TestChangedByteFailsClosed(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	res := installHello(t, s)
	trustEnable(t, s, "hello")
	r, _ := s.Get("hello")
	must(t, s.VerifyEntries(r))
	must(t, s.VerifyClosure(r))

	for _, target := range []string{"index.mjs", "assets/readme.txt"} {
		p := filepath.Join(res.StageDir, filepath.FromSlash(target))
		orig, err := os.ReadFile(p)
		must(t, err)
		must(t, os.Chmod(filepath.Dir(p), 0o755))
		must(t, os.Chmod(p, 0o644))
		changed := append([]byte(nil), orig...)
		changed[0] ^= 1
		must(t, os.WriteFile(p, changed, 0o644))

		err = s.VerifyClosure(r)
		if !errors.Is(err, ErrContentChanged) || !strings.Contains(err.Error(), "content changed, review again") {
			t.Fatalf("%s: closure check: %v", target, err)
		}
		if target == "index.mjs" {
			if err := s.VerifyEntries(r); !errors.Is(err, ErrContentChanged) {
				t.Fatalf("entry check: %v", err)
			}
		} else if err := s.VerifyEntries(r); err != nil {
			t.Fatalf("entries did not change: %v", err)
		}
		if _, err := s.Review("hello"); !errors.Is(err, ErrContentChanged) {
			t.Fatalf("review of changed bytes: %v", err)
		}
		must(t, os.WriteFile(p, orig, 0o644))
		must(t, s.VerifyClosure(r))
	}
}

func TestPolicyBumpNeedsReview(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	trustEnable(t, s, "hello")

	bumped := newStore(t, home, func(o *Options) { o.Policy = PolicyVersion + "-next" })
	r, _ := bumped.Get("hello")
	err := bumped.CheckReceipt(r)
	if !errors.Is(err, ErrCapabilitiesChanged) || !strings.Contains(err.Error(), "capabilities changed, review again") {
		t.Fatalf("got %v", err)
	}
	if got := bumped.Status(r); got != "capabilities changed, review again" {
		t.Fatalf("status %q", got)
	}
	d, blocked, _, err := bumped.Desired(nil)
	must(t, err)
	if len(d) != 0 || len(blocked) != 1 || !errors.Is(blocked[0].Err, ErrCapabilitiesChanged) {
		t.Fatalf("desired %v blocked %v", d, blocked)
	}
	// The old token no longer trusts; a new review does.
	if err := bumped.Trust("hello", ReviewToken("hello", r.Closure, PolicyVersion)); !errors.Is(err, ErrBadToken) {
		t.Fatalf("old token: %v", err)
	}
	trustEnable(t, bumped, "hello")
	if d, _, _, _ := bumped.Desired(nil); len(d) != 1 {
		t.Fatal("re-review did not restore the plugin")
	}
}

func TestNewBytesSameIDNeedReview(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	src := helloFolder(t)
	first, err := s.Install(src)
	must(t, err)
	trustEnable(t, s, "hello")
	must(t, os.WriteFile(filepath.Join(src, "index.mjs"), []byte(entryJS+"// v2\n"), 0o644))
	second, err := s.Install(src)
	must(t, err)
	if !second.Updated || second.Closure == first.Closure {
		t.Fatalf("%+v", second)
	}
	r, _ := s.Get("hello")
	if !r.Enabled {
		t.Fatal("an update dropped the enabled flag")
	}
	if err := s.CheckReceipt(r); !errors.Is(err, ErrContentChanged) {
		t.Fatalf("got %v", err)
	}
	if d, b, _, _ := s.Desired(nil); len(d) != 0 || len(b) != 1 {
		t.Fatal("an updated plugin stayed desired without review")
	}
}

func TestDesired(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	res := installHello(t, s)
	d, b, g0, err := s.Desired(nil)
	must(t, err)
	if len(d)+len(b) != 0 {
		t.Fatal("a disabled untrusted plugin is desired or blocked")
	}
	must(t, s.Enable("hello"))
	_, b, _, _ = s.Desired(nil)
	if len(b) != 1 || !errors.Is(b[0].Err, ErrNotTrusted) {
		t.Fatalf("blocked %v", b)
	}
	trustEnable(t, s, "hello")
	cfg, err := config.Parse("c.toml", []byte("[plugins.hello.config]\ngreeting = \"hey\"\n"))
	must(t, err)
	d, b, g1, err := s.Desired(cfg)
	must(t, err)
	if len(d) != 1 || len(b) != 0 || g1 <= g0 {
		t.Fatalf("desired %v blocked %v gen %d→%d", d, b, g0, g1)
	}
	got := d[0]
	if got.ID != "hello" || got.Closure != res.Closure || got.StageDir != res.StageDir ||
		got.DataDir != filepath.Join(home, "extension-host", "data", "plugins", DiskName("hello")) ||
		string(got.Config.JSON) != `{"greeting":"hey"}` || len(got.Entries) != 2 ||
		got.Entries[0].Path != filepath.Join(res.StageDir, "index.mjs") || got.Entries[0].Rel != "index.mjs" {
		t.Fatalf("desired %+v", got)
	}
	bad, err := config.Parse("c.toml", []byte("[plugins.hello.config]\nat = 2026-01-01\n"))
	must(t, err)
	d, _, _, _ = s.Desired(bad)
	if len(d) != 1 || d[0].Config.Err == nil || d[0].Config.JSON != nil {
		t.Fatal("a refused config must reach the Manager as Config.Err")
	}
	must(t, s.Disable("hello"))
	if d, _, _, _ := s.Desired(cfg); len(d) != 0 {
		t.Fatal("a disabled plugin stayed desired")
	}
	must(t, s.Enable("hello"))
	must(t, s.Untrust("hello"))
	if d, _, _, _ := s.Desired(cfg); len(d) != 0 {
		t.Fatal("an untrusted plugin stayed desired")
	}
}

func TestDataDir(t *testing.T) {
	home := t.TempDir()
	l := Layout{Home: home}
	tests := map[string]string{
		"hello":                               "hello-",
		"@deepseek-ai/dsh-session-log-export": "deepseek-ai-dsh-session-log-export-",
		"@@Weird__Name!!":                     "weird-name-",
		strings.Repeat("a", 100):              strings.Repeat("a", 64) + "-",
		"@@@":                                 "",
	}
	seen := map[string]bool{}
	for id, prefix := range tests {
		name := DiskName(id)
		if !strings.HasPrefix(name, prefix) || len(name) != len(prefix)+12 {
			t.Errorf("DiskName(%q) = %q, want %q + 12 hex", id, name, prefix)
		}
		if seen[name] {
			t.Errorf("collision on %q", name)
		}
		seen[name] = true
	}
	if DiskName("@a/b") == DiskName("a-b") {
		t.Fatal("ids that sanitize alike share a directory")
	}
	dir, err := l.EnsureDataDir("@deepseek-ai/dsh-session-log-export")
	must(t, err)
	if dir != filepath.Join(home, "extension-host", "data", "plugins", DiskName("@deepseek-ai/dsh-session-log-export")) {
		t.Fatalf("data dir %s", dir)
	}
	fi, err := os.Stat(dir)
	must(t, err)
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	must(t, os.WriteFile(filepath.Join(dir, "kept"), []byte("x"), 0o600))
	must(t, os.Chmod(dir, 0o755))
	again, err := l.EnsureDataDir("@deepseek-ai/dsh-session-log-export")
	must(t, err)
	fi, _ = os.Stat(again)
	if again != dir || fi.Mode().Perm() != 0o700 {
		t.Fatal("data dir moved or kept a loose mode")
	}
	if _, err := os.Stat(filepath.Join(dir, "kept")); err != nil {
		t.Fatal("data dir contents lost")
	}
}

func TestRemoveKeepsData(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	data, err := s.Layout().EnsureDataDir("hello")
	must(t, err)
	must(t, s.Remove("hello", false))
	if _, err := s.Get("hello"); !errors.Is(err, ErrNotInstalled) {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Layout().PluginDir("hello")); !os.IsNotExist(err) {
		t.Fatal("staged copies survived remove")
	}
	if _, err := os.Stat(data); err != nil {
		t.Fatal("remove deleted the data directory")
	}
	installHello(t, s)
	must(t, s.Remove("hello", true))
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatal("purge kept the data directory")
	}
	if err := s.Remove("hello", false); !errors.Is(err, ErrNotInstalled) {
		t.Fatal(err)
	}
}

func TestCorruptStateIsReportedNotReset(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	bad := []byte(`{"version":1,"generation":3,"plugins":{"hello":`)
	must(t, os.WriteFile(s.StatePath(), bad, 0o600))
	checks := map[string]func() error{
		"get":     func() error { _, err := s.Get("hello"); return err },
		"list":    func() error { _, err := s.List(); return err },
		"enable":  func() error { return s.Enable("hello") },
		"install": func() error { _, err := s.Install(helloFolder(t)); return err },
		"desired": func() error { _, _, _, err := s.Desired(nil); return err },
		"diag":    func() error { return s.AppendDiagnostic("hello", Diagnostic{Kind: "x"}) },
	}
	for name, f := range checks {
		err := f()
		var ce *CorruptStateError
		if !errors.As(err, &ce) || ce.Path != s.StatePath() || !strings.Contains(err.Error(), s.StatePath()) {
			t.Fatalf("%s: got %v", name, err)
		}
		after, _ := os.ReadFile(s.StatePath())
		if string(after) != string(bad) {
			t.Fatalf("%s rewrote the corrupt file", name)
		}
	}
	for _, body := range []string{`{"version":2,"plugins":{}}`, `{"version":1,"plugins":{"a":{"id":"b"}}}`, `{"version":1,"extra":1}`, `{"version":1} x`} {
		must(t, os.WriteFile(s.StatePath(), []byte(body), 0o600))
		if _, err := s.List(); !errors.Is(err, ErrCorruptState) {
			t.Fatalf("%s: got %v", body, err)
		}
	}
}

func TestDiagnosticsRing(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	installHello(t, s)
	g0, _ := s.Generation()
	for i := 0; i < DiagnosticsRing+6; i++ {
		must(t, s.AppendDiagnostic("hello", Diagnostic{Kind: "faulted", Message: string(rune('A' + i%26))}))
	}
	r, _ := s.Get("hello")
	if len(r.Diagnostics) != DiagnosticsRing {
		t.Fatalf("%d diagnostics kept", len(r.Diagnostics))
	}
	if r.Diagnostics[0].Message != string(rune('A'+6)) || !r.Diagnostics[0].Time.Equal(fixedNow()) {
		t.Fatalf("oldest kept %+v", r.Diagnostics[0])
	}
	if g1, _ := s.Generation(); g1 != g0 {
		t.Fatal("diagnostics moved the generation")
	}
	if err := s.AppendDiagnostic("ghost", Diagnostic{}); !errors.Is(err, ErrNotInstalled) {
		t.Fatal(err)
	}
}

func TestWatcherSeesOtherWriters(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	w, err := NewWatcher(s)
	must(t, err)
	g0 := w.Generation()
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.Run(ctx, tick) }()
	defer func() { cancel(); wg.Wait() }()

	other := newStore(t, home, nil) // as another process would
	must(t, other.Enable("hello"))
	if _, changed := w.ChangedSince(g0); changed {
		t.Fatal("changed before a poll: Generation must not read the file")
	}
	tick <- time.Time{}
	<-w.Changed()
	g1, changed := w.ChangedSince(g0)
	if !changed || g1 != g0+1 {
		t.Fatalf("generation %d→%d changed=%v", g0, g1, changed)
	}
	must(t, other.AppendDiagnostic("hello", Diagnostic{Kind: "x"}))
	tick <- time.Time{}
	tick <- time.Time{} // the second send returns after the first poll finished
	if g, _ := w.ChangedSince(g1); g != g1 {
		t.Fatal("a diagnostic moved the generation")
	}
	must(t, os.WriteFile(s.StatePath(), []byte("{"), 0o600))
	tick <- time.Time{}
	tick <- time.Time{}
	if _, err := s.Generation(); !errors.Is(err, ErrCorruptState) || w.Generation() != g1 {
		t.Fatalf("corrupt file: err %v gen %d, want ErrCorruptState and the generation kept", err, w.Generation())
	}
}

func TestConcurrentWritersInProcess(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st := newStore(t, home, nil)
			for j := 0; j < 10; j++ {
				var err error
				if (i+j)%2 == 0 {
					err = st.Enable("hello")
				} else {
					err = st.Disable("hello")
				}
				if err == nil {
					err = st.AppendDiagnostic("hello", Diagnostic{Kind: "x", Message: "m"})
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	r, err := s.Get("hello")
	must(t, err)
	if len(r.Diagnostics) != DiagnosticsRing {
		t.Fatalf("lost updates: %d diagnostics", len(r.Diagnostics))
	}
}

func TestNpmTarballs(t *testing.T) {
	s := newStore(t, t.TempDir(), nil)
	slx := plugintest.NpmTarball(t, plugintest.SessionLogExport)
	res, err := s.Install(slx)
	must(t, err)
	if res.ID != "@deepseek-ai/dsh-session-log-export" || res.Version != "0.1.0-rc.8" {
		t.Fatalf("%+v", res)
	}
	rv, err := s.Review(res.ID)
	must(t, err)
	provided, missing := 0, 0
	for _, p := range rv.Peers {
		if p.Provided {
			provided++
		} else {
			missing++
		}
	}
	if len(rv.Notes) != 1 || !strings.Contains(rv.Notes[0], "dsh.client") {
		t.Fatalf("notes %v", rv.Notes)
	}
	if provided != 1 || missing != 6 || len(rv.Entries) != 1 || rv.Entries[0].Path != "lib/index.js" || strings.Join(rv.Entries[0].Injects, ",") != "commands" {
		t.Fatalf("review %+v", rv)
	}
	trustEnable(t, s, res.ID)
	if d, _, _, _ := s.Desired(nil); len(d) != 1 {
		t.Fatal("not desired after trust and enable")
	}

	todo := plugintest.NpmTarball(t, plugintest.ToolTodo)
	_, err = s.Install(todo)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "zod") {
		t.Fatalf("tool-todo: got %v, want a refusal naming zod", err)
	}
	if strings.Contains(err.Error(), "schemastery") {
		t.Fatalf("a provided module was reported missing: %v", err)
	}
}
