package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigCheckGoldens(t *testing.T) {
	big := strings.Repeat("x", 17<<10)
	tests := []struct {
		name, toml string
		code       int
	}{
		{"config-check-absent", "", ExitOK},
		{"config-check-ok", "[extension_host]\nruntime = \"auto\"\nnode = \"/opt/node/bin/node\"\nmemory_limit_mib = 512\napproval = \"deny\"\n\n[plugins.hello.config]\ngreeting = \"secret\"\nnested = { a = [1, 2] }\n", ExitOK},
		{"config-check-memory-low", "[extension_host]\nruntime = \"node\"\nmemory_limit_mib = 64\n", ExitInvalid},
		{"config-check-unknown-key", "[extension_host]\nruntime = \"node\"\nmemory = 5\n", ExitInvalid},
		{"config-check-syntax", "[extension_host\nruntime = 1\n", ExitInvalid},
		{"config-check-hooks", "[[hooks.PreToolUse]]\nmatcher = \"Bash|Write\"\ncommand = \"./guard.sh\"\n", ExitOK},
		{"config-check-hooks-bad-matcher", "[[hooks.PreToolUse]]\nmatcher = \"Bash(\"\ncommand = \"./guard.sh\"\n", ExitInvalid},
		{"config-check-hooks-missing-file", "hooks_file = \"/nonexistent/settings.json\"\n", ExitInvalid},
		{"config-check-grants", "[plugins.reader]\nread = [\"/etc/hostname\", \"@HOME@\", \"/proc/sys\", \"/nonexistent-cwx-grant\"]\nnetwork = [\"https://API.example.com\"]\n", ExitInvalid},
		{"config-check-fetch", "[plugins.parser]\nnetwork = [\"https://api.example.com\", \"http://127.0.0.1:8000\"]\nnetwork_private = [\"http://127.0.0.1:8000\"]\n" +
			"[plugins.parser.headers.\"https://api.example.com\"]\nAuthorization = \"Bearer secret-token\"\nx-team = \"secret\"\n", ExitOK},
		{"config-check-refused", "[plugins.big.config]\nblob = \"" + big + "\"\n[plugins.when.config]\nat = 2026-01-01T00:00:00Z\n[plugins.ok.config]\nx = 1\n", ExitInvalid},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			name := tc.name
			if asJSON {
				name += "-json"
			}
			t.Run(name, func(t *testing.T) {
				home := pluginHome(t)
				if tc.toml != "" {
					if err := os.MkdirAll(home, 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(strings.ReplaceAll(tc.toml, "@HOME@", home)), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				args := []string{"config", "check"}
				if asJSON {
					args = append(args, "--json")
				}
				r := runPluginCLI(t, args...)
				if r.code != tc.code {
					t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
				}
				if strings.Contains(r.stdout, "secret") {
					t.Fatal("config check printed a value")
				}
				checkGolden(t, name+".golden", []byte(normalize(r.stdout+r.stderr, home, "$CWX_HOME")))
			})
		}
	}
}
