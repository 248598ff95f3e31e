package registry

import (
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

var (
	toolNameRE    = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	commandNameRE = lazyre.New(`^[a-z][a-z0-9_-]{0,63}$`)
	moduleRE      = lazyre.New(`^[a-z][a-z0-9-]{0,63}$`)
)

// ReservedToolPrefixes may not start an extension tool's name (compared folded).
var ReservedToolPrefixes = []string{"mcp_", "ext_"}

// NativeToolNames are the names reserved for the core's tools and the agent machinery
// (ARCHITECTURE.md, “Registry rules”). An extension tool may not take one in any spelling
// that folds to it (Fold). The native tools actually present are given in
// Options.NativeTools; a listed name with no native behind it is refused as reserved.
var NativeToolNames = []string{
	// Reserved by the agent machinery.
	"tool_search", "tool_search_tool_regex", "tool_search_tool_bm25", "retrieve_tool_result",
	"execute_tools", "code_execution", "js_execution", "request_user_input",
	"multi_tool_use.parallel", "remember", "request_plugin_install", "send_later",
	// File tools.
	"read", "read_file", "list_dir", "file_search", "grep_files", "glob", "grep", "ls",
	"write", "write_file", "edit", "edit_file", "apply_patch", "fim_edit", "multi_edit",
	"delete_file", "move_file", "todo_write",
	// Shell and execution.
	"shell", "bash", "sh", "zsh", "powershell", "pwsh", "cmd", "terminal", "exec", "execute",
	"exec_shell", "exec_command", "exec_wait", "exec_interact", "task_shell_start",
	"run", "run_tests", "run_verifiers", "verify", "harness", "eval", "sudo",
	// Network, agents, version control.
	"web_fetch", "fetch_url", "web_search", "fetch", "browser", "finance", "git", "git_fetch",
	"agent", "task", "spawn_agent", "exec_agent", "automation",
}

// SpecialToolPrefixes start names the approval gate classifies by name (read, list,
// fetch, network, shell, write, agent, MCP), so an extension tool may not use them.
var SpecialToolPrefixes = []string{
	"read_", "get_", "list_", "web_", "exec_", "run_", "shell_", "bash_", "write_", "edit_",
	"delete_", "fetch_", "git_", "agent_", "spawn_", "automation",
}

// SpecialToolInfixes mark shell-like and MCP names anywhere in a name.
var SpecialToolInfixes = []string{"shell", "mcp"}

// BuiltinCommandNames are the commands (and aliases) of the cwx repl. An extension
// command may not take one. An embedder adds its own with Options.BuiltinCommands.
var BuiltinCommandNames = []string{"help", "tools", "call", "run", "plugins", "host", "reload", "exit", "quit"}

// HostIDPrefix starts every builtin-tier owner id.
const HostIDPrefix = "host:"

// Fold is the form in which names are compared (ARCHITECTURE.md, “Registry rules”): lower
// case, with `-` read as `_`. `Echo-Text`, `echo_text` and `ECHO_TEXT` are one name, for
// tools and commands, for the reserved names and the claim table alike.
func Fold(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

// nameTables holds the reserved names of one registry, folded.
type nameTables struct {
	natives  map[string]string // live native tools: folded → as given
	reserved map[string]string // NativeToolNames: folded → as listed
	commands map[string]bool
}

func newNameTables(natives, extraCommands []string) nameTables {
	t := nameTables{natives: map[string]string{}, reserved: map[string]string{}, commands: map[string]bool{}}
	for _, n := range NativeToolNames {
		t.reserved[Fold(n)] = n
	}
	for _, n := range natives {
		t.natives[Fold(n)] = n
	}
	for _, n := range append(append([]string(nil), BuiltinCommandNames...), extraCommands...) {
		t.commands[Fold(n)] = true
	}
	return t
}

// reservedTool explains why a tool name belongs to the core, or returns "". A name of a
// live native tool collides with it; a reserved name with no native behind it is only
// reserved (`cwx tool list` shows no such tool).
func (t nameTables) reservedTool(name string) (string, error) {
	key := Fold(name)
	for _, p := range ReservedToolPrefixes {
		if strings.HasPrefix(key, p) {
			return "tool name `" + name + "` uses the reserved prefix `" + p + "`; choose a name without it", ErrReservedName
		}
	}
	if native, ok := t.natives[key]; ok {
		return "tool name `" + name + "` collides with the built-in tool `" + native + "`; choose another name", ErrReservedName
	}
	if listed, ok := t.reserved[key]; ok {
		return "tool name `" + name + "` is a reserved name (`" + listed + "`); choose another name", ErrReservedName
	}
	for _, p := range SpecialToolPrefixes {
		if strings.HasPrefix(key, p) {
			return "tool name `" + name + "` is reserved: names starting with `" + p + "` are classified by the approval gate; choose another name", ErrReservedName
		}
	}
	for _, s := range SpecialToolInfixes {
		if strings.Contains(key, s) {
			return "tool name `" + name + "` is reserved: names containing `" + s + "` are classified by the approval gate; choose another name", ErrReservedName
		}
	}
	return "", nil
}

// checkOwnerID enforces the tier-bound id rules.
func checkOwnerID(pluginID string, builtin bool) string {
	switch {
	case builtin && !strings.HasPrefix(pluginID, HostIDPrefix):
		return "builtin owner `" + pluginID + "` must be host:<module>"
	case builtin && !moduleRE().MatchString(strings.TrimPrefix(pluginID, HostIDPrefix)):
		return "builtin owner `" + pluginID + "`: the module must match ^[a-z][a-z0-9-]{0,63}$"
	case !builtin && strings.HasPrefix(pluginID, HostIDPrefix):
		return "plugin id `" + pluginID + "` may not start with host: (reserved for the builtin tier)"
	case !builtin && pluginID == "":
		return "plugin id is empty"
	}
	return ""
}
