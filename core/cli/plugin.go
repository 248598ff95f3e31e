package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/errdefs"
	"github.com/cwx-dev/cwx/core/npmreg"
	"github.com/cwx-dev/cwx/core/plugins"
)

// pluginEnv is what the plugin commands need from the outside world; tests replace parts.
var pluginEnv = struct {
	// provided returns the package names the JS host provides as singletons.
	provided func() (provided, refused []string, err error)
	now      func() time.Time
	policy   string
}{provided: providedModules, now: time.Now, policy: plugins.PolicyVersion}

// openPlugins opens the plugin store of $CWX_HOME and reads config.toml.
func openPlugins() (*plugins.Store, *config.Config, error) {
	home, err := config.Home()
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	provided, refused, err := pluginEnv.provided()
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	s, err := plugins.Open(plugins.Options{Home: home, Provided: provided, Refused: refused, Now: pluginEnv.now, Policy: pluginEnv.policy})
	if err != nil {
		return nil, nil, &ExitError{Code: ExitInternal, Err: err}
	}
	cfg, err := config.LoadHome(home)
	if err != nil {
		return nil, nil, exitf(ExitInvalid, "%w (run `cwx config check`)", err)
	}
	return s, cfg, nil
}

// pluginErr maps a core/plugins error to its exit status (core/cli doc.go, “CLI conventions”).
func pluginErr(err error) error {
	var ee *ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, plugins.ErrBadToken):
		return &ExitError{Code: ExitDenied, Err: err}
	case errors.Is(err, plugins.ErrNotInstalled):
		// a name that is not there, as an unknown tool, command or `logs` plugin is
		return &ExitError{Code: ExitUnavailable, Err: err}
	case errors.Is(err, plugins.ErrRefused), errors.Is(err, plugins.ErrManifest),
		errors.Is(err, plugins.ErrContentChanged),
		errors.Is(err, plugins.ErrCapabilitiesChanged), errors.Is(err, errdefs.ErrCorrupt):
		return &ExitError{Code: ExitInvalid, Err: err}
	case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
		return &ExitError{Code: ExitUsage, Err: err}
	default:
		return &ExitError{Code: ExitInternal, Err: err}
	}
}

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "plugin",
			Short: "Install, review, trust, enable and inspect plugins",
			Long: "A plugin is installed disabled and untrusted. Review it, trust it with the token the\n" +
				"review prints, then enable it. Changed bytes or a changed activation policy stop it\n" +
				"until it is reviewed again.",
			Args: cobra.NoArgs,
		}
		cmd.AddCommand(pluginInstallCmd(), pluginReviewCmd(), pluginTrustCmd(),
			pluginToggleCmd("enable", "Enable a plugin (it runs once it is also trusted)", (*plugins.Store).Enable),
			pluginToggleCmd("disable", "Disable a plugin; running cwx processes drop it within a second", (*plugins.Store).Disable),
			pluginToggleCmd("untrust", "Drop a plugin's trust receipt", (*plugins.Store).Untrust),
			pluginRemoveCmd(), pluginListCmd(), pluginShowCmd(), pluginReloadCmd(),
			pluginOutdatedCmd(), pluginUpdateCmd(), pluginMarketplaceCmd(), pluginImportCmd())
		cmd.AddCommand(pluginAuthorCmds()...)
		return cmd
	})
}

// PluginInstallResult is the --json output of `cwx plugin install`.
type PluginInstallResult struct {
	ID        string `json:"id"`
	Version   string `json:"version"`
	Closure   string `json:"closure_sha256"`
	Files     int    `json:"files"`
	Bytes     int64  `json:"bytes"`
	StageDir  string `json:"stage_dir"`
	Unchanged bool   `json:"unchanged"` // the same bytes were already installed
	Updated   bool   `json:"updated"`   // new bytes under an installed id: review again
	Status    string `json:"status"`
	Source    string `json:"source"`
	// Integrity and Deprecated are set for an npm install.
	Integrity  string `json:"integrity,omitempty"`
	Deprecated string `json:"deprecated,omitempty"`
	// Warnings are what fails at run time and can be seen now: TypeScript that Node's type
	// stripping refuses (typeStripNotes).
	Warnings []string `json:"warnings,omitempty"`
}

