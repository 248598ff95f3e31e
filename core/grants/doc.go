// Package grants decides what of a plugin's read grants may be bound into its sandbox
// (“Grants” below). config.toml names them ([plugins."<id>"] read, checked for
// syntax by core/config); Resolve canonicalizes each (symlinks resolved) and refuses, with
// the reason, what may never be granted: $CWX_HOME or anything in it, the sandbox's secret
// files and `deny_read`, the kernel's and the system's live trees (/proc, /sys, /dev, /run),
// the credential stores of the user's home, and any path that is or contains a socket or a
// FIFO (a read-only bind does not stop a unix socket's connect). A path refused counts both
// ways: a grant inside a refused path and a grant that contains one are refused alike.
//
// Resolve runs at `cwx config check` and before every start of the plugin's own host, so a
// symlink swapped after the configuration was read is caught at the next start: Check
// compares a fresh resolution with the one the host's sandbox was built from.
//
// # Grants
//
// The sandbox starves a plugin that must read a folder its user names; `sandbox = "off"` would give
// every plugin everything. A grant gives one plugin one thing: `[plugins."<id>"] read = [paths]`
// (absolute, `${env:NAME}` expanded; bound read-only into its sandbox) and `network = [origins]`
// (what the core's fetch proxy lets that plugin's host reach: ARCHITECTURE.md, “Grants”). A plugin with any grant always runs in a host of its own
// (`config.Config.Isolated`), so a grant never reaches another plugin. core/config checks the syntax
// at load (a bad grant is a load error naming its key); core/grants canonicalizes each read path
// and refuses, with the reason, `$CWX_HOME` and anything in or around it, the sandbox's secret
// files and `deny_read`, `/proc`, `/sys`, `/dev`, `/run`, the credential stores of the user's home,
// and any path that is or holds a socket or FIFO (a read-only bind does not stop a unix socket's
// connect), at `cwx config check` and before every start of the plugin's host
// (`supervisor.Options.BeforeLaunch`), so a symlink swapped after the configuration was read fails
// the next start naming the change. A manifest may ask for grants (`cwx.grants` in package.json or
// plugin.json): requests only, shown by the review and `plugin show` with the config line that would
// grant each. A plugin granted an origin that registers a pre-execute hook is refused the hook unless
// `confirm_hook_network = true`: a hook sees every gated call's full input. A grant change restarts
// the plugin's host with the new sandbox. A plugin's failure naming a path (ENOENT) outside its
// sandbox's mounts says so in the call's error, with the config line when its manifest asked for a
// folder holding it (`owners.Owner.ExplainMissing`). When cwx runs as root, the runtime reads a grant
// as `sandbox_uid`: the files must be readable by others.
package grants
