package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/core/supervisor"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// The tests here give plugins read grants (ARCHITECTURE.md, “Grants”) under real bubblewrap
// with sandbox = "required".

// payloads makes a folder readable by the sandbox uid holding a.txt, and names it in
// CWX_TEST_PAYLOADS (the grant-reader fixture's manifest asks for that folder).
func payloads(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "payloads")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CWX_TEST_PAYLOADS", dir)
	return dir
}

func grantConfig(extra string) string {
	return "sandbox = \"required\"\nmemory_limit_mib = 512\n" + extra
}

// TestGrantRead: a granted folder is readable and not writable by its plugin, and absent
// for another plugin; without the grant the read fails naming what is missing and the
// config line its manifest's request needs.
func TestGrantRead(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		dir := payloads(t)
		file := filepath.Join(dir, "a.txt")
		t.Run("granted", func(t *testing.T) {
			e := newEnv(t, rt)
			e.writeConfig(grantConfig("\n[plugins.\"fixture-grant-reader\"]\nread = [\"${env:CWX_TEST_PAYLOADS}\"]\n"))
			e.install("grant-reader", "secret-probe")
			m := e.open(nil)
			reconcile(t, m)
			if !m.HostOf("fixture-grant-reader").Isolated() {
				t.Fatal("a plugin with a grant is not in a host of its own")
			}
			res, err := m.CallTool(context.Background(), "grant_read", input(fmt.Sprintf(`{"path":%q}`, file)), CallOptions{})
			if err != nil || res.Text() != "payload" {
				t.Fatalf("read of the granted folder: %v %+v", err, res)
			}
			_, err = m.CallTool(context.Background(), "grant_write", input(fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "b.txt"))), CallOptions{})
			if err == nil || !(strings.Contains(err.Error(), "EROFS") || strings.Contains(err.Error(), "EACCES")) {
				t.Fatalf("write into the granted folder: %v; want refused", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
				t.Fatal("the write reached the granted folder")
			}
			if p := callProbe(t, m, "probe_read", map[string]string{"path": file}); p.OK || p.Code != "ENOENT" {
				t.Fatalf("another plugin read the grant: %+v", p)
			}
		})
		t.Run("not granted", func(t *testing.T) {
			e := newEnv(t, rt)
			e.writeConfig(grantConfig(""))
			e.install("grant-reader")
			m := e.open(nil)
			reconcile(t, m)
			_, err := m.CallTool(context.Background(), "grant_read", input(fmt.Sprintf(`{"path":%q}`, file)), CallOptions{})
			want := fmt.Sprintf("%s is not mounted in the sandbox of plugin `fixture-grant-reader`", file)
			line := `add read = ["${env:CWX_TEST_PAYLOADS}"] under [plugins."fixture-grant-reader"] in config.toml`
			if !errors.Is(err, ErrExecutionFailed) || !strings.Contains(err.Error(), "ENOENT") || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), line) {
				t.Fatalf("read without the grant: %v\nwant it to name %q and %q", err, want, line)
			}
		})
	})
}

// TestGrantRefusedAtStart: a grant of cwx's own home fails the plugin's host with the reason,
// and a symlink granted, then swapped to point elsewhere, is caught at the next start.
func TestGrantRefusedAtStart(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		t.Run("cwx home", func(t *testing.T) {
			e := newEnv(t, rt)
			e.writeConfig(grantConfig(fmt.Sprintf("\n[plugins.\"fixture-grant-reader\"]\nread = [%q]\n", filepath.Join(e.home, "plugins"))))
			e.install("grant-reader", "tool")
			m := e.open(nil)
			err := m.Reconcile(context.Background())
			if err == nil || !strings.Contains(err.Error(), "cwx's home") || !strings.Contains(err.Error(), "start the host of plugin `fixture-grant-reader`") {
				t.Fatalf("reconcile: %v; want the host refused naming cwx's home", err)
			}
			if !hasTool(m, "echo_text") {
				t.Fatal("the refused grant stopped another plugin")
			}
		})
		t.Run("symlink swapped", func(t *testing.T) {
			dir := payloads(t)
			other := filepath.Join(filepath.Dir(dir), "other")
			if err := os.Mkdir(other, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(filepath.Dir(dir), "link")
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, rt)
			e.writeConfig(grantConfig(fmt.Sprintf("\n[plugins.\"fixture-grant-reader\"]\nread = [%q]\n", link)))
			e.install("grant-reader")
			m := e.open(func(o *Options) {
				o.Tier = func(so *supervisor.Options) {
					so.HandshakeTimeout, so.RestartBackoff = 20*time.Second, 20*time.Millisecond
				}
			})
			reconcile(t, m)
			res, err := m.CallTool(context.Background(), "grant_read", input(fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "a.txt"))), CallOptions{})
			if err != nil || res.Text() != "payload" {
				t.Fatalf("read through the granted link: %v %+v", err, res)
			}
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, link); err != nil {
				t.Fatal(err)
			}
			k := m.HostOf("fixture-grant-reader")
			if err := m.KillHost(k); err != nil {
				t.Fatal(err)
			}
			eventually(t, 30*time.Second, "the host refused its next start", func() bool {
				return strings.Contains(hostStatus(m, k).LastFailure, "now resolves to "+other)
			})
			if _, err := m.CallTool(context.Background(), "grant_read", input(fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "a.txt"))), CallOptions{}); err == nil {
				t.Fatal("the plugin answered after its grant's symlink was swapped")
			}
		})
	})
}
