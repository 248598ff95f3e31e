package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/cmdhooks"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/grants"
	"github.com/cwx-dev/cwx/core/plugins"
)

// ConfigCheck is the --json output of `cwx config check`.
type ConfigCheck struct {
	File   string `json:"file"`   // $CWX_HOME/config.toml
	Exists bool   `json:"exists"` // false: every value is a default
	Valid  bool   `json:"valid"`  // no load error and no refused plugin table
	// Error is why the file does not load (it names the key); empty when it loads.
	Error string `json:"error,omitempty"`
	// ExtensionHost is the [extension_host] table with defaults applied; null when the
	// file does not load.
	ExtensionHost *config.ExtensionHost `json:"extension_host"`
	Plugins       []ConfigCheckPlugin   `json:"plugins"`
	// Hooks is how many command hooks load (config.toml's tables and the hooks file);
	// HooksError is why they do not (a hooks file unreadable or not Claude Code's shape, a
	// matcher that does not compile), naming the hook.
	Hooks      int    `json:"hooks"`
	HooksError string `json:"hooks_error,omitempty"`
}

// ConfigCheckPlugin is one [plugins."<id>"] table as `cwx config check` reports it.
type ConfigCheckPlugin struct {
	ID        string   `json:"id"`
	Installed bool     `json:"installed"`
	Keys      []string `json:"keys"` // top-level keys, never the values
	Bytes     int      `json:"bytes"`
	Digest    string   `json:"digest"`
	Error     string   `json:"error,omitempty"` // why the table is refused
	// SchemaProblems are every problem the plugin's own Config schema found in the table
	// (wrong types, missing required keys, unknown keys with the nearest known one), when
	// the plugin is enabled and trusted and was activated by the check.
	SchemaProblems []string `json:"schema_problems,omitempty"`
	// Grants are its read and network grants; GrantProblems why a read grant may not be
	// bound (core/grants: refused paths, sockets, missing folders), each naming the grant.
	Grants        *config.Grants `json:"grants,omitempty"`
	GrantProblems []string       `json:"grant_problems,omitempty"`
	// HeaderNames are the names of the headers the fetch proxy adds, per origin (never
	// their values).
	HeaderNames map[string][]string `json:"headers,omitempty"`
	// Isolated says it runs in a host of its own (its isolation, the default, or its grants).
	Isolated bool `json:"isolated"`
}

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{Use: "config", Short: "Inspect config.toml", Args: cobra.NoArgs}
		var asJSON, offline bool
		check := &cobra.Command{
			Use:   "check",
			Short: "Validate $CWX_HOME/config.toml and explain what it sets",
			Long: "check decodes config.toml strictly (an unknown key is an error naming it), applies the\n" +
				"defaults, and checks every [plugins.\"<id>\".config] table: plain TOML values only, at\n" +
				"most 16 KiB as JSON and 16 levels deep, no date-times. Then, unless --offline, it activates\n" +
				"the enabled, trusted plugins in this process (their extension host is shut down before check\n" +
				"exits) so that each plugin's Config schema checks its table: every wrong type, missing\n" +
				"required key and unknown key is reported. It exits 3 when anything is refused.",
			Args: exactArgs(0),
			RunE: func(cmd *cobra.Command, _ []string) error {
				rep, err := runConfigCheck()
				if err != nil {
					return err
				}
				if rep.ExtensionHost != nil && !offline {
					if err := schemaCheck(cmd.Context(), cmd.ErrOrStderr(), &rep); err != nil {
						return err
					}
				}
				if err := writeReport(cmd.OutOrStdout(), asJSON, rep, writeConfigCheck); err != nil {
					return err
				}
				if !rep.Valid {
					return &ExitError{Code: ExitInvalid}
				}
				return nil
			},
		}
		check.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
		check.Flags().BoolVar(&offline, "offline", false, "check config.toml alone: do not activate the enabled plugins to check their Config schemas")
		cmd.AddCommand(check)
		return cmd
	})
}

