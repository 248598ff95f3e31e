package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// StateVersion is the schema version of state.json.
const StateVersion = 1

// DiagnosticsRing bounds the diagnostics kept per plugin; `cwx plugin show` prints the last
// DiagnosticsShown of them.
const (
	DiagnosticsRing  = 64
	DiagnosticsShown = 20
)

// State is the content of $CWX_HOME/state.json.
type State struct {
	Version int `json:"version"`
	// Generation increases on every change of what is desired (install, trust, enable,
	// disable, untrust, remove); diagnostics do not change it. Long-lived processes poll it.
	Generation uint64             `json:"generation"`
	Plugins    map[string]*Record `json:"plugins"`
}

// Record is one installed plugin.
type Record struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	Kind        string `json:"kind"`   // KindPluginJSON or KindPackageJSON
	Source      string `json:"source"` // the folder or tarball it was installed from, or npm:<name>@<version>
	// Origin is where the bytes came from, with the tarball's integrity; nil for a record
	// written before origins were kept (Source then says the folder or tarball).
	Origin *Origin `json:"origin,omitempty"`
	// Pending is an update staged and not yet trusted (update.go); the other fields stay
	// the running version's until it is.
	Pending     *Pending  `json:"pending,omitempty"`
	Closure     string    `json:"closure_sha256"`
	Files       int       `json:"files"`
	Bytes       int64     `json:"bytes"`
	Entries     []Entry   `json:"entries"`
	InstalledAt time.Time `json:"installed_at"`
	Enabled     bool      `json:"enabled"`
	// Trust is the receipt written by `cwx plugin trust`; nil when untrusted.
	Trust *Receipt `json:"trust,omitempty"`
	// FirstTrustedAt is when the id was first trusted. Trusting again (after an update, or
	// after untrust) keeps it; it ranks plugins that contend for a name (FirstTrust).
	FirstTrustedAt time.Time `json:"first_trusted_at,omitzero"`
	// Claims are the names the plugin registered at its last successful activation; nil
	// before its first one (ARCHITECTURE.md, “Registry rules”).
	Claims      *Claims      `json:"claims,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// Claims are the tool and command names a plugin holds, as it registered them.
type Claims struct {
	Tools    []string `json:"tools"`
	Commands []string `json:"commands"`
}

// FirstTrust is when r was first trusted: FirstTrustedAt, or for a record written before
// it was kept, its receipt's time, or else its install time.
func (r *Record) FirstTrust() time.Time {
	switch {
	case !r.FirstTrustedAt.IsZero():
		return r.FirstTrustedAt
	case r.Trust != nil:
		return r.Trust.TrustedAt
	}
	return r.InstalledAt
}

// SetClaims records the names id registered at a successful activation. It does not
// change the generation, and writes nothing when the claims are unchanged.
func (s *Store) SetClaims(id string, tools, commands []string) error {
	c := &Claims{Tools: slices.Clone(tools), Commands: slices.Clone(commands)}
	if c.Tools == nil {
		c.Tools = []string{}
	}
	if c.Commands == nil {
		c.Commands = []string{}
	}
	return s.withRecord(id, func(r *Record) (bool, error) {
		if r.Claims != nil && slices.Equal(r.Claims.Tools, c.Tools) && slices.Equal(r.Claims.Commands, c.Commands) {
			return false, errNoChange
		}
		r.Claims = c
		return false, nil
	})
}

// Entry is one host entry module of a staged plugin.
type Entry struct {
	Path   string `json:"path"` // slash-separated, relative to the staged root
	SHA256 string `json:"sha256"`
}

// Receipt binds trust to the reviewed bytes and the activation policy.
type Receipt struct {
	Closure string `json:"closure_sha256"`
	Policy  string `json:"policy_version"`
	// Compat is the sha256 of the compatibility table the plugin was trusted under and
	// Services what it said of each service the entries inject (the providing group, "" for
	// not provided; key "*" when an entry's inject could not be read). A later table keeps
	// the receipt unless one of these services changed status. Both are empty on a receipt
	// written before the table: it is judged as written under the first provided set.
	Compat    string            `json:"compat_sha256,omitempty"`
	Services  map[string]string `json:"services,omitempty"`
	TrustedAt time.Time         `json:"trusted_at"`
	// DevPID and DevSession are set on a dev receipt (`cwx plugin dev`): the receipt holds
	// only while the session holds the flock its token names (DevSession), and the session
	// drops it when it ends. DevPID is the session's process, for people to read; a live
	// process with that pid proves nothing.
	DevPID     int    `json:"dev_pid,omitempty"`
	DevSession string `json:"dev_session,omitempty"`
}

// IsDev reports whether r is a dev receipt.
func (r *Receipt) IsDev() bool { return r.DevPID != 0 || r.DevSession != "" }

// Diagnostic is one entry of a plugin's diagnostics ring: an activation failure, a fault,
// a refused registration, a receipt that failed.
type Diagnostic struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"` // e.g. "activation_failed", "faulted", "refused", "receipt", "config"
	Message string    `json:"message"`
}

