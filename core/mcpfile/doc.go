// Package mcpfile reads the MCP server files users already have, so that naming one in
// config.toml (mcp_servers_file) is enough: Claude Code's .mcp.json and VS Code's mcp.json,
// unmodified. It only reads and expands; which of their servers run is core/mcpclient's
// decision (each is reviewed and trusted before its first start).
//
// # Two layers
//
// [Decode] reads a file's bytes into a [File]: the format is told by the top-level key
// (`mcpServers` is Claude Code's, `servers` VS Code's; both or neither is refused), each
// server must be an object with a `command` (a local server) or a `url` (a remote one), not
// both, and `type` is `stdio`, `http` or `sse` (missing: stdio with a command, http with a
// url). The fields cwx uses are typed; other keys those tools write (`description`, `dev`,
// `gallery`, …) are ignored, except `envFile`, which would change a server's environment
// from a file cwx does not read, and is refused by name. Every string is checked by
// core/inert. Nothing is expanded yet. A file is at most [MaxFileBytes] and
// config.MaxMCPServers servers.
//
// [File.Expand] resolves the variables with [Vars] and returns the servers as
// config.MCPServer values ([Entry]), sorted by name:
//
//   - Claude Code's `${VAR}` and `${VAR:-default}` in command, args, env values, url and
//     header values; an unset variable without a default fails the file, naming the
//     variable, the server and the field;
//   - VS Code's `${env:VAR}` (unset fails as above), `${workspaceFolder}` (the folder that
//     holds `.vscode/`, given by the caller), `${userHome}` and `${pathSeparator}`; an
//     `${input:ID}` is refused naming the input, since cwx cannot prompt for it, and any
//     other `${…}` form (`${config:…}`, `${command:…}`) is refused by name.
//
// A stdio server runs in the file's folder (VS Code's `cwd` when given, which must then be
// absolute); a command written as a relative path with a slash is taken from that folder.
// A remote server's URL and headers are checked by config.CheckRemoteMCP after expansion.
// No error names a variable's value, only its name: a header usually holds a token.
package mcpfile
