package plugins

import (
	"path/filepath"
	"sort"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/config"
)

// Desired is a plugin that should be live: enabled, trusted, with a receipt that holds for
// the current policy. Everything a Manager needs to activate it is here.
type Desired struct {
	ID       string
	Version  string
	Closure  string // hex sha256 of the staged closure (the approval key uses it)
	StageDir string // read-only staged copy
	// Entries are the entry modules with absolute paths and the sha256 recorded at install.
	Entries []DesiredEntry
	DataDir string // where the plugin may write; call Layout.EnsureDataDir before activation
	// Config is the plugin's [plugins."<id>".config]: Config.JSON is sent as `config`,
	// Config.Digest is recorded on the owner; when Config.Err is set activation must fail
	// with it before any host is asked.
	Config config.Plugin
	// Record is the full state record (diagnostics included), for display.
	Record *Record
}

// DesiredEntry is one entry module of a desired plugin.
type DesiredEntry struct {
	Path   string // absolute path inside StageDir
	Rel    string // slash-separated path relative to StageDir
	SHA256 string
}

// Blocked is an enabled plugin that is not desired, with the reason (a *ReceiptError for
// receipts: errors.Is with ErrNotTrusted, ErrContentChanged or ErrCapabilitiesChanged).
type Blocked struct {
	ID  string
	Err error
}

// Desired reads the state once and splits the enabled plugins into those that should be
// live and those blocked by their receipt. It does not hash anything: call VerifyClosure
// before each activation. cfg may be nil (then every plugin gets the empty config).
func (s *Store) Desired(cfg *config.Config) ([]Desired, []Blocked, uint64, error) {
	st, err := s.State()
	if err != nil {
		return nil, nil, 0, err
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	var out []Desired
	var blocked []Blocked
	for _, r := range sortedRecords(st) {
		if !r.Enabled {
			continue
		}
		if r.Kind == KindClaudeCode {
			continue // no host runs it: the core reads it (ClaudeCode)
		}
		if err := s.CheckReceipt(r); err != nil {
			blocked = append(blocked, Blocked{ID: r.ID, Err: err})
			continue
		}
		out = append(out, s.desired(r, cfg.Plugin(r.ID)))
	}
	return out, blocked, st.Generation, nil
}

func (s *Store) desired(r *Record, pc config.Plugin) Desired {
	dir := s.layout.StageDir(r.ID, r.Closure)
	d := Desired{ID: r.ID, Version: r.Version, Closure: r.Closure, StageDir: dir, DataDir: s.layout.DataDir(r.ID), Config: pc, Record: r}
	for _, e := range r.Entries {
		d.Entries = append(d.Entries, DesiredEntry{Path: filepath.Join(dir, filepath.FromSlash(e.Path)), Rel: e.Path, SHA256: e.SHA256})
	}
	return d
}

// ClaudeDesired is a Claude Code plugin that is enabled and trusted, its staged copy
// verified: the core runs its hooks (in the builtin hooks module, CLAUDE_PLUGIN_ROOT its
// Root) and its commands.
type ClaudeDesired struct {
	ID     string
	Root   string // the read-only staged copy
	Plugin *ccplugin.Plugin
}

// ClaudeCode returns the Claude Code plugins that should run, by id, and those enabled
// whose receipt, bytes or files do not hold, with the reason. Each staged copy is verified
// (VerifyClosure) before it is read.
func (s *Store) ClaudeCode() ([]ClaudeDesired, []Blocked, error) {
	st, err := s.State()
	if err != nil {
		return nil, nil, err
	}
	var out []ClaudeDesired
	var blocked []Blocked
	for _, r := range sortedRecords(st) {
		if !r.Enabled || r.Kind != KindClaudeCode {
			continue
		}
		err := s.CheckReceipt(r)
		if err == nil {
			err = s.VerifyClosure(r)
		}
		var p *ccplugin.Plugin
		if err == nil {
			p, err = ccplugin.Read(s.layout.StageDir(r.ID, r.Closure))
		}
		if err != nil {
			blocked = append(blocked, Blocked{ID: r.ID, Err: err})
			continue
		}
		out = append(out, ClaudeDesired{ID: r.ID, Root: s.layout.StageDir(r.ID, r.Closure), Plugin: p})
	}
	return out, blocked, nil
}

// sortedRecords returns the records of st ordered by id.
func sortedRecords(st *State) []*Record {
	out := make([]*Record, 0, len(st.Plugins))
	for _, r := range st.Plugins {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
