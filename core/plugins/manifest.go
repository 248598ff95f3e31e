package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cwx-dev/cwx/core/ccplugin"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Manifest kinds.
const (
	KindPluginJSON  = "plugin.json"  // a cwx/Codewhale plugin folder
	KindPackageJSON = "package.json" // an npm package whose entry is a Cordis plugin
	// KindClaudeCode is a Claude Code plugin folder (.claude-plugin/plugin.json): hooks and
	// commands the core runs, no host code (package ccplugin).
	KindClaudeCode = "claude-code"
)

// MaxEntries bounds the native entries of one plugin.
const MaxEntries = 64

// InstallScripts are the npm lifecycle scripts that would run code at install; a package
// declaring any of them is refused (cwx never runs install scripts).
var InstallScripts = []string{"preinstall", "install", "postinstall", "prepare"}

var (
	pluginNameRE = lazyre.New(`^[a-z][a-z0-9-]{0,63}$`)
	npmNameRE    = lazyre.New(`^(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*$`)
)

// Manifest is what cwx reads from a plugin's plugin.json or package.json.
type Manifest struct {
	Kind        string   // KindPluginJSON or KindPackageJSON
	File        string   // the manifest file, relative to the package root
	ID          string   // plugin id: the manifest name or the npm package name, verbatim
	Version     string   // as declared
	Description string   // as declared, may be empty
	Entries     []string // host entry modules, slash-separated paths relative to the root, deduplicated
	// InstallScripts lists the npm install-time scripts the package declares (refused at install).
	InstallScripts []string
	// Dependencies, PeerDependencies and OptionalDependencies are package.json's maps (name → range).
	Dependencies         map[string]string
	PeerDependencies     map[string]string
	OptionalDependencies map[string]string

	// Notes are things the review should say about parts of the package cwx ignores.
	Notes []string
	// Requests are the grants it asks for (cwx.grants), shown in review, granted by config.toml.
	Requests *GrantRequests `json:",omitempty"`
	// Claude is what cwx read of a Claude Code plugin (KindClaudeCode), nil otherwise.
	Claude *ccplugin.Plugin `json:",omitempty"`

	entryField string // the manifest field the entries came from, for messages
}

// ErrManifest is matched (errors.Is) by every *ManifestError.
var ErrManifest = errors.New("invalid plugin manifest")

// ManifestError names the manifest file and the field at fault.
type ManifestError struct {
	File   string // path of the manifest as given to the reader
	Field  string // JSON field, dotted; "" for the file as a whole
	Reason string
}

func (e *ManifestError) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Reason
	}
	return fmt.Sprintf("%s: field %s: %s", e.File, e.Field, e.Reason)
}

// Is makes every *ManifestError match ErrManifest.
func (e *ManifestError) Is(target error) bool { return target == ErrManifest }

// ReadManifest reads the manifest of the package rooted at dir: plugin.json when present
// (package.json beside it then only contributes scripts and dependencies), else package.json.
// Entry files must exist inside the package as regular files.
func ReadManifest(dir string) (*Manifest, error) {
	pj := filepath.Join(dir, "plugin.json")
	if data, err := readSmall(pj); err == nil {
		m, err := parsePluginJSON(pj, data)
		if err != nil {
			return nil, err
		}
		if err := mergePackageDeps(dir, m); err != nil {
			return nil, err
		}
		return m, checkEntriesExist(dir, pj, m)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, &ManifestError{File: pj, Reason: err.Error()}
	}
	if ccplugin.Is(dir) {
		return readClaudeCode(dir)
	}
	pk := filepath.Join(dir, "package.json")
	data, err := readSmall(pk)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &ManifestError{File: dir, Reason: "no plugin.json or package.json at the package root; a plugin needs one of them"}
	}
	if err != nil {
		return nil, &ManifestError{File: pk, Reason: err.Error()}
	}
	m, err := parsePackageJSON(pk, data)
	if err != nil {
		return nil, err
	}
	return m, checkEntriesExist(dir, pk, m)
}

