package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// Defaults of the [extension_host] table.
const (
	DefaultRuntime        = "node"
	DefaultApproval       = "ask"
	DefaultMemoryLimitMiB = 1024
	// MaxMemoryLimitMiB bounds memory_limit_mib (1 TiB); anything larger is a typo.
	MaxMemoryLimitMiB = 1 << 20
	// MinNodeMemoryLimitMiB and MinBunMemoryLimitMiB are the smallest memory_limit_mib each
	// runtime is allowed: measured, the host starts, activates a plugin and answers an 8 MiB
	// tool call under 224 MiB on Node and 352 MiB on Bun, and fails below; each is rounded
	// up. "auto" may pick either, so it needs Bun's.
	MinNodeMemoryLimitMiB = 256
	MinBunMemoryLimitMiB  = 384
	// DefaultSandbox is the plugin tier's sandbox mode (ARCHITECTURE.md, “Sandbox”).
	DefaultSandbox = SandboxPrefer
	// DefaultSandboxUID is the uid and gid the sandboxed runtime gets when cwx runs as root
	// and sandbox_uid is not set: in the range systemd documents as unused (above its
	// container ranges, below 2³¹), so no system service or container mapping owns it; not
	// 65534 (nobody), which other software shares.
	DefaultSandboxUID = 2_000_000_000
	// MaxSandboxUID is the largest sandbox_uid (4294967295 is the kernel's "no uid").
	MaxSandboxUID = 1<<32 - 2
	// MaxConfigBytes bounds config.toml; a larger file (or a FIFO, a device) is not read.
	MaxConfigBytes = 1 << 20
)

// The values of [extension_host] sandbox and sandbox_workspace.
const (
	SandboxRequired = "required" // the plugin tier starts only inside a verified bubblewrap sandbox
	SandboxPrefer   = "prefer"   // sandboxed when the probe succeeds, else unsandboxed and said so
	SandboxOff      = "off"      // never sandboxed

	WorkspaceNone = "none" // the workspace is not mounted in the sandbox (the default)
	WorkspaceRead = "read" // the workspace is bound read-only
)

// MinMemoryLimitMiB is the smallest memory_limit_mib allowed with runtime ("node", "bun" or
// "auto").
func MinMemoryLimitMiB(runtime string) int64 {
	if runtime == "node" {
		return MinNodeMemoryLimitMiB
	}
	return MinBunMemoryLimitMiB
}

// Config is a decoded config.toml.
type Config struct {
	// Path is the file it was read from; the file may not exist (then every value is a default).
	Path          string
	ExtensionHost ExtensionHost
	// Plugins maps a plugin id to its settings; only plugins with a [plugins."<id>"] table appear.
	Plugins map[string]Plugin
	// Hooks are the command hooks: [[hooks.<event>]] tables and hooks_file (hooks.go).
	Hooks Hooks
	// Install is the [install] table.
	Install Install
	// MCP maps a server name to its [mcp.servers.<name>] table (mcp.go).
	MCP map[string]MCPServer
	// MCPFiles are mcp_servers_file (one path or a list) made absolute (a relative path is
	// taken from the folder of config.toml): Claude Code .mcp.json and VS Code mcp.json files
	// whose servers run once reviewed and trusted (core/mcpfile, core/mcpclient).
	MCPFiles []string
}

// Install is the [install] table: where `cwx plugin install npm:<name>` resolves names.
type Install struct {
	// NpmRegistry is an http or https URL; "" uses the registry= line of ~/.npmrc, else
	// npm's documented default.
	NpmRegistry string `json:"npm_registry,omitempty"`
}

