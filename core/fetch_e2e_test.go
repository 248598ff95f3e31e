package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/tickets"
	"github.com/cwx-dev/cwx/shared/testenv"
)

// The tests here run the fetch proxy (core/fetchproxy) end to end: a plugin's global fetch in
// a host under real bubblewrap (sandbox = "required", no network of its own), net/* to the
// core, the core's egress to a loopback test server reachable from the core only.

const fetchToken = "tok-e2e-5f0c1d"

// lockedBuffer collects a Manager's log lines for the token check.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fetchServer is the service the plugin may reach: it answers the injected token, and
// offers a redirect away, a slow answer, a body that never ends and an oversize one.
func fetchServer(t *testing.T, away string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			if r.Header.Get("Authorization") != "Bearer "+fetchToken {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, "no token")
				return
			}
			w.Header().Set("Authorization", r.Header.Get("Authorization")) // a server that hands it back in a header
			w.Header().Set("X-Probe-Seen", r.Header.Get("X-Probe"))
			io.WriteString(w, "authorized")
		case "/401":
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "denied")
		case "/away":
			http.Redirect(w, r, away+"/x?q=hidden", http.StatusFound)
		case "/big":
			w.Header().Set("Content-Length", fmt.Sprint(200<<20))
			w.WriteHeader(200)
		case "/slow", "/stream":
			if r.URL.Path == "/stream" {
				w.Write(bytes.Repeat([]byte("s"), 1000))
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/upload":
			n, _ := io.Copy(io.Discard, r.Body)
			fmt.Fprintf(w, "%d %s", n, r.Header.Get("Content-Type"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

type fetchAnswer struct {
	Status   int        `json:"status"`
	Text     string     `json:"text"`
	Headers  [][]string `json:"headers"`
	Rejected bool       `json:"rejected"`
	Cause    *struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Origin  string `json:"origin"`
	} `json:"cause"`
	After string `json:"after"`
}

func TestFetchProxy(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		t.Setenv("CWX_TEST_FETCH_TOKEN", fetchToken)
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "other") }))
		defer other.Close()
		srv := fetchServer(t, other.URL)
		localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
		e := newEnv(t, rt)
		e.writeConfig(grantConfig(fmt.Sprintf(`
[plugins."fixture-doc-uploader"]
network = [%q, %q, "http://does-not-exist.invalid"]
network_private = [%q]
[plugins."fixture-doc-uploader".headers.%q]
Authorization = "Bearer ${env:CWX_TEST_FETCH_TOKEN}"
`, srv.URL, localhost, srv.URL, srv.URL)))
		e.install("doc-uploader")
		logs := &lockedBuffer{}
		m := e.open(func(o *Options) {
			o.Logger = hclog.New(&hclog.LoggerOptions{Name: "core", Level: hclog.Debug, Output: io.MultiWriter(logs, &testWriter{t: t})})
		})
		reconcile(t, m)
		var seen []string // every answer and error the plugin's calls produced
		call := func(opts CallOptions, args map[string]any) (fetchAnswer, error) {
			t.Helper()
			b, _ := json.Marshal(args)
			res, err := m.CallTool(context.Background(), "http_probe", b, opts)
			if err != nil {
				seen = append(seen, err.Error())
				return fetchAnswer{}, err
			}
			seen = append(seen, res.Text())
			var a fetchAnswer
			if err := json.Unmarshal([]byte(res.Text()), &a); err != nil {
				t.Fatalf("http_probe answered %q: %v", res.Text(), err)
			}
			return a, nil
		}
		refused := func(t *testing.T, url, reason string, says ...string) {
			t.Helper()
			a, err := call(CallOptions{}, map[string]any{"url": url})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Rejected || a.Cause == nil || a.Cause.Reason != reason {
				t.Fatalf("fetch %s: %+v (cause %+v), want the reason %q", url, a, a.Cause, reason)
			}
			for _, s := range says {
				if !strings.Contains(a.Cause.Message, s) {
					t.Fatalf("the refusal %q does not say %q", a.Cause.Message, s)
				}
			}
			if strings.Contains(a.Cause.Message, "q=hidden") || strings.Contains(a.Cause.Message, "/away") {
				t.Fatalf("the refusal %q names a path or a query", a.Cause.Message)
			}
		}

		t.Run("a granted origin answers with the injected header", func(t *testing.T) {
			a, err := call(CallOptions{}, map[string]any{"mode": "get", "url": srv.URL + "/ok?q=hidden"})
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != 200 || a.Text != "authorized" {
				t.Fatalf("%+v", a)
			}
			for _, h := range a.Headers {
				if strings.EqualFold(h[0], "authorization") {
					t.Fatalf("the response's Authorization reached the plugin: %v", h)
				}
				if strings.EqualFold(h[0], "x-probe-seen") && h[1] != "yes" {
					t.Fatalf("the plugin's own header did not arrive: %v", h)
				}
			}
		})
		t.Run("a streamed upload", func(t *testing.T) {
			a, err := call(CallOptions{}, map[string]any{"mode": "post", "url": srv.URL + "/upload", "size": 3 << 20})
			if err != nil || a.Status != 200 || a.Text != fmt.Sprintf("%d application/octet-stream", 3<<20) {
				t.Fatalf("%+v %v", a, err)
			}
		})
		t.Run("a 401 is an answer", func(t *testing.T) {
			a, err := call(CallOptions{}, map[string]any{"mode": "get", "url": srv.URL + "/401"})
			if err != nil || a.Status != 401 {
				t.Fatalf("%+v %v", a, err)
			}
		})
		t.Run("an ungranted origin", func(t *testing.T) {
			refused(t, other.URL+"/x?q=hidden", "not_granted", other.URL, `under [plugins."fixture-doc-uploader"] in config.toml`)
		})
		t.Run("a redirect to an ungranted origin", func(t *testing.T) {
			refused(t, srv.URL+"/away", "redirect", "redirected to "+other.URL)
		})
		t.Run("a name resolving to loopback without network_private", func(t *testing.T) {
			refused(t, localhost+"/ok", "private", "network_private")
		})
		t.Run("an oversize response", func(t *testing.T) {
			refused(t, srv.URL+"/big", "too_large")
		})
		t.Run("a name that does not resolve", func(t *testing.T) {
			refused(t, "http://does-not-exist.invalid/x?q=hidden", "network", "http://does-not-exist.invalid")
		})
		t.Run("a slow response past the deadline", func(t *testing.T) {
			_, err := call(CallOptions{Deadline: 2 * time.Second}, map[string]any{"mode": "get", "url": srv.URL + "/slow"})
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want the call's deadline", err)
			}
			eventually(t, 10*time.Second, "the exchange's log line names the deadline", func() bool {
				return strings.Contains(logs.String(), "fetch GET "+srv.URL+"/slow: failed: deadline")
			})
		})
		t.Run("a cancelled call", func(t *testing.T) {
			a, err := call(CallOptions{}, map[string]any{"mode": "abort", "url": srv.URL + "/stream"})
			if err != nil || a.After != "AbortError" {
				t.Fatalf("%+v %v", a, err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Second, cancel)
			b, _ := json.Marshal(map[string]any{"mode": "get", "url": srv.URL + "/slow"})
			if _, err := m.CallTool(ctx, "http_probe", b, CallOptions{}); !errors.Is(err, ErrCancelled) {
				t.Fatalf("err = %v, want cancelled", err)
			}
			eventually(t, 10*time.Second, "both exchanges logged as cancelled", func() bool {
				return strings.Count(logs.String(), "fetch GET "+srv.URL+"/stream: failed: cancelled")+
					strings.Count(logs.String(), "fetch GET "+srv.URL+"/stream: ended: cancelled") >= 1 &&
					strings.Contains(logs.String(), "fetch GET "+srv.URL+"/slow: failed: cancelled")
			})
		})
		t.Run("every request is logged", func(t *testing.T) {
			if !strings.Contains(logs.String(), "fetch GET "+srv.URL+"/ok: 200, 10 bytes received, 0 sent") {
				t.Fatalf("no log line for the granted request:\n%s", logs.String())
			}
		})
		t.Run("the token is nowhere the plugin or the log can see", func(t *testing.T) {
			for _, s := range seen {
				if strings.Contains(s, fetchToken) {
					t.Fatalf("the token reached the plugin: %s", s)
				}
			}
			if strings.Contains(logs.String(), fetchToken) {
				t.Fatal("the token is in the core's log")
			}
			if strings.Contains(logs.String(), "q=hidden") {
				t.Fatal("a query is in the core's log")
			}
		})
	})
}

