// Package runtime finds the JavaScript runtime (Node.js or Bun) that runs the extension host
// and says how to launch it.
//
// Resolution follows core/runtime doc.go, “Runtimes”. The requested kind is "node" (the default),
// "bun" or "auto" (Bun first, then Node, with the reason Bun was not used recorded in
// [Resolution.Fallback]). A configured path is the only candidate for its runtime: when it
// fails, resolution fails with its reason rather than searching PATH. Otherwise every PATH
// entry is tried in order; relative entries, folders inside a node_modules folder and the
// working directory (and anything under it) are skipped without running anything, unless the
// working directory contains the user's home directory (a shell started in / or /home would
// otherwise find nothing). Each remaining candidate's --version is run with an empty
// environment, in its own process group, under a timeout. The first at or above its floor wins
// ([NodeFloor], [BunFloor]). Every rejected candidate is recorded with its reason; when none
// is usable the error wraps [ErrNoRuntime] and carries the exact fix.
//
// For Node the resolver also probes, once per binary, which of --no-experimental-sqlite and
// --no-experimental-ffi the binary accepts; [Runtime.LaunchPlan] adds the accepted ones to
// the fixed flags. The launch environment is built from an allow-list of the user's
// environment plus fixed runtime variables; the shim adds CWX_HOST_PARENT_PID itself.
//
// [CheckMemoryCap] and [CheckBubblewrap] are the probes `cwx doctor` reports. The memory
// probe runs the chosen runtime twice with a script that allocates 16 MiB and then the cap
// plus 256 MiB: without a cap both must succeed (the control), and with RLIMIT_DATA set to
// the configured cap the big allocation must fail. The cap is applied with prlimit(2) to the
// started runtime before the script is released through stdin; the shim's exec helper
// instead sets it on itself and then execs the runtime, and both are the same kernel
// accounting, so the probe tells whether the shim's cap holds.
//
// The plugin tier's sandbox (ARCHITECTURE.md, “Sandbox”): [ResolveBwrap] finds bubblewrap
// like a runtime (a configured path, else PATH outside the working directory); [ProbeSandbox]
// runs the runtime's --version inside the whole profile, once per process, and [CheckSandbox]
// is that probe as `cwx doctor` reports it, with [SandboxFix]; [Profile] builds the bubblewrap
// argv (namespaces, --cap-drop ALL, the read-only /proc surface of [KernelSurface], the
// read-only trees, the one writable data folder, the masks, the seccomp descriptor and, for a
// [SandboxUser], the drop to it inside) and [LaunchPlan.Wrap] puts it in front of the runtime's
// argv, marking the plan with [SandboxEnv] for the shim and attaching [Filter]'s program.
//
// # Runtimes
//
// `[extension_host] runtime` is `node` (the default, `config.DefaultRuntime`), `bun` or `auto` (Bun
// first, then Node, recording why Bun was not used). Floors: `runtime.NodeFloor` (`^22.19 || >=24`)
// and `runtime.BunFloor` (`>=1.4.0`).
//
//   - A configured path (`node`, `bun`) is the only candidate for its runtime; when it fails,
//     resolution fails with its reason rather than searching `PATH`.
//   - Otherwise every `PATH` entry is tried in order. Relative entries, folders inside a `node_modules`
//     folder and the working directory (and anything under it) are skipped without running anything,
//     unless the working directory contains the user's home directory.
//   - Each candidate's `--version` runs with an empty environment, in its own process group, within
//     `runtime.DefaultProbeTimeout`. The first at or above its floor wins; every rejected candidate is
//     recorded with its reason; when none is usable the error wraps `runtime.ErrNoRuntime`.
//   - The runtime is resolved once per Manager, at the first tier start, and does not change for that
//     Manager.
//
// Launch. The environment is an allow-list of the user's variables (`HOME`, `USER`, `LOGNAME`,
// `PATH`, `SHELL`, `LANG`, `LANGUAGE`, `TZ`, `TMPDIR`, `TERM`, `LC_*`, and the test suite's process
// marker) plus fixed variables that override anything inherited (`NODE_OPTIONS=` empty,
// `CWX_HOST_PROCESS_GROUP=1`; for Bun also `BUN_OPTIONS=` empty, `BUN_BE_BUN=0`,
// `BUN_JSC_useShadowRealm=0`). The shim removes go-plugin's variables and adds `CWX_HOST_PARENT_PID`;
// for Bun it also sizes JavaScriptCore's JIT reservation inside the data limit
// (`BUN_JSC_jitMemoryReservationSize`, 1/64 of the limit) so Bun keeps its JIT under `RLIMIT_DATA`.
// Node always gets `--max-old-space-size=256 --disable-proto=throw --no-addons --zero-fill-buffers`
// (a fresh Buffer, even from allocUnsafeSlow, holds no freed memory of the host's) plus whichever of
// `--no-experimental-sqlite` and `--no-experimental-ffi` the binary accepts (probed once per binary,
// kept across processes by the probe cache, core/probecache doc.go, “Probe cache”);
// Bun gets `--no-install --no-env-file --config=/dev/null --no-addons`.
//
// The JS host refuses native code before any plugin loads and verifies the locks through the entry
// points a plugin would use: `process.dlopen`, `process.execve` and Worker threads are refused on
// both runtimes, Bun's FFI and SQLite exports throw, and Node's SQLite and FFI are switched off by
// the flags above; `process.mainModule` (the host's own `require` under a CommonJS entry: the Node
// snapshot's, Bun's bytecode build) is locked to undefined. It also refuses plugin code's attempts to end the host (`process.exit`, `reallyExit`, `abort`,
// and `kill` or `_kill` of itself, its group, 0, -1 or the shim; ARCHITECTURE.md, “Lifecycles and numbers”, Blame).
//
// # Sandbox
//
// On Linux the plugin tier runs inside bubblewrap (`bwrap`). `[extension_host] sandbox` is
// `required`, `prefer` (the default, `config.DefaultSandbox`) or `off`; `bwrap` is an absolute path
// to the binary (otherwise the absolute `PATH` entries outside the working directory are searched,
// `runtime.ResolveBwrap`); `deny_read` lists paths masked inside the sandbox; `sandbox_workspace`
// is `none` (the default) or `read`; `sandbox_uid` is the uid and gid the runtime runs as when cwx
// runs as root (default `config.DefaultSandboxUID`, 2000000000).
//
//   - **The probe.** Once per process for each bubblewrap, runtime and identity (`runtime.ProbeSandbox`;
//     a success is kept across processes, ARCHITECTURE.md, “Probe cache”), the core
//     runs `<runtime> --version` inside the plugin tier's whole profile (namespaces, capabilities,
//     mounts, `/proc`, the seccomp filter and, as root, the drop to `sandbox_uid`),
//     within `runtime.DefaultSandboxProbeTimeout` (10 s). `cwx doctor` reports the result with the
//     exact fix (`runtime.SandboxFix`: the package to install, or the sysctl or AppArmor setting that
//     enables user namespaces). Under `required` a failed probe refuses the plugin tier ("plugin tier
//     requires a verified OS sandbox: <why>") and a review, `plugin show` and `host status` say it is
//     refused (`core.RequiredRefusedNote`); under `prefer` the tier runs unsandboxed; then, and
//     under `off`, they say "unsandboxed: plugins run with your user permissions"
//     (`runtime.Unsandboxed`).
//   - **The profile** (`runtime.Profile`, recorded in the launch plan's argv and `LaunchPlan.Sandbox`):
//     `--cap-drop ALL` (as root bubblewrap would otherwise keep every capability, and a plugin could
//     `umount` a mask), `--unshare-net`, `--unshare-pid`, `--unshare-ipc`, `--unshare-uts`,
//     `--unshare-cgroup-try`, `--die-with-parent`, a fresh `/proc`, a minimal `/dev` (a devpts of its
//     own) and a private `/tmp` (mode 1777). Not `--new-session`: a new session is a new scheduler autogroup,
//     and handing the CPU between the shim's session and the runtime's cost 20–40 µs per call and
//     about 30 ms at start on a loaded machine (BENCHMARKS.md); instead the exec helper of a
//     sandboxed plan gives up the controlling terminal (TIOCNOTTY, `nodeshim/exechelper_linux.go`),
//     which the shim's own session (`Setsid`) does not have in the first place, so `/dev/tty` cannot
//     be opened inside and no TIOCSTI reaches the person's terminal (the runtime's fd 0 is
//     `/dev/null`, its other descriptors pipes). Mounted read-only: `/usr`, `/lib*`, `/bin`, `/sbin`, `/etc` (merged-`/usr`
//     symlinks recreated), the runtime binary (and its target when it is a symlink), the materialized
//     bundle's folder, a Bun host's bytecode folder (`$CWX_HOME/cache/snapshots/<key>.bun`) and
//     `$CWX_HOME/plugins`; read-write: `$CWX_HOME/extension-host/data` only. Nothing
//     else is mounted: not `$HOME` (so `~/.ssh`, `~/.aws` and the other credential folders are absent
//     whether or not they exist), not the rest of `$CWX_HOME` (state, config, receipts,
//     `extension-host/data-builtin`), not `/run`, `/var/run`, `$XDG_RUNTIME_DIR`, `/root`, nor any unix
//     socket outside the data folder. Masked inside `/etc`: `shadow`, `gshadow` (and their backups),
//     `sudoers`, `sudoers.d`, `ssl/private`, `security/opasswd` and `ssh/ssh_host_*_key`. Each
//     `deny_read` path is masked even inside a mounted tree: a folder by an empty read-only tmpfs, a
//     file by `/dev/null` (unopenable: the sandbox mounts it `nodev`); a path that does not exist yet
//     masks its nearest existing folder, so creating it later shows nothing. The workspace is bound
//     read-only only under `sandbox_workspace = "read"` (the core's working directory); plugins
//     otherwise reach workspace files through `core/call`. Each bound path's missing parents are made
//     with mode 0755 (`--perms 0755 --dir`; bubblewrap's own are 0700, which the sandbox uid could not
//     cross).
//   - **The kernel surface.** bubblewrap 0.8 covers `/proc/sys` and its siblings only when
//     `access(dir, W_OK)` succeeds, which it does not for `/proc/sys`, and the sysctl permission check
//     is "kernel uid 0": as root a plugin could write `kernel/core_pattern` and run a program as real
//     root outside every namespace. So, after the fresh `/proc`, the profile binds `/proc/sys`,
//     `/proc/sysrq-trigger`, `/proc/irq`, `/proc/bus` and `/proc/fs` read-only onto themselves (a
//     remount is refused there: they are not mount points) and masks Docker's list — `/proc/kcore`,
//     `keys`, `key-users`, `timer_list`, `sched_debug`, `latency_stats`, `acpi`, `scsi`, `kallsyms` —
//     each only where this kernel has it (`runtime.KernelSurface`; masking a missing path makes
//     bubblewrap fail). `cwx doctor` lists both.
//   - **A non-root kernel uid.** `--unshare-user --uid N` run as root maps N onto the real uid 0, so
//     the kernel still sees root; starting bubblewrap itself as another uid would need unprivileged
//     user namespaces and could not reach `$CWX_HOME` under a private `/root`. When cwx runs as root
//     (`core.SandboxUserFor`), bubblewrap still runs as root and sets up the mounts, keeps only
//     `CAP_SETUID` and `CAP_SETGID`, and starts the drop. Where util-linux's `/usr/bin/setpriv` is
//     installed (it is inside the read-only `/usr`) that is `setpriv --reuid=<uid> --regid=<gid>
//     --clear-groups --inh-caps=-all --ambient-caps=-all --pdeathsig=KILL -- <runtime argv>`; the
//     sandbox probe tries it first and, when it fails, falls back to cwx's own, `cwx nodeshim
//     drop-privileges <uid>:<gid> <data> -- <runtime argv>` (`nodeshim/drop_linux.go`; the cwx binary
//     is then bound read-only), which clears the supplementary groups, sets every gid and uid to
//     `sandbox_uid` (so the kernel clears the permitted and effective capabilities), clears the
//     inheritable and ambient sets, fails unless no capability is left and `setuid(0)` fails,
//     re-arms the death signal the uid change cleared, changes into the data folder and execs the
//     runtime. The two are the same kernel transitions; setpriv's costs about 5 ms at start, cwx's
//     about 35 ms (a Go start of the whole binary; BENCHMARKS.md, “The plugin tier's sandbox”).
//     Either way `/proc/<pid>/status` shows that uid in all four places and no capability in any set
//     but the bounding one. What it costs: the data tree (`extension-host/data`, and each plugin's folder
//     before its activation) is chowned to that uid through an `os.Root`, so a planted symlink is
//     never followed (`core/sandbox_access.go`); `$CWX_HOME/plugins` and each plugin's folder get the
//     uid's group and mode 0750 (the staged copies are 0555/0444); the data folder itself is 0711 so
//     that bubblewrap, root without capabilities, can change into it before the drop; the bundle is 0444 in 0755 folders
//     (it is this binary's public code); workspace files under `sandbox_workspace = "read"` are
//     readable only if their modes let any user read them; the uid has no passwd entry, so Node's
//     `os.userInfo()` throws (Bun's answers "unknown"); `HOME` still names the caller's home, which is
//     not mounted. As a non-root user nothing changes: bubblewrap runs as that user, whose uid the
//     kernel sees.
//   - **The seccomp filter** (`core/seccomp`, assembled with `github.com/elastic/go-seccomp-bpf`). The
//     model is Docker's default profile turned around: default allow, with a deny list of what a
//     contained runtime never needs and an escape would. Refused with EPERM: the mount family
//     (`mount`, `umount2`, `pivot_root`, `fsopen`, `fsconfig`, `fsmount`, `fspick`, `move_mount`,
//     `open_tree`, `mount_setattr`), `ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`,
//     `kexec_load`/`kexec_file_load`, module loading, `bpf`, `perf_event_open`, `keyctl`/`add_key`/
//     `request_key`, `userfaultfd`, `io_uring_*`, `setns`, `acct`, `swapon`/`swapoff`, `reboot`, the
//     clock setters, `open_by_handle_at`/`name_to_handle_at`, quotas, `syslog`, `iopl`/`ioperm`,
//     `fanotify_init` and the obsolete calls Docker refuses; `unshare` and `clone` with any
//     `CLONE_NEW*` flag; `personality` other than Docker's allowed values; `ioctl` `TIOCSTI` and
//     `TIOCLINUX`. `socket(AF_UNIX, …)` fails with EACCES (`socketpair` stays allowed), which is what
//     makes "no unix sockets" true: a read-only bind does not stop `connect()` to a socket file, and
//     `--unshare-net` does not cover filesystem sockets, so a socket in the workspace (git's
//     fsmonitor, a docker socket) was reachable. `clone3` fails with ENOSYS, so libc and libuv fall
//     back to `clone`, whose flags are filtered. Arguments are compared on their low 32 bits only
//     (the kernel reads a request, a family, clone flags and a personality as 32-bit values; a 64-bit
//     compare was bypassed in a real CVE by setting a high bit), which is why those checks are BPF
//     written in `core/seccomp` (the library compares 64 bits); calls through another ABI (int 0x80
//     on x86-64, which the library lets through) and the x32 ABI fail with ENOSYS. The core puts the
//     program in the launch plan (`LaunchPlan.Seccomp`, `seccomp_filter` in `shim.proto`) and the
//     shim hands it to bubblewrap on fd 6 (`--seccomp 6`, `runtime.SandboxSeccompFD`) as 8-byte
//     `struct sock_filter`s; the probe runs under the same program. Node (with a Worker thread) and
//     Bun (with its JIT) start and pass the sandbox suites under it. `TestFilterRefusesEachCallForReal`
//     calls every refused call with and without the filter, and `TestSeccompUnderTheProfile` inside
//     the exact profile, as root and as an unprivileged user; `TestProgramDecisions` runs the program
//     in a BPF interpreter for what this kernel cannot show (another ABI).
//   - **The chain.** The shim stays outside. It spawns the exec helper, which sets `RLIMIT_DATA` and
//     execs bubblewrap, so the limit binds bubblewrap and the runtime inside it and never the shim.
//     The plan carries `CWX_HOST_SANDBOX=bwrap` (`runtime.SandboxEnv`); for it the shim opens
//     bubblewrap's `--info-fd` (fd 5, `runtime.SandboxInfoFD`) and the filter's pipe (fd 6), reads the pid of the namespace's
//     init and takes its one child as the runtime (polled each millisecond: the init's children
//     file when the kernel has one, else the 32 pids above the init, with a scan of all of `/proc`
//     only every 20th poll): `Start`, `Stats` (RSS) and `host status` name the runtime's real pid,
//     not bubblewrap's; its group is bubblewrap's, which bubblewrap, its init and the runtime share.
//     The shim sends SIGTERM to the runtime alone (bubblewrap would die of it at once and take the
//     namespace down before the runtime shut down) and SIGKILL to the group; the core's own SIGTERM
//     to the group, sent only to a host that did not answer `host/shutdown`, ends the sandbox at
//     once. Bubblewrap
//     exits with 128+N when the runtime died of signal N; the shim reports that as the signal. The
//     runtime gets no `CWX_HOST_PARENT_PID`, since the shim is invisible in its PID namespace: the JS
//     host's parent watchdog stays off and the host ends on its channel's EOF, by
//     `--die-with-parent` when bubblewrap dies, and with the namespace (the kernel kills every
//     process in it when its init exits), which also ends what a plugin started, detached or not.
//     `host/hello`, the channel on fds 3 and 4 and the bundle path are unchanged inside.
//   - **Out of memory.** The shim names the limit when a runtime ends of it, sandboxed or not
//     (`nodeshim/memlimit.go`): V8's fatal report at its heap cap (`--max-old-space-size`, which
//     Node reaches before a larger `memory_limit_mib`), a runtime's own out-of-memory text, or, for
//     JavaScriptCore, which often crashes at the limit without a word (SIGSEGV at its deliberate
//     crash address, or an abort), a sampled data segment that had reached 90 % of `RLIMIT_DATA`
//     (sampled every 50 ms, every 5 ms above 75 %). The reason ("the runtime exceeded its memory
//     limit of N MiB (RLIMIT_DATA N MiB, [extension_host] memory_limit_mib)...") is the exit's, so it
//     reaches the failed call's error, `host status` and the log; the supervisor then counts a crash
//     and restarts the host within its budget, and the other tier is not touched.
//   - **Inside, a plugin sees** its namespace's pids (the runtime is pid 2), no network interface but
//     loopback of its own namespace, and `TMPDIR=/tmp` (private, gone with the host).
//   - **The builtin tier is not sandboxed** (first-party code that starts user hooks); its status says
//     so (`core.BuiltinSandboxNote`).
//
// What the sandbox does not do: bound CPU time, disk use in the data folder or the number of
// processes; filter the calls it allows (a kernel bug reachable through an allowed call is not
// stopped); hide one plugin from another (they share the tier's process and its data folder
// tree); stop a plugin from reading what is mounted (the system trees, other plugins' staged code,
// the data folders of every plugin of the tier). On other platforms there is no sandbox: `prefer`
// runs unsandboxed and `required` refuses.
package runtime
