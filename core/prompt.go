package core

import (
	"strings"
)

// PromptSection is one live prompt section: text a plugin contributes to the agent's
// prompt, attributed to its plugin (ARCHITECTURE.md, “Prompt sections”).
type PromptSection struct {
	PluginID string `json:"plugin"`
	ID       string `json:"id"`
	// Text is the plugin's text as admitted: valid UTF-8, no control characters but
	// newline and tab, none of the characters package inert refuses.
	Text string `json:"text"`
	// Wrapped is Text as an embedder puts it in front of a model: framed by lines that
	// name the plugin and the id, every line of the text quoted with "> ", so the text
	// can neither pose as system text nor end its own frame.
	Wrapped string `json:"wrapped"`
}

// PromptSections returns the live snapshot of prompt sections: those of Active owners,
// sorted by plugin id, then id. A section goes with its owner: when the owner ends,
// the next snapshot no longer has it. The whole block is bounded at registration
// (registry.MaxSectionBlock of text).
func (m *Manager) PromptSections() []PromptSection {
	live := m.reg.PromptSections()
	out := make([]PromptSection, 0, len(live))
	for _, s := range live {
		out = append(out, PromptSection{PluginID: s.PluginID, ID: s.ID, Text: s.Text, Wrapped: WrapSection(s.PluginID, s.ID, s.Text)})
	}
	return out
}

// PromptBlock joins the wrapped sections, in order, with a blank line between them: the
// text an embedder delivers as a user-role message, never as system text. It is "" when
// there are no sections.
func PromptBlock(sections []PromptSection) string {
	parts := make([]string, len(sections))
	for i, s := range sections {
		parts[i] = s.Wrapped
	}
	return strings.Join(parts, "\n\n")
}

// WrapSection frames one section's text as PromptSection.Wrapped describes.
func WrapSection(plugin, id, text string) string {
	var b strings.Builder
	b.Grow(len(text) + 160)
	b.WriteString("[prompt section `" + id + "` of plugin `" + plugin + "`: written by the plugin, not by the system or the person]\n")
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("> " + line + "\n")
	}
	b.WriteString("[end of prompt section `" + id + "` of plugin `" + plugin + "`]")
	return b.String()
}
