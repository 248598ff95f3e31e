package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/dshbundle"
	"github.com/cwx-dev/cwx/core/plugins"
)

// PluginImportResult is the --json output of `cwx plugin import dsh`: the composition, and
// with --hash what was installed.
type PluginImportResult struct {
	*dshbundle.Composition
	Sources   []string               `json:"sources"` // the bundle packages, as given
	Installed []PluginImportedPlugin `json:"installed,omitempty"`
}

// PluginImportedPlugin is one plugin package of an import.
type PluginImportedPlugin struct {
	dshbundle.Installed
	Install *PluginInstallResult `json:"install,omitempty"`
}

func pluginImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Preview and install another harness's plugin bundle",
		Args:  cobra.NoArgs,
	}
	var asJSON bool
	var hash string
	dsh := &cobra.Command{
		Use:   "dsh PATH|TARBALL... [--hash sha256:H]",
		Short: "Preview a DSH bundle package's composition; --hash installs exactly that composition",
		Long: "dsh reads a DeepSeek Harness bundle package (a folder or a .tgz whose package.json names\n" +
			"its Cordis patch YAML in dsh.bundle.patch, one path or a list), composes it as DSH does\n" +
			"(insert, override by id, groups, disabled ancestry; several packages are layered in order,\n" +
			"as a DSH profile's bundles) and lists every row: the plugin, where\n" +
			"its code comes from, its config and group, whether it is disabled. It ends with the\n" +
			"composition's hash. With --hash it resolves the package again and, only if the\n" +
			"composition still has that hash, installs each plugin the bundle carries, disabled and\n" +
			"not trusted: review, trust and enable each as any plugin. Nothing runs unreviewed.",
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, _, err := openPlugins()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if hash == "" {
				c, err := dshbundle.Preview(s, args...)
				if err != nil {
					return importErr(err)
				}
				out := PluginImportResult{Composition: c, Sources: args}
				return writeReport(w, asJSON, out, func(w io.Writer, out PluginImportResult) {
					printComposition(w, out.Composition, out.Sources)
					quoted := make([]string, len(args))
					for i, a := range args {
						quoted[i] = shellQuote(a)
					}
					printf(w, "To install exactly this composition: cwx plugin import dsh %s --hash sha256:%s\n", strings.Join(quoted, " "), c.SHA256)
				})
			}
			c, done, err := dshbundle.Install(s, hash, args...)
			if err != nil {
				return importErr(err)
			}
			out := PluginImportResult{Composition: c, Sources: args}
			for _, d := range done {
				p := PluginImportedPlugin{Installed: d}
				if d.Result != nil {
					status := ""
					if r, err := s.Get(d.Result.ID); err == nil {
						status = s.Status(r)
					}
					p.Install = &PluginInstallResult{ID: d.Result.ID, Version: d.Result.Version, Closure: d.Result.Closure,
						Files: d.Result.Files, Bytes: d.Result.Bytes, StageDir: d.Result.StageDir, Unchanged: d.Result.Unchanged,
						Updated: d.Result.Updated, Status: status}
				}
				out.Installed = append(out.Installed, p)
			}
			return writeReport(w, asJSON, out, printImport)
		},
	}
	dsh.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	dsh.Flags().StringVar(&hash, "hash", "", "install the composition only if it still has this hash (the preview's sha256:…)")
	cmd.AddCommand(dsh)
	return cmd
}

