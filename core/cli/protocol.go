package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cwx-dev/cwx/core/protocol"
	"github.com/spf13/cobra"
)

// ProtocolCheckReport is the --json output of `cwx protocol check`.
type ProtocolCheckReport struct {
	Files      []ProtocolCheckFile `json:"files"`
	Total      int                 `json:"total"`      // files named on the command line
	Agree      int                 `json:"agree"`      // files whose verdicts match valid/error on every tier checked
	Disagree   int                 `json:"disagree"`   // files with at least one verdict that does not match
	Unreadable int                 `json:"unreadable"` // files that could not be read or are not corpus cases
}

// ProtocolCheckFile is the outcome for one corpus file.
type ProtocolCheckFile struct {
	Path          string                `json:"path"`
	Expected      string                `json:"expected,omitempty"`       // "valid" or "invalid", as the file says
	ExpectedError string                `json:"expected_error,omitempty"` // the substring an invalid case's reason must contain
	Unreadable    string                `json:"unreadable,omitempty"`     // why the file could not be checked
	Agrees        bool                  `json:"agrees"`
	Results       []ProtocolCheckResult `json:"results,omitempty"` // one per tier checked
}

// ProtocolCheckResult is the verdict on one tier.
type ProtocolCheckResult struct {
	Tier    string `json:"tier"`
	Verdict string `json:"verdict"`          // "accepted" or "refused"
	Reason  string `json:"reason,omitempty"` // the refusal reason
	Agrees  bool   `json:"agrees"`
	Detail  string `json:"detail,omitempty"` // what disagrees
}

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "protocol",
			Short: "Inspect the CWX1 JSON-RPC protocol between the core and the extension host",
		}
		cmd.AddCommand(newProtocolCheckCommand())
		return cmd
	})
}

func newProtocolCheckCommand() *cobra.Command {
	var (
		tier   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "check [--tier plugin|builtin] [--json] FILE...",
		Short: "Check protocol corpus files (or frames captured from a host) against the core's parser",
		Long: `Each FILE is a corpus case: {"direction": "host_to_core"|"core_to_host", "valid": bool,
"tier"?: ..., "answers"?: "<method>", "error"?: "<substring>", "frame": {...} | "raw_base64": "..."}.
The frame is parsed as its receiver would parse it, on the case's tier, or on --tier, or on
both tiers. Exit status 3 when any verdict disagrees with "valid" (or a refusal reason lacks
"error"), 2 when a file cannot be read.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return exitf(ExitUsage, "name at least one corpus file, e.g. cwx protocol check testdata/protocol/*.json")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var tiers []protocol.Tier
			switch tier {
			case "":
			case string(protocol.TierPlugin), string(protocol.TierBuiltin):
				tiers = []protocol.Tier{protocol.Tier(tier)}
			default:
				return exitf(ExitUsage, "--tier must be plugin or builtin, not %q", tier)
			}
			report := checkProtocolFiles(args, tiers)
			out := cmd.OutOrStdout()
			if asJSON {
				if err := writeJSON(out, report); err != nil {
					return err
				}
			} else {
				printProtocolReport(out, report)
			}
			switch {
			case report.Unreadable > 0:
				return exitf(ExitUsage, "%d of %d files could not be read as protocol cases", report.Unreadable, report.Total)
			case report.Disagree > 0:
				return exitf(ExitInvalid, "%d of %d files disagree with their expected verdict", report.Disagree, report.Total)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tier, "tier", "", "check on this tier only (plugin or builtin) when a file names no tier")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON report")
	return cmd
}

func checkProtocolFiles(paths []string, tiers []protocol.Tier) ProtocolCheckReport {
	report := ProtocolCheckReport{Files: []ProtocolCheckFile{}, Total: len(paths)}
	for _, p := range paths {
		f := checkProtocolFile(p, tiers)
		switch {
		case f.Unreadable != "":
			report.Unreadable++
		case f.Agrees:
			report.Agree++
		default:
			report.Disagree++
		}
		report.Files = append(report.Files, f)
	}
	return report
}

func checkProtocolFile(path string, tiers []protocol.Tier) ProtocolCheckFile {
	f := ProtocolCheckFile{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Unreadable = readError(err)
		return f
	}
	c, err := protocol.ParseCase(data)
	if err != nil {
		f.Unreadable = err.Error()
		return f
	}
	f.Expected, f.ExpectedError = "invalid", c.Error
	if c.Valid {
		f.Expected = "valid"
	}
	if c.Tier == "" && tiers != nil {
		c.Tier = tiers[0]
	}
	f.Agrees = true
	for _, t := range c.Tiers() {
		v := c.Check(t)
		r := ProtocolCheckResult{Tier: string(t), Verdict: "accepted", Reason: v.Reason, Agrees: v.Agrees, Detail: v.Detail}
		if !v.Accepted {
			r.Verdict = "refused"
		}
		f.Agrees = f.Agrees && v.Agrees
		f.Results = append(f.Results, r)
	}
	return f
}

func readError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("cannot read: %v", pe.Err)
	}
	return err.Error()
}

func printProtocolReport(w io.Writer, r ProtocolCheckReport) {
	for _, f := range r.Files {
		if f.Unreadable != "" {
			printf(w, "ERROR %s: %s\n", f.Path, f.Unreadable)
			continue
		}
		mark := "ok   "
		if !f.Agrees {
			mark = "FAIL "
		}
		printf(w, "%s %s (expected %s)\n", mark, f.Path, f.Expected)
		for _, res := range f.Results {
			line := "      " + res.Tier + ": " + res.Verdict
			if res.Reason != "" {
				line += ": " + res.Reason
			}
			if !res.Agrees {
				line += "  <-- " + res.Detail
			}
			printf(w, "%s\n", line)
		}
	}
	printf(w, "%d files: %d agree, %d disagree, %d unreadable\n", r.Total, r.Agree, r.Disagree, r.Unreadable)
}
