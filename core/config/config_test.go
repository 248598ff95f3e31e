package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func TestHomeDefaultAndEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "home")
	t.Setenv(EnvHome, dir)
	got, err := Home()
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Fatalf("Home() = %q, want %q", got, dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", fi.Mode().Perm())
	}

	fake := t.TempDir()
	t.Setenv(EnvHome, "")
	t.Setenv("HOME", fake)
	got, err = Home()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(fake, ".cwx"); got != want {
		t.Fatalf("Home() = %q, want %q", got, want)
	}
}

func TestHomeIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvHome, f)
	if _, err := Home(); err == nil {
		t.Fatal("Home() accepted a regular file")
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	cfg, err := LoadHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := ExtensionHost{Runtime: "node", MemoryLimitMiB: 1024, Approval: "ask", Sandbox: "prefer", SandboxWorkspace: "none",
		SandboxUID: DefaultSandboxUID, Isolation: IsolationShared, Snapshot: SnapshotAuto}
	if !reflect.DeepEqual(cfg.ExtensionHost, want) {
		t.Fatalf("defaults = %+v, want %+v", cfg.ExtensionHost, want)
	}
	if cfg.ExtensionHost.MemoryLimitBytes() != 1<<30 {
		t.Fatalf("MemoryLimitBytes = %d", cfg.ExtensionHost.MemoryLimitBytes())
	}
	p := cfg.Plugin("anything")
	if string(p.JSON) != "{}" || !p.Valid() || p.Digest != digest([]byte("{}")) {
		t.Fatalf("absent plugin = %+v", p)
	}
}

