package ccplugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Where a Claude Code plugin keeps its parts, relative to its folder.
const (
	ManifestFile = ".claude-plugin/plugin.json"
	HooksFile    = "hooks/hooks.json"
	MCPFile      = ".mcp.json"
	CommandsDir  = "commands"
)

// Bounds of what is read.
const (
	MaxFileBytes = 256 << 10 // one manifest, hooks, MCP or command file
	MaxCommands  = 128
)

// MCPNotRun is what the review and `plugin show` say of each MCP server.
const MCPNotRun = "not run until reviewed and trusted: `cwx mcp review` names it"

// Error names the file at fault and says what to do.
type Error struct {
	File   string // relative to the plugin folder
	Reason string
}

func (e *Error) Error() string { return "Claude Code plugin: " + e.File + ": " + e.Reason }

// Plugin is what cwx read of a Claude Code plugin folder.
type Plugin struct {
	Manifest Manifest
	// Hooks are hooks/hooks.json's hooks cwx runs, HookNotes what of it is left out.
	Hooks     []config.HookEntry
	HookNotes []string
	HasHooks  bool // hooks/hooks.json exists
	Commands  []Command
	MCP       []MCPServer
	// NotRun are the plugin's parts cwx does not run, one sentence each.
	NotRun []string
}

// Manifest is .claude-plugin/plugin.json.
type Manifest struct {
	Name, Version, Description string
	// Ignored are the fields cwx does not read that would move or add components.
	Ignored []string
}

var nameRE = lazyre.New(`^[a-z][a-z0-9-]{0,63}$`)

// componentFields are plugin.json fields that put components elsewhere than the defaults.
var componentFields = []string{"agents", "commands", "hooks", "mcpServers", "outputStyles", "skills"}

// Is says whether dir is laid out as a Claude Code plugin (.claude-plugin/plugin.json).
func Is(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(ManifestFile)))
	return err == nil && st.Mode().IsRegular()
}

// ParseManifest reads .claude-plugin/plugin.json.
func ParseManifest(data []byte) (Manifest, error) {
	var raw map[string]json.RawMessage
	if err := decodeOne(data, &raw); err != nil || raw == nil {
		return Manifest{}, &Error{File: ManifestFile, Reason: fmt.Sprintf("not a JSON object (%v); write {\"name\": \"my-plugin\", \"version\": \"1.0.0\"}", orObject(err))}
	}
	var m Manifest
	for _, f := range []struct {
		key string
		to  *string
	}{{"name", &m.Name}, {"version", &m.Version}, {"description", &m.Description}} {
		v, ok := raw[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, f.to); err != nil {
			return Manifest{}, &Error{File: ManifestFile, Reason: fmt.Sprintf("field %s must be a string", f.key)}
		}
		if err := inert.Check(*f.to); err != nil {
			return Manifest{}, &Error{File: ManifestFile, Reason: fmt.Sprintf("field %s: %v", f.key, err)}
		}
	}
	if !nameRE().MatchString(m.Name) {
		return Manifest{}, &Error{File: ManifestFile, Reason: fmt.Sprintf("field name %q must be kebab-case (lowercase letters, digits and '-', starting with a letter, at most 64)", m.Name)}
	}
	for _, f := range componentFields {
		if _, ok := raw[f]; ok {
			m.Ignored = append(m.Ignored, f)
		}
	}
	return m, nil
}

func orObject(err error) error {
	if err == nil {
		return errors.New("null")
	}
	return err
}

// decodeOne decodes exactly one JSON value.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Read reads the Claude Code plugin in dir.
func Read(dir string) (*Plugin, error) {
	data, err := readFile(dir, ManifestFile)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(data)
	if err != nil {
		return nil, err
	}
	p := &Plugin{Manifest: m}
	for _, f := range m.Ignored {
		p.NotRun = append(p.NotRun, fmt.Sprintf("plugin.json field %s: not read by cwx (it reads the default places: hooks/hooks.json, commands/, .mcp.json)", f))
	}
	if data, err := readFile(dir, HooksFile); err == nil {
		p.HasHooks = true
		if p.Hooks, p.HookNotes, err = cmdhooks.ParseSettings(data); err != nil {
			return nil, &Error{File: HooksFile, Reason: err.Error() + `; write {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}`}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if p.Commands, p.NotRun, err = readCommands(dir, p.NotRun); err != nil {
		return nil, err
	}
	if data, err := readFile(dir, MCPFile); err == nil {
		if p.MCP, err = ParseMCP(data); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, c := range []struct{ dir, what string }{{"agents", "subagents"}, {"skills", "skills"}, {"output-styles", "output styles"}} {
		if st, err := os.Lstat(filepath.Join(dir, c.dir)); err == nil && st.IsDir() {
			p.NotRun = append(p.NotRun, fmt.Sprintf("%s/: %s are not run by cwx", c.dir, c.what))
		}
	}
	return p, nil
}

func readFile(dir, rel string) ([]byte, error) {
	data, err := boundedfile.Read(filepath.Join(dir, filepath.FromSlash(rel)), MaxFileBytes, false)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, fs.ErrNotExist):
		if rel == ManifestFile {
			return nil, &Error{File: rel, Reason: "missing; a Claude Code plugin needs it (with at least a name)"}
		}
		return nil, err
	case errors.Is(err, boundedfile.ErrTooLarge):
		return nil, &Error{File: rel, Reason: fmt.Sprintf("over %d bytes; make it smaller", MaxFileBytes)}
	}
	return nil, &Error{File: rel, Reason: fmt.Sprintf("cannot be read (%v); make it a regular file", err)}
}

func readCommands(dir string, notRun []string) ([]Command, []string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, CommandsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notRun, nil
	}
	if err != nil {
		return nil, nil, &Error{File: CommandsDir, Reason: err.Error()}
	}
	var out []Command
	for _, e := range ents {
		rel := CommandsDir + "/" + e.Name()
		switch {
		case e.IsDir():
			notRun = append(notRun, rel+"/: namespaced commands (a folder under commands/) are not read by cwx")
			continue
		case !strings.HasSuffix(e.Name(), ".md"):
			continue
		}
		if len(out) == MaxCommands {
			return nil, nil, &Error{File: CommandsDir, Reason: fmt.Sprintf("more than %d commands; cwx reads at most %d", MaxCommands, MaxCommands)}
		}
		data, err := readFile(dir, rel)
		if err != nil {
			return nil, nil, err
		}
		c, err := ParseCommand(rel, data)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out, notRun, nil
}