// ErrCorruptState is matched (errors.Is) by a *CorruptStateError, as is the kind
// errdefs.ErrCorrupt.
var ErrCorruptState = errdefs.New(errdefs.ErrCorrupt, "corrupt state file")

// CorruptStateError reports a state file that cannot be read. cwx never resets it.
type CorruptStateError struct {
	Path string
	Err  error
}

func (e *CorruptStateError) Error() string {
	return fmt.Sprintf("state file %s is corrupt (%v); cwx will not overwrite it: repair it, or move it away to start over (installed plugins then need installing again)", e.Path, e.Err)
}

func (e *CorruptStateError) Unwrap() error { return e.Err }

// Is makes a *CorruptStateError match ErrCorruptState.
func (e *CorruptStateError) Is(target error) bool {
	return target == ErrCorruptState || target == errdefs.ErrCorrupt
}

// MaxStateBytes bounds state.json. A file over it is corrupt (it is not read), and a write
// that would exceed it fails instead of leaving a file cwx could not read back. Each record is
// small (a diagnostic's message is cut at MaxDiagnosticBytes), so only a hostile or broken
// file comes near it.
const MaxStateBytes = 16 << 20

// MaxDiagnosticBytes bounds the message of one diagnostic; a longer one is cut.
const MaxDiagnosticBytes = 4 << 10