func pluginInstallCmd() *cobra.Command {
	var asJSON bool
	var fromLock, pin string
	cmd := &cobra.Command{
		Use:   "install PATH|TARBALL|npm:NAME[@VERSION|RANGE|TAG]|NAME@MARKETPLACE | --from-lock FILE",
		Short: "Stage a plugin folder, .tgz or npm package pinned by its integrity (never runs scripts)",
		Long: "install stages a folder or a .tgz as it is, or resolves npm:NAME[@VERSION|RANGE|TAG] from the\n" +
			"registry ([install] npm_registry in config.toml, else registry= in ~/.npmrc, else npm's\n" +
			"default), checks the tarball's sha512 integrity before unpacking it, and installs it the\n" +
			"same way. --from-lock FILE installs every plugin of a plugins.lock with the same bytes.",
		Args: func(cmd *cobra.Command, args []string) error {
			if fromLock != "" {
				return exactArgs(0)(cmd, args)
			}
			return exactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, cfg, err := openPlugins()
			if err != nil {
				return err
			}
			if fromLock != "" {
				return installFromLock(cmd, s, cfg, fromLock, asJSON)
			}
			if pin != "" && !npmreg.IsSpec(args[0]) {
				return exitf(ExitUsage, "--integrity pins an npm:NAME@VERSION install; a local tarball is what you already have")
			}
			stopProgress := startProgress(cmd.ErrOrStderr(), "installing "+args[0])
			var res *plugins.InstallResult
			var origin *plugins.Origin
			if npmreg.IsSpec(args[0]) {
				res, origin, err = installNpm(cmd.Context(), s, cfg, args[0], pin)
			} else if entry, k, ok := marketplaceRef(args[0]); ok {
				res, err = installMarketplace(cmd.Context(), s, marketEntry{Source: k.Source, Repo: k.Repo, Name: entry, Market: k.Name, Commit: k.Commit}, "")
			} else {
				res, err = s.Install(args[0])
				err = pluginErr(err)
			}
			stopProgress()
			if err != nil {
				return err
			}
			r, err := s.Get(res.ID)
			if err != nil {
				return pluginErr(err)
			}
			out := PluginInstallResult{ID: res.ID, Version: res.Version, Closure: res.Closure, Files: res.Files, Bytes: res.Bytes,
				StageDir: res.StageDir, Unchanged: res.Unchanged, Updated: res.Updated, Status: s.Status(r), Source: r.Source}
			if origin != nil {
				out.Integrity, out.Deprecated = origin.Integrity, origin.Deprecated
			}
			out.Warnings = typeStripNotes(cmd.Context(), s.Layout().Home, cfg, res.StageDir)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			switch {
			case res.Unchanged:
				printf(w, "%s %s is already installed with these bytes (%s)\n", res.ID, res.Version, out.Status)
			case res.Updated:
				printf(w, "updated %s to %s: new bytes need a new review (%s)\n", res.ID, res.Version, out.Status)
			default:
				printf(w, "installed %s %s, disabled and not trusted\n", res.ID, res.Version)
			}
			printf(w, "closure sha256:%s (%d files, %d bytes)\n", res.Closure, res.Files, res.Bytes)
			if origin != nil {
				printf(w, "from %s, tarball %s\n", r.Source, origin.Integrity)
				if origin.Deprecated != "" {
					printf(w, "DEPRECATED by its publisher: %s\n", oneLine(stripEscapes(origin.Deprecated)))
				}
			}
			for _, n := range out.Warnings {
				printf(w, "warning: %s\n", oneLine(stripEscapes(n)))
			}
			if !plugins.Runnable(out.Status) {
				printf(w, "next: cwx plugin review %s\n", shellQuote(res.ID))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	cmd.Flags().StringVar(&pin, "integrity", "", "with npm:NAME@VERSION, the sha512 integrity the tarball must have (besides the registry's own)")
	cmd.Flags().StringVar(&fromLock, "from-lock", "", "install every plugin a plugins.lock FILE records, with the same bytes")
	return cmd
}

func pluginReviewCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "review ID",
		Short: "Show what a plugin is and print the token that trusts it",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, cfg, err := openPlugins()
			if err != nil {
				return err
			}
			rv, err := s.Review(args[0])
			if err != nil {
				return pluginErr(err)
			}
			rv.Grants = plugins.ViewGrants(rv.ID, rv.Requested, cfg.Plugin(rv.ID).Grants)
			rv.Notes = append(rv.Notes, typeStripNotes(cmd.Context(), s.Layout().Home, cfg, s.Layout().StageDir(rv.ID, rv.Closure))...)
			note := unsandboxedNote(s.Layout().Home)
			if note == "" && rv.Claude == nil { // sandboxed: the warning says what is true
				rv.Warning = "Runs JavaScript " + pluginContainment(s.Layout().Home, rv.ID)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, rv, func(w io.Writer, rv *plugins.Review) { writeReview(w, rv, note) })
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// writeReview prints a review; sandboxNote, when not "", says the plugin tier runs
// unsandboxed (ARCHITECTURE.md, “Sandbox”).
func writeReview(w io.Writer, rv *plugins.Review, sandboxNote string) {
	printf(w, "plugin   %s %s\n", rv.ID, rv.Version)
	if rv.Description != "" {
		printf(w, "about    %s\n", oneLine(rv.Description))
	}
	printf(w, "source   %s (%s)\n", rv.Source, rv.Kind)
	if rv.Integrity != "" {
		printf(w, "tarball  %s\n", rv.Integrity)
	}
	if rv.Deprecated != "" {
		printf(w, "DEPRECATED by its publisher: %s\n", oneLine(stripEscapes(rv.Deprecated)))
	}
	printf(w, "closure  sha256:%s\n", rv.Closure)
	printf(w, "files    %d (%d bytes)\n", rv.Files, rv.Bytes)
	if rv.Claude != nil {
		writeClaudeReview(w, rv.Claude)
	} else {
		printf(w, "entries:\n")
	}
	for _, e := range rv.Entries {
		inj := "not statically visible"
		if e.Injects != nil {
			inj = strings.Join(e.Injects, ", ")
			if inj == "" {
				inj = "nothing"
			}
		}
		printf(w, "  %s: %s\n    sha256:%s\n    injects: %s\n", e.Path, e.Display, e.SHA256, inj)
	}
	switch {
	case rv.Claude != nil:
	case len(rv.Peers) == 0:
		printf(w, "peers    none\n")
	default:
		printf(w, "peers:\n")
		for _, p := range rv.Peers {
			mark := "missing (not provided by cwx; importing it fails)"
			switch {
			case p.Provided:
				mark = "provided by cwx"
			case len(p.ProvidedSubpaths) > 0:
				mark = "partly provided by cwx: only " + strings.Join(p.ProvidedSubpaths, ", ") + " (other imports fail)"
			}
			printf(w, "  %s %s: %s\n", p.Name, p.Range, mark)
		}
	}
	for _, n := range rv.Notes {
		printf(w, "note     %s\n", n)
	}
	writeGrants(w, rv.Grants)
	if rv.Claude == nil {
		printf(w, "install scripts: none (packages with install scripts are refused)\n")
	}
	printf(w, "%s.\n", rv.Warning)
	if sandboxNote != "" {
		printf(w, "sandbox  %s\n", sandboxNote)
	}
	printf(w, "policy   %s\n", rv.Policy)
	printf(w, "compat   sha256:%s (the DSH compatibility table; part of the token)\n", rv.Compatibility)
	if len(rv.Services) > 0 {
		printf(w, "services:\n")
		for _, sv := range rv.Services {
			printf(w, "  %s: %s\n", sv.Name, sv.Detail)
		}
	}
	if rv.Dev {
		printf(w, "trust    dev: a `cwx plugin dev` session's receipt, which ends with the session\n")
	}
	printf(w, "\nTo trust exactly these bytes: cwx plugin trust %s --token %s\n", shellQuote(rv.ID), rv.Token)
}

// writeGrants prints what a plugin asks for and is granted beyond its sandbox.
func writeGrants(w io.Writer, g *plugins.GrantsView) {
	if g == nil {
		return
	}
	if r := g.Requested; r != nil {
		for _, p := range r.Read {
			printf(w, "asks     read %s\n", p)
		}
		for _, o := range r.Network {
			printf(w, "asks     network %s\n", o)
		}
	}
	for _, p := range g.Read {
		printf(w, "granted  read %s (read-only)\n", p)
	}
	for _, o := range g.Network {
		printf(w, "granted  network %s\n", o)
	}
	for _, n := range g.Notes {
		printf(w, "grants   %s\n", n)
	}
}

// writeClaudeReview prints what a Claude Code plugin would run: each hook command (and
// whether it fetches code the closure does not cover), each command file, each MCP server
// (never started), and what cwx does not run.
func writeClaudeReview(w io.Writer, cr *plugins.ClaudeReview) {
	printf(w, "covers   the whole folder (hooks, their scripts, commands): a changed byte stops the plugin until it is reviewed again\n")
	printf(w, "hooks:   %d, run by the builtin hooks module with CLAUDE_PLUGIN_ROOT the staged folder, unsandboxed, on every matching call\n", len(cr.Hooks))
	for _, h := range cr.Hooks {
		m := h.Matcher
		if m == "" {
			m = "*"
		}
		printf(w, "  %s %s (%ds): %s\n", h.Event, oneLine(m), h.TimeoutS, oneLine(h.Command))
		if h.Fetches != "" {
			printf(w, "    WARNING: "+plugins.FetchNotCovered+"\n", oneLine(h.Fetches))
		}
	}
	for _, n := range cr.HookNotes {
		printf(w, "  note: %s\n", n)
	}
	printf(w, "commands: %d, each a prompt (nothing in it runs)\n", len(cr.Commands))
	for _, c := range cr.Commands {
		line := "/" + c.Name
		if c.ArgumentHint != "" {
			line += " " + oneLine(c.ArgumentHint)
		}
		if c.Description != "" {
			line += ": " + oneLine(c.Description)
		}
		printf(w, "  %s (%s)\n", line, c.File)
		for _, n := range c.Notes {
			printf(w, "    note: %s\n", n)
		}
	}
	printf(w, "mcp servers: %d\n", len(cr.MCP))
	for _, m := range cr.MCP {
		env := ""
		if len(m.Env) > 0 {
			env = " (sets " + strings.Join(m.Env, ", ") + ")"
		}
		printf(w, "  %s: %s%s: %s\n", m.Name, oneLine(m.Line()), env, m.Status)
	}
	for _, n := range cr.NotRun {
		printf(w, "not run  %s\n", n)
	}
}

func pluginTrustCmd() *cobra.Command {
	var token string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "trust ID --token TOKEN",
		Short: "Trust a reviewed plugin (the token binds trust to the reviewed bytes)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if token == "" {
				return exitf(ExitUsage, "trust needs --token: run `cwx plugin review %s` and copy the token it prints", shellQuote(args[0]))
			}
			s, _, err := openPlugins()
			if err != nil {
				return err
			}
			if err := s.Trust(args[0], token); err != nil {
				return pluginErr(err)
			}
			r, err := s.Get(args[0])
			if err != nil {
				return pluginErr(err)
			}
			out := stateChange("trust", s, r)
			if !r.Enabled {
				out.Next = "cwx plugin enable " + shellQuote(r.ID)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, out, func(w io.Writer, c PluginStateChange) {
				writeStatus(w, "trusted")
				printf(w, " %s %s (closure sha256:%s)\n", c.ID, c.Version, c.Closure)
				if c.Next != "" {
					printf(w, "next: %s\n", c.Next)
				}
			})
		},
	}
	// The usage names no command in backquotes: pflag would show the quoted text as the
	// flag's type ("--token cwx plugin review ID").
	cmd.Flags().StringVar(&token, "token", "", "the token printed by cwx plugin review ID (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func pluginToggleCmd(verb, short string, op func(*plugins.Store, string) error) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   verb + " ID",
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, _, err := openPlugins()
			if err != nil {
				return err
			}
			if err := op(s, args[0]); err != nil {
				return pluginErr(err)
			}
			r, err := s.Get(args[0])
			if err != nil {
				return pluginErr(err)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, stateChange(verb, s, r), func(w io.Writer, c PluginStateChange) {
				printf(w, "%s: ", c.ID)
				writeStatus(w, c.Status)
				printf(w, "\n")
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

func pluginRemoveCmd() *cobra.Command {
	var purge, asJSON bool
	cmd := &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a plugin's staged copies and record (its data directory is kept)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, _, err := openPlugins()
			if err != nil {
				return err
			}
			data := s.Layout().DataDir(args[0])
			out := PluginStateChange{ID: args[0], Action: "remove", Status: "removed"}
			if r, err := s.Get(args[0]); err == nil {
				out.Version, out.Closure = r.Version, r.Closure
			}
			if err := s.Remove(args[0], purge); err != nil {
				return pluginErr(err)
			}
			if !purge {
				if _, err := os.Stat(data); err == nil {
					out.KeptDataDir = data
				}
			}
			return writeReport(cmd.OutOrStdout(), asJSON, out, func(w io.Writer, c PluginStateChange) {
				writeStatus(w, "removed")
				printf(w, " %s\n", c.ID)
				if c.KeptDataDir != "" {
					printf(w, "kept its data directory %s (--purge-data deletes it)\n", c.KeptDataDir)
				}
			})
		},
	}
	cmd.Flags().BoolVar(&purge, "purge-data", false, "also delete the plugin's data directory")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// exactArgs is cobra.ExactArgs with the usage exit status.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (usage: cwx %s)", err, cmd.UseLine()[len("cwx "):])}
		}
		return nil
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@/._-+:=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// oneLine strips what could drive the terminal (inert.Strip) and turns newlines and tabs
// into spaces, so plugin-written text stays on its line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, stripEscapes(s))
}

func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }
