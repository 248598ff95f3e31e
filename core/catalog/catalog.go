package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/core/registry"
)

// Version is the format of an entry file; a file of another version is not used.
const Version = 1

// Bounds of one entry file, above what one owner may register (core/registry's limits).
const (
	MaxFileBytes = 16 << 20
	maxTools     = 128
	maxCommands  = 64
	maxHooks     = 128
	maxSections  = 16
)

// Key is what an entry was built from. Two keys are equal only when every field is.
type Key struct {
	PluginID string `json:"plugin"`
	Closure  string `json:"closure_sha256"`
	Config   string `json:"config_digest"`
	Bundle   string `json:"bundle_sha256"`
}

// Tool is a registered tool as a listing shows it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Command is a registered command.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argument_hint,omitempty"`
}

// Hook is a registered pre-execute hook.
type Hook struct {
	Event       string `json:"event"`
	Description string `json:"description,omitempty"`
}

// Section is a registered prompt section.
type Section struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Entry is one plugin's registrations at its last successful activation under Key.
type Entry struct {
	Key      Key       `json:"key"`
	Tools    []Tool    `json:"tools"`
	Commands []Command `json:"commands"`
	Hooks    []Hook    `json:"hooks"`
	Sections []Section `json:"sections"`
}

// HasHooks reports whether the plugin registered a pre-execute hook: such a plugin is
// activated for every call, so that its hooks see it.
func (e Entry) HasHooks() bool { return len(e.Hooks) > 0 }

// HasTool reports whether the entry lists a tool named name (exactly).
func (e Entry) HasTool(name string) bool {
	return slices.ContainsFunc(e.Tools, func(t Tool) bool { return t.Name == name })
}

// HasCommand reports whether the entry lists a command named name.
func (e Entry) HasCommand(name string) bool {
	return slices.ContainsFunc(e.Commands, func(c Command) bool { return c.Name == name })
}

// Equal reports whether e and o hold the same key and registrations.
func (e Entry) Equal(o Entry) bool {
	a, err1 := json.Marshal(e.normal())
	b, err2 := json.Marshal(o.normal())
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// normal sorts the registrations so that their order does not matter.
func (e Entry) normal() Entry {
	e.Tools = slices.Clone(e.Tools)
	slices.SortStableFunc(e.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	e.Commands = slices.Clone(e.Commands)
	slices.SortStableFunc(e.Commands, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	e.Sections = slices.Clone(e.Sections)
	slices.SortStableFunc(e.Sections, func(a, b Section) int { return strings.Compare(a.ID, b.ID) })
	if e.Tools == nil {
		e.Tools = []Tool{}
	}
	if e.Commands == nil {
		e.Commands = []Command{}
	}
	if e.Hooks == nil {
		e.Hooks = []Hook{}
	}
	if e.Sections == nil {
		e.Sections = []Section{}
	}
	return e
}

// file is an entry file on disk.
type file struct {
	Version int `json:"version"`
	Entry
}

// Store is the catalog folder of one cwx home. It keeps no state in memory and is safe for
// concurrent use, also by several processes: each entry is replaced atomically.
type Store struct {
	dir string
	log hclog.Logger
}

// Open returns the catalog kept in dir ($CWX_HOME/catalog). It creates nothing until the
// first Put.
func Open(dir string, log hclog.Logger) *Store {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Store{dir: dir, log: log}
}

// Dir is the catalog folder.
func (s *Store) Dir() string { return s.dir }

// Path is the file of a plugin's entry.
func (s *Store) Path(pluginID string) string {
	return filepath.Join(s.dir, plugins.DiskName(pluginID)+".json")
}

// Lookup returns the entry of k.PluginID when it was built from exactly k. A missing file,
// an entry of another key (stale) or another version finds nothing; a corrupt file is
// logged, removed and finds nothing.
func (s *Store) Lookup(k Key) (Entry, bool) {
	e, err := s.read(k.PluginID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Entry{}, false
	case errors.Is(err, errStale):
		s.log.Debug("catalog entry not used", "plugin", k.PluginID, "reason", err)
		return Entry{}, false
	case err != nil:
		s.log.Warn("catalog entry is corrupt; it is removed and rebuilt at the plugin's next activation", "plugin", k.PluginID, "error", err)
		if rerr := os.Remove(s.Path(k.PluginID)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			s.log.Warn("cannot remove the corrupt catalog entry", "plugin", k.PluginID, "error", rerr)
		}
		return Entry{}, false
	}
	if e.Key != k {
		s.log.Debug("catalog entry is stale", "plugin", k.PluginID)
		return Entry{}, false
	}
	return e, true
}

var errStale = errors.New("written by another version of cwx")

// read reads and checks the entry file of id, whatever its key.
func (s *Store) read(id string) (Entry, error) {
	// a symlink, a FIFO (which would block the open), a device or a file over the bound is
	// corrupt: removed by Lookup and written again at the next activation
	data, err := boundedfile.Read(s.Path(id), MaxFileBytes, false)
	if be := (*boundedfile.Error)(nil); errors.As(err, &be) {
		return Entry{}, fmt.Errorf("%w: %v", errdefs.ErrCorrupt, err)
	}
	if err != nil {
		return Entry{}, err
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", errdefs.ErrCorrupt, err)
	}
	if v.Version != Version {
		return Entry{}, fmt.Errorf("%w (format %d, this one reads %d)", errStale, v.Version, Version)
	}
	var fl file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fl); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", errdefs.ErrCorrupt, err)
	}
	if dec.More() {
		return Entry{}, fmt.Errorf("%w: data after the entry", errdefs.ErrCorrupt)
	}
	if fl.Key.PluginID != id {
		return Entry{}, fmt.Errorf("%w: the file holds the entry of %q", errdefs.ErrCorrupt, fl.Key.PluginID)
	}
	if err := check(fl.Entry); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", errdefs.ErrCorrupt, err)
	}
	return fl.Entry, nil
}