// readState reads the state file; a missing file is an empty state. A file that is not a
// regular file (a FIFO, a device, a symlink), is over MaxStateBytes or does not decode to a
// state cwx wrote is a *CorruptStateError naming it; it is never reset.
func readState(p string) (*State, error) {
	data, err := boundedfile.Read(p, MaxStateBytes, false)
	if errors.Is(err, os.ErrNotExist) {
		return &State{Version: StateVersion, Plugins: map[string]*Record{}}, nil
	}
	var be *boundedfile.Error
	if errors.As(err, &be) {
		return nil, &CorruptStateError{Path: p, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return decodeState(p, data)
}

func decodeState(p string, data []byte) (*State, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, &CorruptStateError{Path: p, Err: err}
	}
	if dec.More() {
		return nil, &CorruptStateError{Path: p, Err: errors.New("data after the JSON object")}
	}
	if st.Version != StateVersion {
		return nil, &CorruptStateError{Path: p, Err: fmt.Errorf("schema version %d, this cwx reads %d", st.Version, StateVersion)}
	}
	if st.Plugins == nil {
		st.Plugins = map[string]*Record{}
	}
	for id, r := range st.Plugins {
		if r == nil || r.ID != id {
			return nil, &CorruptStateError{Path: p, Err: fmt.Errorf("plugin entry %q does not carry its own id", id)}
		}
		if err := r.check(); err != nil {
			return nil, &CorruptStateError{Path: p, Err: fmt.Errorf("plugin entry %q: %w", id, err)}
		}
	}
	return &st, nil
}

// check refuses a record cwx could not have written, whose fields would otherwise lead the
// core's paths or decisions astray: an id install refuses, a closure hash that is not one
// (it names the staged folder), an entry path that leaves the staged copy, a receipt whose
// hash or dev session token is malformed.
func (r *Record) check() error {
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if !isSHA256(r.Closure) {
		return fmt.Errorf("closure_sha256 %q is not a sha256 in hex", r.Closure)
	}
	switch r.Kind {
	case KindPluginJSON, KindPackageJSON:
	case KindClaudeCode: // hooks and commands, no host code
		if len(r.Entries) != 0 {
			return fmt.Errorf("a Claude Code plugin has no entries, this record has %d", len(r.Entries))
		}
	default:
		return fmt.Errorf("kind %q is not %q, %q or %q", r.Kind, KindPluginJSON, KindPackageJSON, KindClaudeCode)
	}
	if r.Kind != KindClaudeCode && (len(r.Entries) == 0 || len(r.Entries) > MaxEntries) {
		return fmt.Errorf("%d entries; a plugin has 1 to %d", len(r.Entries), MaxEntries)
	}
	for _, e := range r.Entries {
		if c := path.Clean(e.Path); c != e.Path || path.IsAbs(c) || c == "." || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsAny(c, "\\\x00") {
			return fmt.Errorf("entry path %q does not stay inside the staged copy", e.Path)
		}
		if !isSHA256(e.SHA256) {
			return fmt.Errorf("entry %s: sha256 %q is not a sha256 in hex", e.Path, e.SHA256)
		}
	}
	if o := r.Origin; o != nil {
		switch o.Type {
		case OriginNpm, OriginTarball, OriginFolder, OriginMarketplace:
		default:
			return fmt.Errorf("origin type %q is not %q, %q, %q or %q", o.Type, OriginNpm, OriginTarball, OriginFolder, OriginMarketplace)
		}
	}
	if p := r.Pending; p != nil && !isSHA256(p.Closure) {
		return fmt.Errorf("pending: closure_sha256 %q is not a sha256 in hex", p.Closure)
	}
	if t := r.Trust; t != nil {
		if !isSHA256(t.Closure) {
			return fmt.Errorf("trust: closure_sha256 %q is not a sha256 in hex", t.Closure)
		}
		if t.DevPID < 0 || t.DevSession != "" && !validDevToken(t.DevSession) {
			return fmt.Errorf("trust: dev session %q (pid %d) is not one cwx plugin dev makes", t.DevSession, t.DevPID)
		}
	}
	return nil
}

func isSHA256(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// writeState replaces the state file atomically: a temporary file in the same directory,
// fsync, rename over the old file, fsync of the directory.
func writeState(p string, st *State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if len(data) > MaxStateBytes {
		return fmt.Errorf("write state: %d bytes, over the %d-byte limit of %s; remove plugins you no longer use", len(data), MaxStateBytes, p)
	}
	return writeAtomic(p, data)
}

// writeAtomic replaces the file at p (0600) with data: a temporary file in the same
// directory, fsync, rename over the old file, fsync of the directory.
func writeAtomic(p string, data []byte) error {
	what := "write " + filepath.Base(p)
	dir := filepath.Dir(p)
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// fileLock is an advisory lock (flock) on a lock file.
type fileLock struct{ f *os.File }

// lockFile takes an exclusive flock on p, creating it. It blocks until the lock is free.
func lockFile(p string) (*fileLock, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", p, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	return &fileLock{f: f}, nil
}

func (l *fileLock) unlock() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
}

// appendDiagnostic adds d to r's ring, dropping the oldest beyond DiagnosticsRing.
func (r *Record) appendDiagnostic(d Diagnostic) {
	if len(d.Message) > MaxDiagnosticBytes {
		d.Message = strings.ToValidUTF8(d.Message[:MaxDiagnosticBytes], "") + "…"
	}
	r.Diagnostics = append(r.Diagnostics, d)
	if n := len(r.Diagnostics); n > DiagnosticsRing {
		r.Diagnostics = append([]Diagnostic(nil), r.Diagnostics[n-DiagnosticsRing:]...)
	}
}