// ExtensionHost is the [extension_host] table with defaults applied.
type ExtensionHost struct {
	Runtime        string `json:"runtime"`          // "node", "bun" or "auto"
	Node           string `json:"node"`             // absolute path to node, "" to search PATH
	Bun            string `json:"bun"`              // absolute path to bun, "" to search PATH
	MemoryLimitMiB int64  `json:"memory_limit_mib"` // RLIMIT_DATA for the runtime, in MiB
	Approval       string `json:"approval"`         // "ask", "auto" or "deny"
	// Sandbox is "required", "prefer" or "off"; Bwrap an absolute path to bwrap ("" searches
	// PATH); DenyRead absolute paths masked inside the sandbox even within a mounted tree;
	// SandboxWorkspace "none" or "read".
	Sandbox          string   `json:"sandbox"`
	Bwrap            string   `json:"bwrap"`
	DenyRead         []string `json:"deny_read"`
	SandboxWorkspace string   `json:"sandbox_workspace"`
	// SandboxUID is the uid and gid the sandboxed runtime runs as when cwx runs as root.
	SandboxUID uint32 `json:"sandbox_uid"`
	// Isolation is the default of every plugin: IsolationShared (one host for the plugin
	// tier) or IsolationProcess (a host of its own per plugin).
	Isolation string `json:"isolation"`
	// Snapshot is SnapshotAuto (Node hosts start from a startup snapshot of the host, Bun hosts
	// run its bytecode cache, where one can be built and verified) or SnapshotOff
	// (ARCHITECTURE.md, “Host snapshot”).
	Snapshot string `json:"snapshot"`
}

// The values of [extension_host] snapshot.
const (
	SnapshotAuto = "auto" // hosts start from a verified snapshot (Node) or bytecode (Bun) when they can
	SnapshotOff  = "off"  // every host starts from the bundle
	// DefaultSnapshot is the snapshot mode when none is configured.
	DefaultSnapshot = SnapshotAuto
)

// MemoryLimitBytes returns MemoryLimitMiB in bytes.
func (e ExtensionHost) MemoryLimitBytes() uint64 { return uint64(e.MemoryLimitMiB) << 20 }

// Error is a config.toml problem that stops the whole file from loading.
type Error struct {
	Path   string // the file
	Key    string // the dotted key at fault, "" for a syntax error
	Line   int    // 1-based line when known, else 0
	Reason string // what is wrong and what to do
	Err    error  // underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "%s: ", e.Key)
	}
	b.WriteString(e.Reason)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("invalid config.toml")

// Is makes every *Error match ErrInvalid.
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// fileTOML mirrors config.toml for strict decoding.
type fileTOML struct {
	ExtensionHost hostTOML              `toml:"extension_host"`
	Plugins       map[string]pluginTOML `toml:"plugins"`
	HooksFile     any                   `toml:"hooks_file"`
	MCPFiles      any                   `toml:"mcp_servers_file"`
	Hooks         map[string][]hookTOML `toml:"hooks"`
	Install       installTOML           `toml:"install"`
	MCP           mcpTOML               `toml:"mcp"`
}

type installTOML struct {
	NpmRegistry *string `toml:"npm_registry"`
}

type hostTOML struct {
	Runtime        *string  `toml:"runtime"`
	Node           *string  `toml:"node"`
	Bun            *string  `toml:"bun"`
	MemoryLimitMiB *int64   `toml:"memory_limit_mib"`
	Approval       *string  `toml:"approval"`
	Sandbox        *string  `toml:"sandbox"`
	Bwrap          *string  `toml:"bwrap"`
	DenyRead       []string `toml:"deny_read"`
	SandboxWork    *string  `toml:"sandbox_workspace"`
	SandboxUID     *int64   `toml:"sandbox_uid"`
	Isolation      *string  `toml:"isolation"`
	Snapshot       *string  `toml:"snapshot"`
}

type pluginTOML struct {
	Config         map[string]any `toml:"config"`
	Isolation      *string        `toml:"isolation"`
	Read           []string       `toml:"read"`
	Network        []string       `toml:"network"`
	NetworkPrivate []string       `toml:"network_private"`
	// Headers are [plugins."<id>".headers."<origin>"] tables: header name to value.
	Headers            map[string]map[string]string `toml:"headers"`
	ConfirmHookNetwork *bool                        `toml:"confirm_hook_network"`
}

// LoadHome reads config.toml from the cwx home directory.
func LoadHome(home string) (*Config, error) { return Load(Path(home)) }

