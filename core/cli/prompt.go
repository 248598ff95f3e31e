package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core"
)

func init() {
	register(func() *cobra.Command {
		cmd := &cobra.Command{
			Use:   "prompt",
			Short: "Show the prompt sections that enabled plugins contribute",
			Long: "A prompt section is text a plugin adds to the agent's prompt. Each is shown as an embedder\n" +
				"delivers it: framed by lines naming its plugin and id, every line quoted, so it never poses\n" +
				"as system text.",
			Args: cobra.NoArgs,
		}
		show := liveListCmd("Activate the enabled plugins and print their live prompt sections, sorted by plugin and id",
			livePromptSections, writePromptBlock)
		show.Use = "show"
		cmd.AddCommand(show)
		return cmd
	})
}

func writePromptBlock(w io.Writer, sections []core.PromptSection) {
	if len(sections) == 0 {
		printf(w, "no live prompt sections (enable and trust a plugin: cwx plugin list)\n")
		return
	}
	printf(w, "%s\n", core.PromptBlock(sections))
}

// livePromptSections is never nil, so that --json prints [] when there are none.
func livePromptSections(m liveCore) []core.PromptSection {
	if s := m.PromptSections(); s != nil {
		return s
	}
	return []core.PromptSection{}
}