func TestParseExtensionHost(t *testing.T) {
	cfg, err := Parse("c.toml", []byte(`
[extension_host]
runtime = "auto"
node = "/opt/node/bin/node"
bun = "/opt/bun//bin/bun"
memory_limit_mib = 512
approval = "deny"
sandbox = "required"
bwrap = "/opt/bw//bwrap"
deny_read = ["/etc/secret/", "/srv/keys"]
sandbox_workspace = "read"
sandbox_uid = 61000
isolation = "process"
snapshot = "off"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := ExtensionHost{Runtime: "auto", Node: "/opt/node/bin/node", Bun: "/opt/bun/bin/bun", MemoryLimitMiB: 512, Approval: "deny",
		Sandbox: "required", Bwrap: "/opt/bw/bwrap", DenyRead: []string{"/etc/secret", "/srv/keys"}, SandboxWorkspace: "read",
		SandboxUID: 61000, Isolation: IsolationProcess, Snapshot: SnapshotOff}
	if !reflect.DeepEqual(cfg.ExtensionHost, want) {
		t.Fatalf("got %+v, want %+v", cfg.ExtensionHost, want)
	}
}

// TestIsolation: a plugin's own isolation wins over [extension_host]'s default, and a
// builtin module is never isolated.
func TestIsolation(t *testing.T) {
	for _, tc := range []struct {
		toml string
		want map[string]bool
	}{
		{"", map[string]bool{"a": false, "host:mcp": false}},
		{"[plugins.a]\nisolation = \"process\"", map[string]bool{"a": true, "b": false}},
		{"[extension_host]\nisolation = \"process\"\n[plugins.a]\nisolation = \"shared\"", map[string]bool{"a": false, "b": true, "host:mcp": false}},
		{"[plugins.a]\nisolation = \"process\"\n[plugins.a.config]\nisolation = \"shared\"", map[string]bool{"a": true}},
	} {
		cfg, err := Parse("c.toml", []byte(tc.toml))
		if err != nil {
			t.Fatalf("%q: %v", tc.toml, err)
		}
		for id, want := range tc.want {
			if got := cfg.Isolated(id); got != want {
				t.Errorf("%q: Isolated(%s) = %t, want %t", tc.toml, id, got, want)
			}
		}
	}
	// the key belongs to cwx, not to the plugin: it never reaches its config
	cfg, _ := Parse("c.toml", []byte("[plugins.a]\nisolation = \"process\"\n[plugins.a.config]\nk = 1"))
	if p := cfg.Plugin("a"); string(p.JSON) != `{"k":1}` || p.Isolation != IsolationProcess {
		t.Fatalf("plugin a = %s, isolation %q", p.JSON, p.Isolation)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, toml, key, contains string
	}{
		{"unknown top-level", "colour = 1", "colour", "unknown key"},
		{"unknown host key", "[extension_host]\nruntim = \"node\"", "extension_host.runtim", "unknown key"},
		{"unknown plugin key", "[plugins.foo]\nsettings = {}", "plugins.foo.settings", "unknown key"},
		{"bad runtime", "[extension_host]\nruntime = \"deno\"", "extension_host.runtime", `"deno" is not a runtime`},
		{"relative node", "[extension_host]\nnode = \"bin/node\"", "extension_host.node", "absolute path"},
		{"relative bun", "[extension_host]\nbun = \"bun\"", "extension_host.bun", "absolute path"},
		{"memory too low", "[extension_host]\nmemory_limit_mib = 1", "extension_host.memory_limit_mib", "out of range"},
		{"64 MiB for node", "[extension_host]\nmemory_limit_mib = 64", "extension_host.memory_limit_mib", `below the minimum of 256 MiB for runtime "node"`},
		{"300 MiB for bun", "[extension_host]\nruntime = \"bun\"\nmemory_limit_mib = 300", "extension_host.memory_limit_mib", `below the minimum of 384 MiB for runtime "bun"`},
		{"300 MiB for auto", "[extension_host]\nruntime = \"auto\"\nmemory_limit_mib = 300", "extension_host.memory_limit_mib", `below the minimum of 384 MiB for runtime "auto"`},
		{"bad approval", "[extension_host]\napproval = \"yes\"", "extension_host.approval", "not a posture"},
		{"bad sandbox", "[extension_host]\nsandbox = \"on\"", "extension_host.sandbox", `"on" is not a sandbox mode`},
		{"relative bwrap", "[extension_host]\nbwrap = \"bwrap\"", "extension_host.bwrap", "absolute path"},
		{"relative deny_read", "[extension_host]\ndeny_read = [\"/ok\", \"x/y\"]", "extension_host.deny_read", `"x/y" must be an absolute path`},
		{"bad workspace", "[extension_host]\nsandbox_workspace = \"write\"", "extension_host.sandbox_workspace", "not a workspace mount"},
		{"sandbox uid 0", "[extension_host]\nsandbox_uid = 0", "extension_host.sandbox_uid", "use an unused uid from 1 to 4294967294"},
		{"sandbox uid too big", "[extension_host]\nsandbox_uid = 4294967295", "extension_host.sandbox_uid", "out of range"},
		{"sandbox uid negative", "[extension_host]\nsandbox_uid = -5", "extension_host.sandbox_uid", "out of range"},
		{"bad isolation", "[extension_host]\nisolation = \"vm\"", "extension_host.isolation", `"vm" is not an isolation mode; use "shared"`},
		{"bad snapshot", "[extension_host]\nsnapshot = \"on\"", "extension_host.snapshot", `"on" is not a snapshot mode; use "auto" or "off"`},
		{"bad plugin isolation", "[plugins.foo]\nisolation = \"own\"", `plugins."foo".isolation`, `"own" is not an isolation mode`},
		{"wrong type", "[extension_host]\nruntime = 3", "", "runtime"},
		{"syntax", "[extension_host\n", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/h/config.toml", []byte(tc.toml))
			if err == nil {
				t.Fatal("accepted")
			}
			var ce *Error
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %T %v is not a *config.Error", err, err)
			}
			if tc.key != "" && ce.Key != tc.key {
				t.Fatalf("key = %q, want %q (%v)", ce.Key, tc.key, err)
			}
			if !strings.Contains(err.Error(), tc.contains) || !strings.HasPrefix(err.Error(), "/h/config.toml") {
				t.Fatalf("message %q lacks %q or the path", err, tc.contains)
			}
		})
	}
}

func TestPluginConfigAccepted(t *testing.T) {
	cfg, err := Parse("c.toml", []byte(`
[plugins."@scope/pkg".config]
greeting = "hi <you>"
count = 3
ratio = 0.5
on = true
list = [1, 2, 3]
[plugins."@scope/pkg".config.nested]
deep = { x = "y" }
[[plugins."@scope/pkg".config.items]]
a = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Plugin("@scope/pkg")
	if !p.Valid() {
		t.Fatal(p.Err)
	}
	want := `{"count":3,"greeting":"hi <you>","items":[{"a":1}],"list":[1,2,3],"nested":{"deep":{"x":"y"}},"on":true,"ratio":0.5}`
	if string(p.JSON) != want {
		t.Fatalf("JSON = %s\nwant   %s", p.JSON, want)
	}
	if fmt.Sprint(p.Keys) != "[count greeting items list nested on ratio]" {
		t.Fatalf("keys = %v", p.Keys)
	}
	if p.Digest != digest([]byte(want)) {
		t.Fatal("digest is not the sha256 of the JSON")
	}
	if ids := cfg.PluginIDs(); len(ids) != 1 || ids[0] != "@scope/pkg" {
		t.Fatalf("ids = %v", ids)
	}
}

func nestedTOML(levels int) string {
	// The config table is level 1; each dotted segment adds one.
	key := `plugins.p.config`
	for i := 2; i <= levels; i++ {
		key += fmt.Sprintf(".l%d", i)
	}
	return "[" + key + "]\nv = 1\n"
}

func TestPluginConfigBounds(t *testing.T) {
	big := strings.Repeat("x", MaxPluginConfigBytes)
	tests := []struct {
		name, toml, contains string
	}{
		{"17 KiB", fmt.Sprintf("[plugins.p.config]\nblob = %q\n", big+strings.Repeat("y", 1024)), "over the 16384-byte"},
		{"17 levels", nestedTOML(17), "deeper than 16 levels"},
		{"17 levels via arrays", "[plugins.p.config]\nv = " + strings.Repeat("[", 16) + "1" + strings.Repeat("]", 16) + "\n", "deeper than 16 levels"},
		{"offset date-time", "[plugins.p.config]\nwhen = 1979-05-27T07:32:00Z\n", "date-time"},
		{"local date", "[plugins.p.config]\nday = 1979-05-27\n", "date-time"},
		{"local time", "[plugins.p.config.t]\nat = 07:32:00\n", "date-time"},
		{"nan", "[plugins.p.config]\nx = nan\n", "nan or inf"},
		{"host prefix", "[plugins.\"host:mcp\".config]\nx = 1\n", `never start with "host:"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := "p"
			if strings.Contains(tc.toml, "host:") {
				id = "host:mcp"
			}
			cfg, err := Parse("c.toml", []byte(tc.toml+"\n[plugins.other.config]\nok = true\n"))
			if err != nil {
				t.Fatalf("an over-limit plugin table must not fail the load: %v", err)
			}
			p := cfg.Plugin(id)
			if p.Valid() || p.JSON != nil || p.Config != nil {
				t.Fatalf("accepted: %+v", p)
			}
			if !errors.Is(p.Err, ErrPluginConfig) || !strings.Contains(p.Err.Error(), tc.contains) {
				t.Fatalf("reason %q lacks %q", p.Err, tc.contains)
			}
			if p.Digest != digest([]byte("refused\x00"+p.Err.Error())) {
				t.Fatal("a refused table's digest must be the hash of its reason")
			}
			if !cfg.Plugin("other").Valid() {
				t.Fatal("a neighbour's table was affected")
			}
		})
	}
}

func TestPluginConfigLimitsInclusive(t *testing.T) {
	cfg, err := Parse("c.toml", []byte(nestedTOML(16)))
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Plugin("p"); !p.Valid() {
		t.Fatalf("16 levels refused: %v", p.Err)
	}
	// Exactly 16 KiB of JSON: {"b":"…"} is 8 bytes of framing.
	cfg, err = Parse("c.toml", fmt.Appendf(nil, "[plugins.p.config]\nb = %q\n", strings.Repeat("z", MaxPluginConfigBytes-8)))
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Plugin("p"); !p.Valid() || len(p.JSON) != MaxPluginConfigBytes {
		t.Fatalf("16 KiB refused: %v (%d bytes)", p.Err, len(p.JSON))
	}
}

func TestDigestStability(t *testing.T) {
	a, _ := Parse("c.toml", []byte("[plugins.p.config]\nb = 1\na = 2\n"))
	b, _ := Parse("c.toml", []byte("[plugins.p.config]\na = 2\nb = 1\n"))
	c, _ := Parse("c.toml", []byte("[plugins.p.config]\na = 2\nb = 3\n"))
	if a.Plugin("p").Digest != b.Plugin("p").Digest {
		t.Fatal("key order changed the digest")
	}
	if a.Plugin("p").Digest == c.Plugin("p").Digest {
		t.Fatal("a changed value kept the digest")
	}
	// A refused table that gets fixed changes its digest (recovers); the same refusal keeps it.
	r1, _ := Parse("c.toml", []byte("[plugins.p.config]\nwhen = 1979-05-27\n"))
	r2, _ := Parse("c.toml", []byte("[plugins.p.config]\nwhen = 1979-05-27\n"))
	if r1.Plugin("p").Digest != r2.Plugin("p").Digest || r1.Plugin("p").Digest == a.Plugin("p").Digest {
		t.Fatal("refusal digests are not stable or collide with a valid table")
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, FileName), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := LoadHome(dir)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), FileName) {
		t.Fatalf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[extension_host]\nruntime = \"bun\"\n[plugins.a.config]\nx = [1, {y = 2}]\n"))
	f.Add([]byte(nestedTOML(20)))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("f.toml", data)
		if err != nil {
			return
		}
		for _, id := range cfg.PluginIDs() {
			p := cfg.Plugin(id)
			if p.Valid() && len(p.JSON) > MaxPluginConfigBytes {
				t.Fatalf("over-limit config accepted for %q", id)
			}
		}
	})
}

// TestLoadRefusesHostileFiles: a config.toml that is a FIFO (which would block the open) or
// larger than MaxConfigBytes is an *Error naming the file, read no further.
func TestLoadRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, big} {
		_, err := Load(p)
		var ce *Error
		if !errors.As(err, &ce) || ce.Path != p || !errors.Is(err, ErrInvalid) {
			t.Fatalf("Load(%s): %v", p, err)
		}
	}
}