// Load reads and validates the config file at path. A missing file is not an error: the
// result holds the defaults. Any other problem returns an *Error naming the key.
// Per-plugin config problems are not load errors; see [Plugin.Err].
func Load(path string) (*Config, error) {
	data, err := boundedfile.Read(path, MaxConfigBytes, true) // a symlink from a dotfile repository is fine
	if err != nil && !errNotExist(err) {
		return nil, &Error{Path: path, Reason: "cannot read the file: " + err.Error(), Err: err}
	}
	return Parse(path, data)
}

// Parse decodes config.toml bytes; path is used in messages only.
func Parse(path string, data []byte) (*Config, error) {
	var f fileTOML
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, decodeError(path, err)
	}
	if keys := unknownKeys(md); len(keys) > 0 {
		return nil, &Error{Path: path, Key: keys[0], Reason: fmt.Sprintf("unknown key%s (%s); remove it or fix its spelling", didYouMean(keys[0]), knownKeysHint(keys[0]))}
	}
	host, err := resolveHost(path, f.ExtensionHost)
	if err != nil {
		return nil, err
	}
	hooks, err := resolveHooks(path, f.HooksFile, f.Hooks)
	if err != nil {
		return nil, err
	}
	servers, err := resolveMCP(path, f.MCP)
	if err != nil {
		return nil, err
	}
	mcpFiles, err := pathList(path, "mcp_servers_file", f.MCPFiles, "Claude Code .mcp.json or VS Code mcp.json files")
	if err != nil {
		return nil, err
	}
	cfg := &Config{Path: path, ExtensionHost: host, Plugins: map[string]Plugin{}, Hooks: hooks, MCP: servers, MCPFiles: mcpFiles}
	if r := f.Install.NpmRegistry; r != nil {
		u, err := url.Parse(*r)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return nil, &Error{Path: path, Key: "install.npm_registry", Reason: fmt.Sprintf("%q is not an http or https URL without user information; write e.g. https://npm.example.com/", *r)}
		}
		cfg.Install.NpmRegistry = *r
	}
	for id, p := range f.Plugins {
		pl := newPlugin(id, p.Config)
		if p.Isolation != nil {
			if !validIsolation(*p.Isolation) {
				return nil, &Error{Path: path, Key: fmt.Sprintf("plugins.%q.isolation", id), Reason: isolationReason(*p.Isolation)}
			}
			pl.Isolation = *p.Isolation
		}
		bad := func(key, reason string) error { return &Error{Path: path, Key: key, Reason: reason} }
		if pl.Grants, err = resolveGrants(id, grantsTOML{p.Read, p.Network, p.NetworkPrivate, p.Headers, p.ConfirmHookNetwork}, bad); err != nil {
			return nil, err
		}
		cfg.Plugins[id] = pl
	}
	return cfg, nil
}