// TestFetchProxyNotGranted: without a network grant the plugin's fetch fails naming the
// config line that grants it.
func TestFetchProxyNotGranted(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		srv := fetchServer(t, "http://127.0.0.1:1")
		e := newEnv(t, rt)
		e.writeConfig(grantConfig(""))
		e.install("doc-uploader")
		m := e.open(nil)
		reconcile(t, m)
		b, _ := json.Marshal(map[string]any{"url": srv.URL + "/ok"})
		res, err := m.CallTool(context.Background(), "http_probe", b, CallOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var a fetchAnswer
		if err := json.Unmarshal([]byte(res.Text()), &a); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`add network = [%q] under [plugins."fixture-doc-uploader"] in config.toml`, srv.URL)
		if !a.Rejected || a.Cause == nil || a.Cause.Reason != "not_granted" || !strings.Contains(a.Cause.Message, want) {
			t.Fatalf("%s; want not_granted naming %s", res.Text(), want)
		}
	})
}

// parsingService is a local fake of a document-parsing service: POST /tasks takes a
// multipart upload (the token required), GET /tasks/{id} says pending, then completed, GET
// /tasks/{id}/result returns markdown naming what was uploaded.
func parsingService(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	tasks := map[string]string{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tasks", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+fetchToken {
			http.Error(w, `{"error":"no token"}`, http.StatusUnauthorized)
			return
		}
		f, h, err := r.FormFile("files")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		mu.Lock()
		id := fmt.Sprintf("task-%d", len(tasks)+1)
		tasks[id] = fmt.Sprintf("# %s\n\n%d bytes, %s, backend %s", h.Filename, len(b), h.Header.Get("Content-Type"), r.FormValue("backend"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"task_id":%q,"status":"pending"}`, id)
	})
	polls := map[string]int{}
	mux.HandleFunc("GET /tasks/{id}", func(w http.ResponseWriter, r *http.Request) {
		// pending for more polls than a ticket has uses (tickets.Uses): a fetch spends none
		mu.Lock()
		polls[r.PathValue("id")]++
		status := "pending"
		if polls[r.PathValue("id")] > tickets.Uses+5 {
			status = "completed"
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"task_id":%q,"status":%q}`, r.PathValue("id"), status)
	})
	mux.HandleFunc("GET /tasks/{id}/result", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		md, ok := tasks[r.PathValue("id")]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]string{"md": md})
		w.Write(b)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestFetchUploadsAGrantedFile: a plugin shaped like a published document parser (a file the
// user names read from disk, posted with fetch and FormData, its task polled) runs sandboxed
// with a read grant and a network grant against a local fake of its service, the token added
// by the core; without either grant it fails naming the line to add.
func TestFetchUploadsAGrantedFile(t *testing.T) {
	needBwrap(t)
	eachRuntime(t, func(t *testing.T, rt testenv.Runtime) {
		t.Setenv("CWX_TEST_FETCH_TOKEN", fetchToken)
		dir := payloads(t)
		pdf := filepath.Join(dir, "paper.pdf")
		if err := os.WriteFile(pdf, append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 2<<20)...), 0o644); err != nil {
			t.Fatal(err)
		}
		svc := parsingService(t)
		plugin := `[plugins."fixture-doc-uploader"]` + "\n"
		read := `read = ["${env:CWX_TEST_PAYLOADS}"]` + "\n"
		network := fmt.Sprintf("network = [%q]\nnetwork_private = [%q]\n", svc.URL, svc.URL)
		headers := fmt.Sprintf(`[plugins."fixture-doc-uploader".headers.%q]`+"\nAuthorization = \"Bearer ${env:CWX_TEST_FETCH_TOKEN}\"\n", svc.URL)
		conf := fmt.Sprintf("[plugins.\"fixture-doc-uploader\".config]\nbaseURL = %q\n", svc.URL)
		var logs *lockedBuffer
		parse := func(t *testing.T, extra string) (string, error) {
			e := newEnv(t, rt)
			e.writeConfig(grantConfig("\n" + extra + conf))
			e.install("doc-uploader")
			logs = &lockedBuffer{}
			m := e.open(func(o *Options) {
				o.Logger = hclog.New(&hclog.LoggerOptions{Name: "core", Level: hclog.Debug, Output: io.MultiWriter(logs, &testWriter{t: t})})
			})
			reconcile(t, m)
			res, err := m.CallTool(context.Background(), "parse_document", input(fmt.Sprintf(`{"file_path":%q}`, pdf)), CallOptions{})
			if strings.Contains(logs.String(), fetchToken) {
				t.Fatal("the token is in the core's log")
			}
			if err != nil {
				return "", err
			}
			return res.Text(), nil
		}
		t.Run("granted", func(t *testing.T) {
			md, err := parse(t, plugin+read+network+headers)
			if want := fmt.Sprintf("# paper.pdf\n\n%d bytes, application/pdf, backend pipeline", 9+2<<20); err != nil || md != want {
				t.Fatalf("parse_document: %q, %v; want %q", md, err, want)
			}
		})
		t.Run("without the network grant", func(t *testing.T) {
			// The plugin lets fetch's TypeError('fetch failed') escape as it is; the host's
			// error text carries its cause, the refusal naming the grant, which is also the
			// plugin's log line (`cwx logs`).
			_, err := parse(t, plugin+read)
			want := fmt.Sprintf(`add network = [%q] under [plugins."fixture-doc-uploader"] in config.toml`, svc.URL)
			if err == nil || !strings.Contains(err.Error(), "TypeError: fetch failed; cause: ") || !strings.Contains(err.Error(), want) {
				t.Fatalf("parse_document: %v; want fetch's failure with its cause naming %s", err, want)
			}
			if line := fmt.Sprintf("host: fetch POST %s/tasks: refused: not_granted", svc.URL); !strings.Contains(logs.String(), line) || !strings.Contains(logs.String(), want) {
				t.Fatalf("no log line %q naming %s", line, want)
			}
		})
		t.Run("without the read grant", func(t *testing.T) {
			_, err := parse(t, plugin+network+headers)
			want := `add read = ["${env:CWX_TEST_PAYLOADS}"] under [plugins."fixture-doc-uploader"] in config.toml`
			if err == nil || !strings.Contains(err.Error(), "ENOENT") || !strings.Contains(err.Error(), want) {
				t.Fatalf("parse_document: %v; want ENOENT naming %s", err, want)
			}
		})
		t.Run("without the token", func(t *testing.T) {
			_, err := parse(t, plugin+read+network)
			if err == nil || !strings.Contains(err.Error(), "POST /tasks answered 401") {
				t.Fatalf("parse_document: %v; want the service's 401", err)
			}
		})
	})
}