func runConfigCheck() (ConfigCheck, error) {
	home, err := config.Home()
	if err != nil {
		return ConfigCheck{}, &ExitError{Code: ExitInternal, Err: err}
	}
	rep := ConfigCheck{File: config.Path(home), Plugins: []ConfigCheckPlugin{}}
	_, statErr := os.Stat(rep.File)
	rep.Exists = statErr == nil
	cfg, err := config.LoadHome(home)
	if err != nil {
		if !errors.Is(err, config.ErrInvalid) {
			return rep, &ExitError{Code: ExitInternal, Err: err}
		}
		rep.Error = err.Error()
		return rep, nil
	}
	rep.Valid = true
	if set, err := cmdhooks.Load(cfg.Hooks); err != nil {
		rep.HooksError, rep.Valid = err.Error(), false
	} else {
		rep.Hooks = len(set.Hooks)
	}
	host := cfg.ExtensionHost
	rep.ExtensionHost = &host
	installed := map[string]bool{}
	if s, err := plugins.Open(plugins.Options{Home: home}); err == nil {
		if recs, err := s.List(); err == nil {
			for _, r := range recs {
				installed[r.ID] = true
			}
		}
	}
	for _, id := range cfg.PluginIDs() {
		p := cfg.Plugin(id)
		cp := ConfigCheckPlugin{ID: id, Installed: installed[id], Keys: p.Keys, Bytes: len(p.JSON), Digest: p.Digest}
		if cp.Keys == nil {
			cp.Keys = []string{}
		}
		if p.Err != nil {
			cp.Error = p.Err.Error()
			rep.Valid = false
		}
		cp.Isolated = cfg.Isolated(id)
		if !p.Grants.Empty() {
			g := p.Grants
			cp.Grants, cp.HeaderNames = &g, g.HeaderNames()
			if _, err := grants.Resolve(grants.EnvFor(home, cfg), id, g); err != nil {
				for _, r := range grants.Refusals(err) {
					cp.GrantProblems = append(cp.GrantProblems, r.Error())
				}
				rep.Valid = false
			}
		}
		rep.Plugins = append(rep.Plugins, cp)
	}
	return rep, nil
}

func writeConfigCheck(w io.Writer, rep ConfigCheck) {
	exists := ""
	if !rep.Exists {
		exists = " (absent: defaults apply)"
	}
	printf(w, "file     %s%s\n", rep.File, exists)
	if rep.ExtensionHost == nil {
		printf(w, "error    %s\n", rep.Error)
		printf(w, "known keys: hooks_file; [extension_host] runtime, node, bun, memory_limit_mib, approval, sandbox, bwrap, deny_read, sandbox_workspace, sandbox_uid, isolation; [install] npm_registry; [plugins.\"<id>\"] isolation, read, network, confirm_hook_network; [plugins.\"<id>\".config] with the plugin's own keys; [[hooks.<event>]] matcher, command, timeout_s\n")
		return
	}
	h := rep.ExtensionHost
	printf(w, "[extension_host]\n")
	printf(w, "  runtime = %q   # node (default), bun or auto\n", h.Runtime)
	printf(w, "  node = %q   # empty: search PATH\n", h.Node)
	printf(w, "  bun = %q   # empty: search PATH\n", h.Bun)
	printf(w, "  memory_limit_mib = %d   # RLIMIT_DATA of the runtime\n", h.MemoryLimitMiB)
	printf(w, "  approval = %q   # ask (default), auto or deny\n", h.Approval)
	printf(w, "  sandbox = %q   # prefer (default), required or off\n", h.Sandbox)
	if h.Bwrap != "" {
		printf(w, "  bwrap = %q\n", h.Bwrap)
	}
	if len(h.DenyRead) > 0 {
		printf(w, "  deny_read = [%s]   # masked inside the sandbox\n", quotedList(h.DenyRead))
	}
	printf(w, "  sandbox_workspace = %q   # none (default) or read\n", h.SandboxWorkspace)
	printf(w, "  sandbox_uid = %d   # the runtime's uid when cwx runs as root\n", h.SandboxUID)
	printf(w, "  isolation = %q   # shared (default: one host for the plugin tier) or process (a host per plugin)\n", h.Isolation)
	for _, p := range rep.Plugins {
		note := ""
		if !p.Installed {
			note = "   # not installed"
		}
		if p.Grants != nil || p.Isolated {
			printf(w, "[plugins.%q]%s\n", p.ID, note)
			if p.Isolated {
				printf(w, "  isolation: a host of its own\n")
			}
			if g := p.Grants; g != nil {
				for _, r := range g.Written {
					printf(w, "  read = %q   # bound read-only into its sandbox\n", r)
				}
				for _, o := range g.Network {
					printf(w, "  network = %q\n", o)
				}
				for _, o := range g.Private {
					printf(w, "  network_private = %q   # may resolve to private addresses\n", o)
				}
				for _, o := range slices.Sorted(maps.Keys(g.Headers)) {
					printf(w, "  headers.%q = [%s]   # added by the fetch proxy; values hidden\n", o, strings.Join(g.HeaderNames()[o], ", "))
				}
				if g.ConfirmHookNetwork {
					printf(w, "  confirm_hook_network = true   # its pre-execute hooks may run beside its network grants\n")
				}
			}
			for _, pr := range p.GrantProblems {
				printf(w, "  refused: %s\n", oneLine(pr))
			}
		}
		printf(w, "[plugins.%q.config]%s\n", p.ID, note)
		if p.Error != "" {
			printf(w, "  refused: %s\n", p.Error)
			continue
		}
		if len(p.SchemaProblems) > 0 {
			printf(w, "  refused by the plugin's Config schema:\n")
			for _, pr := range p.SchemaProblems {
				printf(w, "    %s\n", oneLine(pr))
			}
			if p.Digest == "" {
				continue
			}
		}
		if p.Digest == "" { // an enabled plugin without a table: its schema was checked against {}
			continue
		}
		keys := strings.Join(p.Keys, ", ")
		if keys == "" {
			keys = "(empty)"
		}
		printf(w, "  keys: %s (%d bytes as JSON, digest %s)\n", keys, p.Bytes, p.Digest[:12])
	}
	switch {
	case rep.HooksError != "":
		printf(w, "[hooks]\n  refused: %s\n", oneLine(rep.HooksError))
	case rep.Hooks > 0:
		printf(w, "[hooks]\n  command hooks that load: %d (cwx hooks list shows them)\n", rep.Hooks)
	}
	if rep.Valid {
		printf(w, "ok\n")
	}
}

