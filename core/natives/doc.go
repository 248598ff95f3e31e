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
//
// The input field names follow the common agent tools' (file_path, pattern, command), so
// hooks written for those read them unchanged.
//
// shell runs `/bin/sh -c command` in the workspace in a process group of its own; when the
// command ends, times out or is cancelled the whole group is killed, so nothing it started
// outlives the call, unless it left the group by starting a session of its own: the
// process group is a bound, not a sandbox.
package natives
