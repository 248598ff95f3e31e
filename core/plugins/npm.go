package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// esmConditions are the export conditions an ESM import by Node or Bun matches.
var esmConditions = map[string]bool{"import": true, "node": true, "default": true, "module-sync": true}

func parsePackageJSON(file string, data []byte) (*Manifest, error) {
	obj, err := decodeObject(file, data)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Kind: KindPackageJSON, File: "package.json"}
	if m.ID, err = stringField(file, obj, "name", true); err != nil {
		return nil, err
	}
	if len(m.ID) > MaxIDLength || !npmNameRE().MatchString(m.ID) {
		return nil, &ManifestError{File: file, Field: "name", Reason: fmt.Sprintf("%q is not a valid npm package name", m.ID)}
	}
	if m.Version, err = stringField(file, obj, "version", true); err != nil {
		return nil, err
	}
	if m.Description, err = stringField(file, obj, "description", false); err != nil {
		return nil, err
	}
	if m.Notes, err = checkDSHField(file, obj); err != nil {
		return nil, err
	}
	if err := readDeps(file, obj, m); err != nil {
		return nil, err
	}
	entry, field, err := packageEntry(file, obj)
	if err != nil {
		return nil, err
	}
	c, cerr := cleanEntry(entry)
	if cerr != nil {
		return nil, &ManifestError{File: file, Field: field, Reason: fmt.Sprintf("entry %q %s", entry, cerr)}
	}
	m.Entries, m.entryField = []string{c}, field
	if m.Requests, err = readGrantRequests(file, obj); err != nil {
		return nil, err
	}
	return m, nil
}

// checkDSHField refuses DSH bundle packages, which are imported (core/dshbundle), not
// installed, and notes a DSH client UI, which cwx ignores.
func checkDSHField(file string, obj map[string]json.RawMessage) ([]string, error) {
	raw, ok := obj["dsh"]
	if !ok {
		return nil, nil
	}
	var dsh map[string]json.RawMessage
	if err := json.Unmarshal(raw, &dsh); err != nil {
		return nil, &ManifestError{File: file, Field: "dsh", Reason: "must be an object"}
	}
	if b, ok := dsh["bundle"]; ok {
		var bundle map[string]json.RawMessage
		if json.Unmarshal(b, &bundle) == nil {
			if _, ok := bundle["patch"]; ok {
				return nil, &ManifestError{File: file, Field: "dsh.bundle.patch", Reason: "this is a DSH bundle package (Cordis patch YAML), not a plugin: `cwx plugin import dsh` previews its composition and installs the plugins it carries"}
			}
		}
	}
	var notes []string
	if _, ok := dsh["client"]; ok {
		notes = append(notes, "its DSH client UI (dsh.client) is not supported and is ignored; only the host entry runs")
	}
	return notes, nil
}

func readDeps(file string, obj map[string]json.RawMessage, m *Manifest) error {
	for _, d := range []struct {
		field string
		dst   *map[string]string
	}{{"dependencies", &m.Dependencies}, {"peerDependencies", &m.PeerDependencies}, {"optionalDependencies", &m.OptionalDependencies}} {
		raw, ok := obj[d.field]
		if !ok || string(raw) == "null" {
			continue
		}
		if err := json.Unmarshal(raw, d.dst); err != nil {
			return &ManifestError{File: file, Field: d.field, Reason: "must be an object of package names to version ranges"}
		}
	}
	raw, ok := obj["scripts"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var scripts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &scripts); err != nil {
		return &ManifestError{File: file, Field: "scripts", Reason: "must be an object"}
	}
	for _, s := range InstallScripts {
		if _, ok := scripts[s]; ok {
			m.InstallScripts = append(m.InstallScripts, s)
		}
	}
	return nil
}

// mergePackageDeps reads scripts and dependencies from a package.json beside plugin.json.
func mergePackageDeps(dir string, m *Manifest) error {
	pk := filepath.Join(dir, "package.json")
	data, err := readSmall(pk)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &ManifestError{File: pk, Reason: err.Error()}
	}
	obj, err := decodeObject(pk, data)
	if err != nil {
		return err
	}
	return readDeps(pk, obj, m)
}

// packageEntry resolves the package's "." export for an ESM import, else main, else index.js.
func packageEntry(file string, obj map[string]json.RawMessage) (string, string, error) {
	if raw, ok := obj["exports"]; ok && string(raw) != "null" {
		target, err := resolveExports(raw)
		if err != nil {
			return "", "", &ManifestError{File: file, Field: "exports", Reason: err.Error()}
		}
		return target, "exports", nil
	}
	main, err := stringField(file, obj, "main", false)
	if err != nil {
		return "", "", err
	}
	if main != "" {
		return main, "main", nil
	}
	return "index.js", "main", nil
}

// resolveExports finds the target of the "." subpath for an ESM import.
func resolveExports(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		keys, vals, err := orderedObject(raw)
		if err != nil {
			return "", err
		}
		subpaths := len(keys) > 0 && len(keys[0]) > 0 && keys[0][0] == '.'
		if subpaths {
			for i, k := range keys {
				if k == "." {
					return resolveCondition(vals[i], 0)
				}
			}
			return "", errors.New(`has no "." export, so the package has no entry to load`)
		}
	}
	return resolveCondition(raw, 0)
}

// resolveCondition follows a conditional export target, first matching condition first.
func resolveCondition(raw json.RawMessage, depth int) (string, error) {
	if depth > 8 {
		return "", errors.New("nests conditions too deeply")
	}
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	if len(raw) > 0 && raw[0] == '[' {
		var alts []json.RawMessage
		if err := json.Unmarshal(raw, &alts); err != nil {
			return "", err
		}
		for _, a := range alts {
			if t, err := resolveCondition(a, depth+1); err == nil {
				return t, nil
			}
		}
		return "", errors.New("no alternative resolves")
	}
	keys, vals, err := orderedObject(raw)
	if err != nil {
		return "", errors.New("must be a path, a list or an object of conditions")
	}
	for i, k := range keys {
		if esmConditions[k] {
			if t, err := resolveCondition(vals[i], depth+1); err == nil {
				return t, nil
			}
		}
	}
	names := append([]string(nil), keys...)
	sort.Strings(names)
	return "", fmt.Errorf("has no condition an ESM import matches (import, node or default); found %v", names)
}

// orderedObject decodes a JSON object keeping its key order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}