// Put replaces the entry of e.Key.PluginID: a temporary file in the folder, written and
// fsynced, renamed over the entry, then the folder fsynced.
func (s *Store) Put(e Entry) error {
	if err := check(e); err != nil {
		return fmt.Errorf("catalog entry of %s: %w", e.Key.PluginID, err)
	}
	data, err := json.MarshalIndent(file{Version: Version, Entry: e.normal()}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create the catalog folder: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write the catalog entry of %s: %w", e.Key.PluginID, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, s.Path(e.Key.PluginID)); err != nil {
		return fmt.Errorf("write the catalog entry of %s: %w", e.Key.PluginID, err)
	}
	ok = true
	syncDir(s.dir)
	return nil
}

// Remove drops the entry of id, if any.
func (s *Store) Remove(id string) error {
	if err := os.Remove(s.Path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// The name grammars of core/registry (ARCHITECTURE.md, “Registry rules”).
var (
	toolNameRE    = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	commandNameRE = lazyre.New(`^[a-z][a-z0-9_-]{0,63}$`)
)

// check refuses an entry that no admitted activation could have produced: a name off its
// grammar, text that package inert refuses, a schema that is not a JSON object, more
// registrations than one owner may hold.
func check(e Entry) error {
	k := e.Key
	if k.PluginID == "" || k.Closure == "" || k.Bundle == "" {
		return errors.New("the key is incomplete")
	}
	if len(e.Tools) > maxTools || len(e.Commands) > maxCommands || len(e.Hooks) > maxHooks || len(e.Sections) > maxSections {
		return errors.New("more registrations than one plugin may hold")
	}
	for _, t := range e.Tools {
		if !toolNameRE().MatchString(t.Name) {
			return fmt.Errorf("tool name %q", t.Name)
		}
		if err := inert.Check(t.Description); err != nil {
			return fmt.Errorf("tool %s: %v", t.Name, err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t.InputSchema, &obj); err != nil || obj == nil {
			return fmt.Errorf("tool %s: the input schema is not a JSON object", t.Name)
		}
	}
	for _, c := range e.Commands {
		if !commandNameRE().MatchString(c.Name) {
			return fmt.Errorf("command name %q", c.Name)
		}
		if err := errors.Join(inert.Check(c.Description), inert.Check(c.ArgumentHint)); err != nil {
			return fmt.Errorf("command %s: %v", c.Name, err)
		}
	}
	for _, h := range e.Hooks {
		if h.Event != registry.HookEvent {
			return fmt.Errorf("hook event %q", h.Event)
		}
		if err := inert.Check(h.Description); err != nil {
			return fmt.Errorf("hook: %v", err)
		}
	}
	for _, s := range e.Sections {
		if !commandNameRE().MatchString(s.ID) {
			return fmt.Errorf("prompt section id %q", s.ID)
		}
		if err := inert.Check(s.Text); err != nil {
			return fmt.Errorf("prompt section %s: %v", s.ID, err)
		}
	}
	return nil
}
