package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/skills"
)

// The skills the cwx binary offers plugins (core.Options.Skills; core/services doc.go, “Agent
// services”) are those of two roots: the workspace's own, then the home's. The first root
// wins a repeated name, so a project's skill stands in for a personal one of that name.
const (
	workspaceSkillsDir = ".cwx/skills" // under the workspace
	homeSkillsDir      = "skills"      // under $CWX_HOME
)

// cliSkills is the Skills every command of the binary gives its Manager: the roots of
// workspace (the command's --workspace; "" is the working directory) and of the home.
// A root that does not exist is skipped by the core, so neither needs to.
func cliSkills(workspace string) core.SkillsRoots {
	var roots core.SkillsRoots
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	if workspace != "" {
		roots = append(roots, filepath.Join(workspace, filepath.FromSlash(workspaceSkillsDir)))
	}
	if home, err := config.Home(); err == nil {
		roots = append(roots, filepath.Join(home, homeSkillsDir))
	}
	return roots
}

// SkillsListResult is `cwx skills list --json`: the roots looked at, in order, the skills
// admitted (what a plugin's `skills.list()` gets) and each candidate refused with why.
type SkillsListResult struct {
	Roots   []string            `json:"roots"`
	Skills  []core.Skill        `json:"skills"`
	Refused []core.SkillProblem `json:"refused"`
}

func init() {
	register(func() *cobra.Command {
		group := &cobra.Command{Use: "skills", Short: "List the skills plugins are offered"}
		var asJSON bool
		var workspace string
		list := &cobra.Command{
			Use:   "list",
			Short: "List the skills under the workspace's .cwx/skills and $CWX_HOME/skills, and those refused",
			Long: "Each skill is a folder NAME holding a SKILL.md whose front matter gives its name (the\n" +
				"folder's) and description. The core audits every candidate as it does for a plugin's\n" +
				"skills.list(); a refused one is listed with the reason, and the command exits 3.",
			Args: exactArgs(0),
			RunE: func(cmd *cobra.Command, _ []string) error {
				ws, err := workspaceDir(workspace)
				if err != nil {
					return err
				}
				roots := cliSkills(ws)
				list, refused := skills.Discover(roots)
				res := SkillsListResult{Roots: roots, Skills: nonNil(list), Refused: nonNil(refused)}
				if err := writeReport(cmd.OutOrStdout(), asJSON, res, writeSkills); err != nil {
					return err
				}
				if len(refused) > 0 {
					return &ExitError{Code: ExitInvalid}
				}
				return nil
			},
		}
		list.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
		list.Flags().StringVar(&workspace, "workspace", "", "the workspace whose .cwx/skills is read (default: the current directory)")
		group.AddCommand(list)
		return group
	})
}

// writeSkills prints the admitted skills as a table, then one line per refused candidate.
func writeSkills(w io.Writer, r SkillsListResult) {
	if len(r.Skills) == 0 {
		printf(w, "no skills under %s\n", joinRoots(r.Roots))
	} else {
		tw := newTable(w)
		printf(tw, "NAME\tDESCRIPTION\tPATH\n")
		for _, s := range r.Skills {
			printf(tw, "%s\t%s\t%s\n", s.Name, s.Description, s.Path)
		}
		_ = tw.Flush()
	}
	if len(r.Refused) == 0 {
		return
	}
	printf(w, "\nrefused (fix the SKILL.md, then run `cwx skills list` again):\n")
	for _, p := range r.Refused {
		printf(w, "  %s: %s\n", p.Path, p.Reason)
	}
}

func joinRoots(roots []string) string {
	if len(roots) == 0 {
		return "no root"
	}
	out := roots[0]
	for _, r := range roots[1:] {
		out += " and " + r
	}
	return out
}

// nonNil makes an empty list print as [] in --json.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
