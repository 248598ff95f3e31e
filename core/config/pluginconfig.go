package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Bounds of a [plugins."<id>".config] table.
const (
	// MaxPluginConfigBytes bounds the table serialized as the JSON sent in ext/activate.
	MaxPluginConfigBytes = 16 << 10
	// MaxPluginConfigDepth bounds nesting; the config table itself is level 1 and every
	// nested table or array adds one.
	MaxPluginConfigDepth = 16
)

// ErrPluginConfig is matched (errors.Is) by every *PluginConfigError.
var ErrPluginConfig = errors.New("plugin config refused")

// PluginConfigError is why one plugin's config table was refused. It concerns that plugin
// only: its activation fails with this reason, other plugins are unaffected.
type PluginConfigError struct {
	PluginID string
	Key      string // dotted path inside the config table, "" for the table as a whole
	Reason   string
}

func (e *PluginConfigError) Error() string {
	loc := fmt.Sprintf("[plugins.%q.config]", e.PluginID)
	if e.Key != "" {
		loc += " " + e.Key
	}
	return loc + ": " + e.Reason
}

// Is makes every *PluginConfigError match ErrPluginConfig.
func (e *PluginConfigError) Is(target error) bool { return target == ErrPluginConfig }

// Plugin is one plugin's settings.
type Plugin struct {
	ID string
	// Config is the table as decoded (plain values: string, int64, float64, bool, []any,
	// map[string]any). Empty, never nil, when the table is absent; nil when refused.
	Config map[string]any
	// JSON is the exact config sent in ext/activate ("{}" when absent); nil when refused.
	JSON json.RawMessage
	// Keys lists the configured top-level keys, sorted; show them, never the values.
	Keys []string
	// Digest is the hex sha256 of JSON, or of the refusal reason when Err is set.
	Digest string
	// Err is set when the table was refused; activation must fail with it.
	Err *PluginConfigError
	// Isolation is the plugin's [plugins."<id>"] isolation, "" when unset (Config.Isolated
	// applies the default).
	Isolation string
	// Grants are its read and network grants (grants.go).
	Grants Grants
}

// Valid reports whether the plugin may be activated with this config.
func (p Plugin) Valid() bool { return p.Err == nil }

func newPlugin(id string, table map[string]any) Plugin {
	p := Plugin{ID: id}
	if table == nil {
		table = map[string]any{}
	}
	for k := range table {
		p.Keys = append(p.Keys, k)
	}
	sort.Strings(p.Keys)
	if perr := checkPluginConfig(id, table); perr != nil {
		return refused(p, perr)
	}
	data, err := encodeJSON(table)
	if err != nil {
		return refused(p, &PluginConfigError{PluginID: id, Reason: "cannot be encoded as JSON: " + err.Error()})
	}
	if len(data) > MaxPluginConfigBytes {
		return refused(p, &PluginConfigError{PluginID: id, Reason: fmt.Sprintf("is %d bytes once serialized, over the %d-byte (16 KiB) limit; move large data into a file the plugin reads from its data directory", len(data), MaxPluginConfigBytes)})
	}
	p.Config, p.JSON = table, data
	p.Digest = digest(data)
	return p
}

func refused(p Plugin, e *PluginConfigError) Plugin {
	p.Err = e
	p.Digest = digest([]byte("refused\x00" + e.Error()))
	return p
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// encodeJSON serializes v with sorted keys and no HTML escaping, without a trailing newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func checkPluginConfig(id string, table map[string]any) *PluginConfigError {
	if id == "" {
		return &PluginConfigError{PluginID: id, Reason: "the plugin id is empty; name the table after the plugin's id"}
	}
	if strings.HasPrefix(id, "host:") {
		return &PluginConfigError{PluginID: id, Reason: `plugin ids never start with "host:" (that prefix names builtin modules)`}
	}
	return walkValue(id, "", table, 1)
}

// walkValue checks v found at path, which sits at nesting level depth.
func walkValue(id, path string, v any, depth int) *PluginConfigError {
	fail := func(reason string) *PluginConfigError {
		return &PluginConfigError{PluginID: id, Key: path, Reason: reason}
	}
	switch x := v.(type) {
	case map[string]any:
		if depth > MaxPluginConfigDepth {
			return fail(fmt.Sprintf("nests deeper than %d levels; flatten the table", MaxPluginConfigDepth))
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := walkValue(id, joinKey(path, k), x[k], depth+1); err != nil {
				return err
			}
		}
	case []any:
		if depth > MaxPluginConfigDepth {
			return fail(fmt.Sprintf("nests deeper than %d levels; flatten the table", MaxPluginConfigDepth))
		}
		for i, e := range x {
			if err := walkValue(id, fmt.Sprintf("%s[%d]", path, i), e, depth+1); err != nil {
				return err
			}
		}
	case []map[string]any: // array of tables
		if depth > MaxPluginConfigDepth {
			return fail(fmt.Sprintf("nests deeper than %d levels; flatten the table", MaxPluginConfigDepth))
		}
		for i, e := range x {
			if err := walkValue(id, fmt.Sprintf("%s[%d]", path, i), e, depth+1); err != nil {
				return err
			}
		}
	case time.Time:
		return fail("is a date-time; plugin config takes plain values only, write it as a string")
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fail("is nan or inf, which JSON cannot carry; use a finite number or a string")
		}
	case string, int64, bool:
	default:
		return fail(fmt.Sprintf("has an unsupported value of type %T", v))
	}
	return nil
}

func joinKey(path, k string) string {
	if isBareKey(k) {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	q := fmt.Sprintf("%q", k)
	if path == "" {
		return q
	}
	return path + "." + q
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