// unknownKeys lists the keys the decoder did not use, sorted. Everything inside a
// [plugins."<id>".config] table belongs to the plugin and is never unknown.
func unknownKeys(md toml.MetaData) []string {
	var keys []string
	for _, k := range md.Undecoded() {
		if len(k) > 3 && k[0] == "plugins" && k[2] == "config" {
			continue
		}
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	return keys
}

// knownKeys are the keys of each core table, for the did-you-mean of an unknown key.
var knownKeys = map[string][]string{
	"":               {"extension_host", "plugins", "hooks_file", "mcp_servers_file", "hooks", "install", "mcp"},
	"extension_host": {"runtime", "node", "bun", "memory_limit_mib", "approval", "sandbox", "bwrap", "deny_read", "sandbox_workspace", "sandbox_uid", "isolation", "snapshot"},
	"install":        {"npm_registry"},
	"plugins":        {"isolation", "read", "network", "network_private", "headers", "confirm_hook_network", "config"},
	"mcp":            {"command", "args", "env", "cwd", "url", "type", "headers", "allow_private", "approval", "tools", "timeout_s", "max_result_bytes"},
}

// didYouMean names the known key nearest an unknown one ("" when none is near): a key of
// the same table at most two edits away.
func didYouMean(key string) string {
	parts := strings.Split(key, ".")
	table, last := "", parts[len(parts)-1]
	switch {
	case len(parts) == 2:
		table = parts[0]
	case len(parts) == 3 && parts[0] == "plugins":
		table = "plugins"
	case len(parts) == 4 && parts[0] == "mcp" && parts[1] == "servers":
		table = "mcp"
	case len(parts) != 1:
		return ""
	}
	best, dist := "", 3
	for _, k := range knownKeys[table] {
		if d := editDistance(last, k); d < dist {
			best, dist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func knownKeysHint(key string) string {
	switch {
	case strings.HasPrefix(key, "extension_host."):
		return "[extension_host] knows runtime, node, bun, memory_limit_mib, approval, sandbox, bwrap, deny_read, sandbox_workspace, sandbox_uid, isolation, snapshot"
	case strings.HasPrefix(key, "plugins."):
		return `a [plugins."<id>"] table knows isolation, read, network, network_private, confirm_hook_network and the [plugins."<id>".config] and [plugins."<id>".headers."<origin>"] tables`
	case strings.HasPrefix(key, "hooks."):
		return "a [[hooks.<event>]] table knows matcher, command, timeout_s"
	case strings.HasPrefix(key, "install."):
		return "[install] knows npm_registry"
	case strings.HasPrefix(key, "mcp."):
		return "an [mcp.servers.<name>] table knows command, args, env, cwd (a stdio server) or url, type, headers, allow_private (a remote one), and approval, tools, timeout_s, max_result_bytes"
	default:
		return "the known keys are hooks_file, mcp_servers_file and the tables [extension_host], [install], [mcp.servers.<name>], [plugins.\"<id>\".config] and [[hooks.<event>]]"
	}
}

func decodeError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{Path: path, Line: pe.Position.Line, Key: pe.LastKey, Reason: pe.Message, Err: err}
	}
	return &Error{Path: path, Reason: err.Error(), Err: err}
}

func resolveHost(path string, h hostTOML) (ExtensionHost, error) {
	out := ExtensionHost{Runtime: DefaultRuntime, MemoryLimitMiB: DefaultMemoryLimitMiB, Approval: DefaultApproval,
		Sandbox: DefaultSandbox, SandboxWorkspace: WorkspaceNone, SandboxUID: DefaultSandboxUID, Isolation: IsolationShared, Snapshot: DefaultSnapshot}
	bad := func(key, reason string) error {
		return &Error{Path: path, Key: "extension_host." + key, Reason: reason}
	}
	if h.Runtime != nil {
		switch *h.Runtime {
		case "node", "bun", "auto":
			out.Runtime = *h.Runtime
		default:
			return out, bad("runtime", fmt.Sprintf("%q is not a runtime; use \"node\", \"bun\" or \"auto\"", *h.Runtime))
		}
	}
	for _, p := range []struct {
		key string
		v   *string
		dst *string
	}{{"node", h.Node, &out.Node}, {"bun", h.Bun, &out.Bun}, {"bwrap", h.Bwrap, &out.Bwrap}} {
		if p.v == nil {
			continue
		}
		if !filepath.IsAbs(*p.v) {
			return out, bad(p.key, fmt.Sprintf("%q must be an absolute path to the %s binary", *p.v, p.key))
		}
		*p.dst = filepath.Clean(*p.v)
	}
	if h.MemoryLimitMiB != nil {
		v := *h.MemoryLimitMiB
		lo := MinMemoryLimitMiB(out.Runtime)
		if v < lo {
			return out, bad("memory_limit_mib", fmt.Sprintf("%d is out of range: below the minimum of %d MiB for runtime %q; use a value from %d to %d (MiB)", v, lo, out.Runtime, lo, MaxMemoryLimitMiB))
		}
		if v > MaxMemoryLimitMiB {
			return out, bad("memory_limit_mib", fmt.Sprintf("%d is out of range; use a value from %d to %d (MiB)", v, lo, MaxMemoryLimitMiB))
		}
		out.MemoryLimitMiB = v
	}
	if h.Approval != nil {
		switch *h.Approval {
		case "ask", "auto", "deny":
			out.Approval = *h.Approval
		default:
			return out, bad("approval", fmt.Sprintf("%q is not a posture; use \"ask\", \"auto\" or \"deny\"", *h.Approval))
		}
	}
	if err := resolveSandbox(h, &out, bad); err != nil {
		return out, err
	}
	if h.Isolation != nil {
		if !validIsolation(*h.Isolation) {
			return out, bad("isolation", isolationReason(*h.Isolation))
		}
		out.Isolation = *h.Isolation
	}
	if h.Snapshot != nil {
		if *h.Snapshot != SnapshotAuto && *h.Snapshot != SnapshotOff {
			return out, bad("snapshot", fmt.Sprintf("%q is not a snapshot mode; use \"auto\" or \"off\"", *h.Snapshot))
		}
		out.Snapshot = *h.Snapshot
	}
	return out, nil
}

// resolveSandbox applies sandbox, deny_read and sandbox_workspace (bwrap is a path, checked
// with node and bun).
func resolveSandbox(h hostTOML, out *ExtensionHost, bad func(key, reason string) error) error {
	if h.Sandbox != nil {
		switch *h.Sandbox {
		case SandboxRequired, SandboxPrefer, SandboxOff:
			out.Sandbox = *h.Sandbox
		default:
			return bad("sandbox", fmt.Sprintf("%q is not a sandbox mode; use \"required\", \"prefer\" or \"off\"", *h.Sandbox))
		}
	}
	for _, p := range h.DenyRead {
		if !filepath.IsAbs(p) {
			return bad("deny_read", fmt.Sprintf("%q must be an absolute path", p))
		}
		out.DenyRead = append(out.DenyRead, filepath.Clean(p))
	}
	if h.SandboxWork != nil {
		switch *h.SandboxWork {
		case WorkspaceNone, WorkspaceRead:
			out.SandboxWorkspace = *h.SandboxWork
		default:
			return bad("sandbox_workspace", fmt.Sprintf("%q is not a workspace mount; use \"none\" or \"read\"", *h.SandboxWork))
		}
	}
	if h.SandboxUID != nil {
		if v := *h.SandboxUID; v < 1 || v > MaxSandboxUID {
			return bad("sandbox_uid", fmt.Sprintf("%d is out of range; use an unused uid from 1 to %d (the sandboxed runtime runs as it when cwx runs as root)", v, MaxSandboxUID))
		}
		out.SandboxUID = uint32(*h.SandboxUID)
	}
	return nil
}

// The isolation modes: one host for the plugin tier, or one per plugin.
const (
	IsolationShared  = "shared"
	IsolationProcess = "process"
)

func validIsolation(v string) bool { return v == IsolationShared || v == IsolationProcess }

func isolationReason(v string) string {
	return fmt.Sprintf("%q is not an isolation mode; use \"shared\" (the plugin tier's one host) or \"process\" (a host of the plugin's own)", v)
}

// Isolated reports whether plugin id runs in a host of its own: always when it has a grant,
// else its [plugins."<id>"] isolation, else [extension_host] isolation. Builtin modules are
// never isolated.
func (c *Config) Isolated(id string) bool {
	if strings.HasPrefix(id, "host:") {
		return false
	}
	if p, ok := c.Plugins[id]; ok && !p.Grants.Empty() {
		return true
	}
	if p, ok := c.Plugins[id]; ok && p.Isolation != "" {
		return p.Isolation == IsolationProcess
	}
	return c.ExtensionHost.Isolation == IsolationProcess
}

// Plugin returns the settings of plugin id; a plugin without a table gets an empty config
// and the digest of "{}".
func (c *Config) Plugin(id string) Plugin {
	if p, ok := c.Plugins[id]; ok {
		return p
	}
	return newPlugin(id, nil)
}

// PluginIDs returns the ids of every [plugins."<id>"] table, sorted.
func (c *Config) PluginIDs() []string {
	ids := make([]string, 0, len(c.Plugins))
	for id := range c.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