func importErr(err error) error {
	switch {
	case errors.Is(err, dshbundle.ErrNotBundle):
		return &ExitError{Code: ExitInvalid, Err: err}
	case errors.As(err, new(*dshbundle.ParseError)):
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	return pluginErr(err)
}

// printComposition lists every row of the composition: the review of a bundle.
func printComposition(w io.Writer, c *dshbundle.Composition, srcs []string) {
	for i, b := range c.Bundles {
		printf(w, "bundle   %s %s\n", oneLine(b.Name), oneLine(b.Version))
		printf(w, "source   %s (dsh.bundle.patch: %s)\n", srcs[i], oneLine(strings.Join(b.Patches, ", ")))
	}
	counts := map[string]int{}
	disabled := 0
	for _, r := range c.Rows {
		if r.Source != nil {
			counts[r.Source.Kind]++
		}
		if r.Disabled != "" && !r.Group {
			disabled++
		}
	}
	printf(w, "rows     %d (%d bundled, %d installed, %d missing, %d unsupported; %d disabled)\n", len(c.Rows),
		counts[dshbundle.SourceBundled], counts[dshbundle.SourceInstalled], counts[dshbundle.SourceMissing],
		counts[dshbundle.SourceUnsupported], disabled)
	for _, r := range c.Rows {
		indent := strings.Repeat("  ", len(r.Path))
		if r.Group {
			printf(w, "%sgroup %s %s\n", indent, oneLine(r.ID), oneLine(r.Name))
		} else {
			printf(w, "%s%s  %s\n", indent, oneLine(r.ID), oneLine(r.Name))
		}
		pad := indent + "    "
		if len(r.Path) > 1 {
			printf(w, "%sgroup     %s\n", pad, oneLine(strings.Join(r.Path[:len(r.Path)-1], " > ")))
		}
		if s := r.Source; s != nil {
			switch s.Kind {
			case dshbundle.SourceBundled:
				line := "bundled " + s.Rel + ", closure sha256:" + s.Closure
				if len(c.Bundles) > 1 {
					line = "bundled " + s.Rel + " of " + s.Bundle + ", closure sha256:" + s.Closure
				}
				if s.Replaces != "" {
					line += "; replaces the installed sha256:" + s.Replaces[:12] + "…, which runs again only once this is reviewed"
				}
				printf(w, "%ssource    %s\n", pad, oneLine(line))
			case dshbundle.SourceInstalled:
				printf(w, "%ssource    installed %s %s, closure sha256:%s (its code is not replaced)\n", pad, oneLine(s.Package), oneLine(s.Version), s.Closure)
			default:
				printf(w, "%ssource    %s: %s\n", pad, s.Kind, oneLine(s.Why))
			}
		}
		if r.Config != nil {
			printf(w, "%sconfig    %s\n", pad, oneLine(compactJSON(r.Config)))
		}
		if r.Disabled != "" {
			printf(w, "%sdisabled  %s\n", pad, oneLine(r.Disabled))
		}
		if r.Other != nil {
			printf(w, "%sother     %s\n", pad, oneLine(compactJSON(r.Other)))
		}
		for _, n := range r.Notes {
			printf(w, "%snote      %s\n", pad, oneLine(n))
		}
	}
	for _, wn := range c.Warnings {
		b := c.Bundles[wn.Bundle]
		file := b.Patches[wn.Layer]
		if len(c.Bundles) > 1 {
			file = b.Name + " " + file
		}
		printf(w, "warning  %s patch %d: %s (skipped, as DSH skips it)\n", oneLine(file), wn.Patch, oneLine(wn.Text))
	}
	printf(w, "composition sha256:%s\n", c.SHA256)
}

func printImport(w io.Writer, out PluginImportResult) {
	c := out.Composition
	names := make([]string, len(c.Bundles))
	for i, b := range c.Bundles {
		names[i] = b.Name + " " + b.Version
	}
	printf(w, "composition sha256:%s of %s, as previewed\n", c.SHA256, oneLine(strings.Join(names, " + ")))
	var next []string
	for _, p := range out.Installed {
		rows := strings.Join(p.Rows, ", ")
		switch {
		case p.Install == nil:
			printf(w, "not installed %s (row %s): %s\n", oneLine(p.Package), oneLine(rows), oneLine(p.Skipped))
		case p.Install.Unchanged:
			printf(w, "%s %s is already installed with these bytes (%s) (row %s)\n", p.Install.ID, p.Install.Version, p.Install.Status, oneLine(rows))
		case p.Install.Updated:
			printf(w, "updated %s to %s: new bytes need a new review (%s) (row %s)\n", p.Install.ID, p.Install.Version, p.Install.Status, oneLine(rows))
		default:
			printf(w, "installed %s %s, disabled and not trusted (row %s)\n", p.Install.ID, p.Install.Version, oneLine(rows))
		}
		if p.Install != nil {
			printf(w, "  closure sha256:%s (%d files, %d bytes)\n", p.Install.Closure, p.Install.Files, p.Install.Bytes)
			if !plugins.Runnable(p.Install.Status) {
				next = append(next, p.Install.ID)
			}
		}
	}
	if snippet := configSnippet(out); snippet != "" {
		printf(w, "the bundle's row config, for config.toml (cwx does not write it):\n%s", snippet)
	}
	for _, id := range next {
		printf(w, "next: cwx plugin review %s\n", shellQuote(id))
	}
}

// configSnippet is the TOML of each installed plugin's row config that config.toml can hold:
// a mapping of plain values (a !!js expression is left to the user).
func configSnippet(out PluginImportResult) string {
	installed := map[string]bool{}
	for _, p := range out.Installed {
		if p.Install != nil {
			installed[p.Install.ID] = true
		}
	}
	var b strings.Builder
	done := map[string]bool{}
	for _, r := range out.Rows {
		if r.Source == nil || !installed[r.Source.Package] || done[r.Source.Package] {
			continue
		}
		m, ok := r.Config.(map[string]any)
		if !ok || len(m) == 0 || strings.Contains(compactJSON(m), `{"!!js":`) {
			continue
		}
		done[r.Source.Package] = true
		var buf bytes.Buffer
		enc := toml.NewEncoder(&buf)
		enc.Indent = ""
		if err := enc.Encode(map[string]any{"plugins": map[string]any{r.Source.Package: map[string]any{"config": integral(m)}}}); err != nil {
			continue
		}
		// the tables above config hold nothing of their own: drop their headers
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "[") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "[") {
				continue
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// integral writes a whole number as a TOML integer, as config.toml gives it to the plugin.
func integral(v any) any {
	return dshbundle.MapTree(v, func(v any) any {
		if x, ok := v.(float64); ok && x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x)
		}
		return v
	})
}

func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
