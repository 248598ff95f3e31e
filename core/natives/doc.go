// Package natives holds the core's native tools and the interface an embedder implements
// to add its own (ARCHITECTURE.md, “Native tools”).
//
// A native Tool runs inside the core, not in a JS host. Its Spec gives its name (reserved:
// no extension tool may take it, whatever its case), its input schema, and how the gate
// approves its calls: AutoEligible (no card, in every posture), Forced (a card every time,
// never a session grant, denied under deny or with no approver) or neither (approved like
// an extension tool's call). A Set is the immutable table the core is opened with;
// Builtin is the default.
//
// Every call carries a workspace, and the file tools are confined to it with os.Root:
// `..`, absolute paths elsewhere and symbolic links leading out are refused
// (ErrOutsideWorkspace), and a call without a workspace reaches no file (ErrNoWorkspace).
// Every output is bounded.
//
//	tool         input                              approval
//	read_file    {file_path, offset?, limit?}       auto-eligible
//	list_dir     {path}                             auto-eligible
//	file_search  {pattern, path?} (glob)            auto-eligible
//	grep_files   {pattern, path?, glob?} (RE2)      auto-eligible
//	shell        {command, timeout_s?}              forced
//	write_file   {file_path, content}               required; forced when protected
//	edit_file    {file_path, old_string,            required; forced when protected
//	              new_string, replace_all?}
//
// The input field names follow the common agent tools' (file_path, pattern, command), so
// hooks written for those read them unchanged.
//
// shell runs `/bin/sh -c command` in the workspace in a process group of its own; when the
// command ends, times out or is cancelled the whole group is killed, so nothing it started
// outlives the call, unless it left the group by starting a session of its own: the
// process group is a bound, not a sandbox.
//
// # Native tools
//
// Native tools run in the core, not in a host (`core/natives`). `core.Options.Natives` is their table
// (`natives.BuiltinWith` with the cwx home and the hooks files protected when nil; an embedder adds its own with `BuiltinWith(o).With(...)`, naming its protected paths in o); their names go
// to the registry as reserved, so no extension tool can shadow one, and `Manager.Tools` lists them
// with origin `native`. Each `natives.Spec` says how its calls are approved:
//
// Columns: tool, input, approval.
//
//   - `read_file`: `{file_path, offset?, limit?}`, auto-eligible
//
//   - `list_dir`: `{path}`, auto-eligible
//
//   - `file_search`: `{pattern, path?}` (glob, `**` for any depth), auto-eligible
//
//   - `grep_files`: `{pattern, path?, glob?}` (RE2), auto-eligible
//
//   - `shell`: `{command, timeout_s?}`, forced
//
//   - `write_file`: `{file_path, content}`, required; forced when the path is protected
//
//   - `edit_file`: `{file_path, old_string, new_string, replace_all?}`, required; forced when the
//     path is protected
//
//   - A call of a native through `CallTool` is validated against the schema compiled at `Open` (a
//     schema the registry would refuse fails `Open`), then gated with `gate.Request.Native`: an
//     auto-eligible tool is `gate.Eligible` (no card, in every posture); `shell` is `gate.Forced` (a
//     card on every call under `ask` and `auto`, never a session grant, denied under `deny` or with no
//     approver); an embedder's native that is neither is `gate.Required`, like an extension tool. Keys
//     are `native:<tool>:<input hash>` (`gate.NativeKey`), distinct from `ext:` and `extcall:` keys.
//
//   - Every call carries a workspace (`CallOptions.Workspace`; `cwx tool call --workspace`, default the
//     current directory). A call without one reaches no file (`natives.ErrNoWorkspace`). The file tools
//     open it as an `os.Root`: `..`, absolute paths elsewhere and symbolic links leading out are refused
//     (`natives.ErrOutsideWorkspace`, a case of `ErrDenied`); walks do not follow links.
//
//   - Outputs are bounded: `natives.MaxOutput` bytes of text, `MaxLineBytes` per line, `MaxEntries`
//     listed paths, `MaxMatches` grep lines, `MaxVisited` entries per walk, `MaxShellOutput` of the
//     command's output. A bound reached is said in the text.
//
//   - `shell` runs `/bin/sh -c` in the workspace in a process group of its own, with stdin empty; when
//     the command exits, its timeout (`DefaultShellTimeout`, at most `MaxShellTimeout`) passes or the
//     call is cancelled, the whole group is killed with SIGKILL, so nothing it started outlives the
//     call. Stdout and stderr are read from two pipes the core holds, kept apart within one
//     `MaxShellOutput` together (`Result.Streams`, which Claude Code's PostToolUse hooks get as Bash's
//     `stdout` and `stderr`); the text is stdout, then stderr on a line of its own (two pipes
//     cannot tell the order of writes to both, so the text does not guess). The reads end at most a second after the
//     kill, so a descendant that left the group cannot hold the call open; such a descendant (one
//     that started a session of its own) is not killed: the group is the bound, not a sandbox. A non-zero exit or a timeout
//     is an error result (`exit_code`, `timed_out`, `truncated` in the structured result).
//
// write_file and edit_file (Spec.Writes) change one file, at most MaxWriteBytes. The file
// is resolved inside the workspace through os.Root: a symbolic link is followed only to a
// file inside it, a link or a folder leading out is ErrOutsideWorkspace. The write is an
// atomic replace: a temporary file `.<name>.cwx-<random>.tmp` in the same folder, written,
// given the old file's permissions, synced, then renamed over the target. The rename
// replaces the directory entry, so a hard link's other names keep the old content (the
// file gets a new inode) and nothing is written through a link; a failure at any step
// removes the temporary file and leaves the target as it was. edit_file replaces exact
// text: old_string must occur once, or replace_all must be set; an absent or ambiguous
// match is an error result and nothing is written.
//
// Both are Planners: before the gate the core asks Plan what the call would change, and
// puts the unified diff (bounded at MaxDiffBytes) on the card. Plan also says whether the
// path is protected: a path with a .git, .claude or .vscode folder in it, a file named
// .envrc, .env*, .mcp.json or package.json (compared folded), or a file or folder of
// WriteOptions.Protected (the core passes the cwx home and the hooks files), checked for the
// path the call names and for the file a link in it reaches. The core makes such a call
// Forced, so no posture, auto included, and no session grant approves it; any other write
// is Required (a card under ask, approved under auto as Claude Code's acceptEdits mode
// does). Through core/call a Writes tool is always Forced. The file may change between the
// card and the write: the write recomputes its change from what is on disk then, and the
// card's diff is what the file held when it was asked.
//
// Their Result's Structured is Claude Code's Write and Edit tool_response shape
// (type/filePath/content/structuredPatch/originalFile; filePath/oldString/newString/
// originalFile/structuredPatch/userModified/replaceAll), which package cmdhooks hands to
// hooks as it is.
package natives