// readClaudeCode reads a Claude Code plugin folder: its hooks, commands and MCP servers
// are what the review lists; it has no entries (no host code runs).
func readClaudeCode(dir string) (*Manifest, error) {
	p, err := ccplugin.Read(dir)
	if err != nil {
		var ce *ccplugin.Error
		if errors.As(err, &ce) {
			return nil, &ManifestError{File: filepath.Join(dir, filepath.FromSlash(ce.File)), Reason: ce.Reason}
		}
		return nil, &ManifestError{File: dir, Reason: err.Error()}
	}
	m := &Manifest{Kind: KindClaudeCode, File: ccplugin.ManifestFile, ID: p.Manifest.Name, Version: p.Manifest.Version,
		Description: p.Manifest.Description, Claude: p}
	if m.Version == "" {
		m.Version = "0.0.0"
		m.Notes = append(m.Notes, ccplugin.ManifestFile+" gives no version; it is recorded as 0.0.0")
	}
	return m, nil
}

// maxManifestBytes bounds a manifest file.
const maxManifestBytes = 1 << 20

func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxManifestBytes)
	}
	return data, nil
}

// decodeObject decodes a JSON object into raw fields, rejecting trailing data.
func decodeObject(file string, data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return nil, &ManifestError{File: file, Reason: "not a JSON object: " + err.Error()}
	}
	if obj == nil {
		return nil, &ManifestError{File: file, Reason: "not a JSON object"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ManifestError{File: file, Reason: "data after the JSON object"}
	}
	return obj, nil
}

func stringField(file string, obj map[string]json.RawMessage, field string, required bool) (string, error) {
	raw, ok := obj[field]
	if !ok || string(raw) == "null" {
		if required {
			return "", &ManifestError{File: file, Field: field, Reason: "is required"}
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &ManifestError{File: file, Field: field, Reason: "must be a string"}
	}
	if err := inert.Check(s); err != nil { // shown in reviews and listings: plugin text stays inert
		return "", &ManifestError{File: file, Field: field, Reason: err.Error()}
	}
	if required && strings.TrimSpace(s) == "" {
		return "", &ManifestError{File: file, Field: field, Reason: "must not be empty"}
	}
	return s, nil
}

func parsePluginJSON(file string, data []byte) (*Manifest, error) {
	obj, err := decodeObject(file, data)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Kind: KindPluginJSON, File: "plugin.json"}
	if m.ID, err = stringField(file, obj, "name", true); err != nil {
		return nil, err
	}
	if !pluginNameRE().MatchString(m.ID) {
		return nil, &ManifestError{File: file, Field: "name", Reason: fmt.Sprintf("%q must match ^[a-z][a-z0-9-]{0,63}$ (lowercase letters, digits and '-', starting with a letter)", m.ID)}
	}
	if m.Version, err = stringField(file, obj, "version", true); err != nil {
		return nil, err
	}
	if m.Description, err = stringField(file, obj, "description", false); err != nil {
		return nil, err
	}
	native, field, err := nativeField(file, obj)
	if err != nil {
		return nil, err
	}
	if native == nil {
		return nil, &ManifestError{File: file, Field: "native", Reason: "is required: name the plugin's host entry module (a .mjs, .js, .mts or .ts file)"}
	}
	m.entryField = field
	if m.Entries, err = parseNative(file, field, native); err != nil {
		return nil, err
	}
	if m.Requests, err = readGrantRequests(file, obj); err != nil {
		return nil, err
	}
	return m, nil
}

// nativeField finds `native` or `extensions."net.codewhale".native`; declaring both is an error.
func nativeField(file string, obj map[string]json.RawMessage) (json.RawMessage, string, error) {
	top, hasTop := obj["native"]
	ext, hasExt := obj["extensions"]
	if !hasExt {
		return top, "native", nil
	}
	var exts map[string]json.RawMessage
	if err := json.Unmarshal(ext, &exts); err != nil {
		return nil, "", &ManifestError{File: file, Field: "extensions", Reason: "must be an object"}
	}
	cw, ok := exts["net.codewhale"]
	if !ok {
		return top, "native", nil
	}
	var cwObj map[string]json.RawMessage
	if err := json.Unmarshal(cw, &cwObj); err != nil {
		return nil, "", &ManifestError{File: file, Field: `extensions."net.codewhale"`, Reason: "must be an object"}
	}
	n, ok := cwObj["native"]
	if !ok {
		return top, "native", nil
	}
	if hasTop {
		return nil, "", &ManifestError{File: file, Field: "native", Reason: `is declared twice (also as extensions."net.codewhale".native); keep one`}
	}
	return n, `extensions."net.codewhale".native`, nil
}

