// Package mcpfile reads the MCP server files users already have, so that naming one in
// config.toml (mcp_servers_file) is enough: Claude Code's .mcp.json and VS Code's
// .vscode/mcp.json, unmodified, and a Claude Code plugin's .mcp.json (core/ccplugin). It
// reads and expands, nothing more: which servers run is core/mcpclient's decision, and
// every server of a file is reviewed and trusted before its first start.
//
// # Two layers
//
// [Decode] turns a file's bytes into a [File] whose servers keep their values as written,
// ${…} unexpanded, so a file can be shown and checked without the environment.
// [File.Expand] then puts in the variables ([Vars]) and returns each server as the
// config.MCPServer it describes ([Entry]), sorted by name, leaving the server's cwx name,
// approval and bounds to the caller.
//
// # Formats
//
// The top-level key tells the format: `mcpServers` is Claude Code's, `servers` (beside
// `inputs`) VS Code's; a file with both or neither is refused, saying what to write. Other
// top-level keys are ignored. VS Code writes JSON with comments and trailing commas, and
// those are read in either format (as spaces, so a syntax error's line and column are the
// file's). A file is UTF-8, at most [MaxFileBytes], with at most config.MaxMCPServers
// servers and [MaxInputs] inputs.
//
// [DecodePlugin] reads a plugin's .mcp.json: Claude Code's format, its servers under
// `mcpServers` or, as many published plugins write them, at the top level; `{}` has none.
//
// # Servers
//
// A server is an object with a `command` (a local server, with `args` and `env`) or a `url`
// (a remote one, with `headers`), never both or neither. `type` is `stdio`, `http` or `sse`;
// left out, it is stdio with a command and http with a url, and a type that does not fit
// the server (`"stdio"` with a url) is refused, as is any other (`ws` included). Each field
// cwx reads must have its JSON type; VS Code's `env` values may also be numbers, kept as
// written, and a null (VS Code's unset) is refused. VS Code's `cwd` is read; Claude Code's
// format has none. A non-empty field of the other kind of server (`headers` of a local one,
// `args`, `env` or `cwd` of a remote one) is refused rather than dropped.
//
// Keys the tools write and cwx has no use for are ignored: `description`, VS Code's `dev`,
// `gallery` and `version`, Claude Code's `oauth` (a server that asks for a sign-in is
// refused by name when core/mcpclient reaches it). A key whose meaning cwx would drop while
// it changes what runs or is sent is refused by name: VS Code's `envFile` (an environment
// from a file cwx does not read) and `sandboxEnabled` (a sandbox cwx does not have), Claude
// Code's `headersHelper` (a command that makes the headers). Every string, names and keys
// included, is checked by core/inert. An error is an *[Error] naming the server and the
// field ("args[1]", "env.NAME", "headers.NAME"), and matches [ErrFile].
//
// # Expansion
//
// Claude Code's files: `${NAME}` and `${NAME:-default}` (the default as written, up to the
// closing brace) in command, args, env values, url and header values; `${env:NAME}`, the
// form of config.toml and VS Code, reads as `${NAME}`. Env and header names are not
// expanded. An unset variable without a default fails the file, naming the variable, the
// server and the field.
//
// VS Code's files: `${env:NAME}` (unset fails as above), `${workspaceFolder}` and
// `${workspaceFolderBasename}` (from Vars.WorkspaceFolder), `${userHome}` (HOME),
// `${pathSeparator}` and `${/}`, in the same fields and in cwd. `${input:ID}` is refused
// naming the input, with its description when `inputs` has one: cwx cannot prompt, so the
// file must give the value or an `${env:…}`. `${config:…}`, `${command:…}`, a multi-root
// `${workspaceFolder:NAME}`, the editor's variables (`${file}`, `${selectedText}`, …) and
// any other `${…}` are refused by name.
//
// In both, a `${` without its `}` stays as written, expansion is one pass (a value's own
// `${…}` is not expanded again), and a string expands to at most [MaxExpanded] bytes.
//
// A stdio server runs in VS Code's cwd when given (which must then be absolute) or else in
// Vars.WorkspaceFolder, the folder the file belongs to, as both tools run a project's
// servers; a command written as a relative path with a slash is taken from that folder. A
// NUL in an expanded command, argument or value is refused. A remote server's URL and
// headers are checked by config.CheckRemoteMCP once expanded (http or https, header names a
// proxy may send, each value one line).
//
// No error holds a variable's value, only its name: a header or an env value usually holds
// a token. Where config.CheckRemoteMCP would quote an expanded URL, the error quotes the
// URL as written.
package mcpfile
