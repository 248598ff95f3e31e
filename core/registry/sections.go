package registry

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/protocol"
)

// Limits of prompt sections (ARCHITECTURE.md, “Registry rules”).
const (
	MaxSectionText      = 8 << 10 // bytes of one section's text
	MaxSectionsPerOwner = 16
	MaxSectionBlock     = 64 << 10 // bytes of every live section's text together
)

// SectionInfo describes a live prompt section: plugin-authored text, never system text.
type SectionInfo struct {
	ID       string
	PluginID string
	Text     string
	Handle   uint64
	Owner    protocol.OwnerRef
}

// checkSection applies the prompt-section rules that need no lock: the id has the
// command-name grammar; the text is non-empty valid UTF-8 with no control characters but
// newline and tab, none of the characters package inert refuses, at most MaxSectionText.
func checkSection(s protocol.RegisterSpec) (*reg, *Refusal) {
	const kind = "prompt_section"
	id, text := s.Name, s.Description
	if !commandNameRE().MatchString(id) {
		return nil, refuse(kind, id, ErrInvalidSpec, "prompt section id %q must match ^[a-z][a-z0-9_-]{0,63}$ (a lower-case letter, then up to 63 lower-case letters, digits, _ or -)", id)
	}
	switch {
	case strings.TrimSpace(text) == "":
		return nil, refuse(kind, id, ErrInvalidSpec, "prompt section `%s` needs non-empty text", id)
	case len(text) > MaxSectionText:
		return nil, refuse(kind, id, ErrInvalidSpec, "text of prompt section `%s` is %d bytes; the limit is %d", id, len(text), MaxSectionText)
	case !sectionText(text):
		return nil, refuse(kind, id, ErrInvalidSpec, "text of prompt section `%s` must be valid UTF-8 without control characters (newline and tab allowed) or bidi controls", id)
	}
	return &reg{kind: protocol.KindPromptSection, name: id, key: id, desc: text}, nil
}

func sectionText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if (unicode.IsControl(c) && c != '\n' && c != '\t') || inert.Refused(c) {
			return false
		}
	}
	return true
}

// placeSectionLocked enters a prompt section for o against the caps: a section with the
// same id of the same owner is replaced under a new handle; ids of different owners never
// clash.
//
// +checklocks:r.mu
func (r *Registry) placeSectionLocked(o *owner, g *reg) (uint64, error) {
	const kind = "prompt_section"
	var prev *reg
	count, block := 0, 0
	for _, s := range r.byHandle {
		if s.kind != protocol.KindPromptSection || !s.owner.state.Live() {
			continue
		}
		if s.owner == o {
			count++
			if s.key == g.key {
				prev = s
			}
		}
		block += len(s.desc)
	}
	if prev != nil {
		count--
		block -= len(prev.desc)
	}
	if count >= MaxSectionsPerOwner {
		return 0, refuse(kind, g.name, ErrLimit, "plugin `%s` already has %d prompt sections, the limit per plugin", o.ref.PluginID, MaxSectionsPerOwner)
	}
	if block+len(g.desc) > MaxSectionBlock {
		return 0, refuse(kind, g.name, ErrLimit, "prompt section `%s` would make the prompt sections %d bytes; the limit for the whole block is %d", g.name, block+len(g.desc), MaxSectionBlock)
	}
	if prev != nil {
		r.dropLocked(prev)
		delete(o.regs, prev.handle)
	}
	r.handle++
	g.handle, g.owner = r.handle, o
	r.addLocked(g)
	return g.handle, nil
}

// PromptSections lists the prompt sections of Active owners, sorted by plugin id, then id.
func (r *Registry) PromptSections() []SectionInfo {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []SectionInfo
	for _, g := range r.byHandle {
		if g.kind == protocol.KindPromptSection && g.owner.state == Active {
			out = append(out, SectionInfo{ID: g.name, PluginID: g.owner.ref.PluginID, Text: g.desc, Handle: g.handle, Owner: g.owner.ref})
		}
	}
	slices.SortFunc(out, func(a, b SectionInfo) int {
		if c := strings.Compare(a.PluginID, b.PluginID); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