// parseNative accepts a path string, {path}, {paths: [...]} or a list of strings or {path}.
func parseNative(file, field string, raw json.RawMessage) ([]string, error) {
	bad := func(reason string) error { return &ManifestError{File: file, Field: field, Reason: reason} }
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return cleanEntries(file, field, []string{one})
	}
	var obj struct {
		Path  *string   `json:"path"`
		Paths *[]string `json:"paths"`
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			return nil, bad("must be a path, {\"path\": ...}, {\"paths\": [...]} or a list of paths: " + err.Error())
		}
		switch {
		case obj.Path != nil && obj.Paths == nil:
			return cleanEntries(file, field, []string{*obj.Path})
		case obj.Paths != nil && obj.Path == nil:
			return cleanEntries(file, field+".paths", *obj.Paths)
		default:
			return nil, bad(`must have exactly one of "path" or "paths"`)
		}
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, bad("must be a path, {\"path\": ...}, {\"paths\": [...]} or a list of paths")
	}
	paths := make([]string, 0, len(list))
	for i, item := range list {
		var s string
		if json.Unmarshal(item, &s) == nil {
			paths = append(paths, s)
			continue
		}
		var o struct {
			Path string `json:"path"`
		}
		dec := json.NewDecoder(bytes.NewReader(item))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil || o.Path == "" {
			return nil, &ManifestError{File: file, Field: fmt.Sprintf("%s[%d]", field, i), Reason: `must be a path or {"path": ...}`}
		}
		paths = append(paths, o.Path)
	}
	return cleanEntries(file, field, paths)
}

// cleanEntries validates entry paths and drops repeats (a path listed twice runs once).
func cleanEntries(file, field string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, &ManifestError{File: file, Field: field, Reason: "lists no entry"}
	}
	if len(paths) > MaxEntries {
		return nil, &ManifestError{File: file, Field: field, Reason: fmt.Sprintf("lists %d entries; at most %d are allowed", len(paths), MaxEntries)}
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		c, err := cleanEntry(p)
		if err != nil {
			return nil, &ManifestError{File: file, Field: field, Reason: fmt.Sprintf("entry %q %s", p, err)}
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func cleanEntry(p string) (string, error) {
	if p == "" {
		return "", errors.New("is empty")
	}
	if err := inert.Check(p); err != nil {
		return "", err
	}
	if strings.ContainsRune(p, '\\') || strings.ContainsRune(p, 0) {
		return "", errors.New("must use '/' separators")
	}
	if path.IsAbs(p) {
		return "", errors.New("must be a path inside the package, not an absolute path")
	}
	c := path.Clean(strings.TrimPrefix(p, "./"))
	if c == ".." || strings.HasPrefix(c, "../") || c == "." {
		return "", errors.New("leaves the package")
	}
	switch path.Ext(c) {
	case ".mjs", ".js", ".mts", ".ts":
	default:
		return "", errors.New("must end in .mjs, .js, .mts or .ts")
	}
	return c, nil
}

// checkEntriesExist requires every entry to be a regular file inside root.
func checkEntriesExist(root, file string, m *Manifest) error {
	for _, e := range m.Entries {
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(e)))
		if err != nil {
			return &ManifestError{File: file, Field: entryField(m), Reason: fmt.Sprintf("entry %q does not exist in the package", e)}
		}
		if !fi.Mode().IsRegular() {
			return &ManifestError{File: file, Field: entryField(m), Reason: fmt.Sprintf("entry %q is not a regular file", e)}
		}
	}
	return nil
}

func entryField(m *Manifest) string {
	if m.entryField != "" {
		return m.entryField
	}
	return "native"
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
