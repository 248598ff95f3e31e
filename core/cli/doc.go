// Package cli holds the cobra commands of the cwx binary, one file per command group:
// version, protocol (check frames against the wire rules), doctor (runtime, memory cap,
// sandbox, bundle), config (check config.toml), plugin (install, review, trust, enable,
// disable, untrust, remove, list, show, reload, outdated, update, marketplace; for authors
// new, types and dev), tool and command (list and call what enabled plugins register), host
// (tier status), logs (the plugins' kept log lines) and repl (warm hosts for a session,
// with line editing on a terminal).
//
// `plugin install npm:NAME[@VERSION|RANGE|TAG]` (plugin_npm.go) resolves through core/npmreg,
// writes the tarball into the store's private folder only once its sha512 matched, and hands
// that file to Store.InstallWith with its origin; --from-lock (plugin_lock.go) does the same per
// locked entry with the locked integrity and closure hash; `plugin outdated` and `plugin
// update` (plugin_update.go) compare with the registry and stage a pending update; `plugin
// marketplace` and NAME@MARKETPLACE installs (plugin_marketplace.go) go through
// core/marketplace.
//
// `plugin dev` runs one folder under a dev receipt (ARCHITECTURE.md, “Plugins and trust”):
// each change re-stages it and activates the new closure under a new generation on the warm
// host of its own Manager, printing attributed log lines, activation times and the latency of
// the calls typed on its stdin. Plugin log lines reach the log files through an hclog sink on
// the Manager's logger ([fileSink]), so every command that runs plugins keeps them.
//
// Output is written for people by default (tables, plain sentences, errors that say what
// to do) and for programs with --json (documented structs whose goldens live in
// testdata/cli). Every command maps its failure to the exit codes listed in the README
// through [ExitError]: 0 ok, 1 internal error, 2 usage or unreadable input, 3 invalid input
// or a check that disagrees, 4 denied, 5 unavailable, 6 plugin error, 7 timeout or
// cancelled. Text a plugin wrote is printed to a terminal with escapes stripped.
//
// SIGTERM cancels the running command's context (Main runs every command under it); a
// command still running termGrace later, whatever it is doing, is ended by exiting the
// process (status 7), and a second SIGTERM exits at once (watchTerm).
package cli