// configProblems activates the enabled, trusted plugins in this process and returns, per
// plugin, the problems its Config schema found in its table; tests replace it.
var configProblems = activateForConfigCheck

// configRefused starts the diagnostic of an activation the host refused for its config.
const configRefused = "config refused: "

func activateForConfigCheck(ctx context.Context, stderr io.Writer) (problems map[string][]string, err error) {
	s, _, err := openPlugins()
	if err != nil {
		return nil, err
	}
	recs, err := s.List()
	if err != nil {
		return nil, pluginErr(err)
	}
	if !slices.ContainsFunc(recs, func(r *plugins.Record) bool { return plugins.Runnable(s.Status(r)) }) {
		return nil, nil
	}
	m, err := openForCommand(ctx, stderr, "")
	if err != nil {
		return nil, err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	failed, rest := core.PluginErrors(m.Reconcile(ctx))
	if rest != nil {
		return nil, callErr(rest)
	}
	problems = map[string][]string{}
	for _, f := range failed {
		if r, ok := strings.CutPrefix(f.Reason, configRefused); ok {
			problems[f.Plugin] = strings.Split(r, "; ")
		}
	}
	return problems, nil
}

// schemaCheck adds to rep what each enabled plugin's Config schema refuses, including the
// required keys of a plugin that has no table.
func schemaCheck(ctx context.Context, stderr io.Writer, rep *ConfigCheck) error {
	problems, err := configProblems(ctx, stderr)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(problems))
	for id := range problems {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		found := false
		for i := range rep.Plugins {
			if rep.Plugins[i].ID == id {
				rep.Plugins[i].SchemaProblems, found = problems[id], true
			}
		}
		if !found {
			rep.Plugins = append(rep.Plugins, ConfigCheckPlugin{ID: id, Installed: true, Keys: []string{}, SchemaProblems: problems[id]})
		}
		rep.Valid = false
	}
	return nil
}

// quotedList writes ss as TOML strings separated by commas.
func quotedList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
