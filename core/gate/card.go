package gate

import (
	"fmt"
	"strings"
)

// MaxCardInput bounds the input shown on a card; the key always covers all of it.
const MaxCardInput = 4096

// Card is the approval card the core composes for a gated call. Nothing on
// it comes from the plugin's own description of itself.
type Card struct {
	Key string // the approval key "allow for session" remembers
	// ToolKey is the key AllowToolForSession remembers (any input to this tool of this
	// plugin build, from this origin); "" on a Forced card, which offers no session grant.
	ToolKey string
	// ToolChoice names that choice: "allow `<tool>` from `<plugin>` at this exact version
	// for the session"; "" when ToolKey is.
	ToolChoice string
	PluginID   string // the tool's plugin; for a core/call, the plugin that asks
	Tool       string
	Origin     Origin // where the tool comes from
	Subject    string // the call as refusals name it (Request.Subject)
	Title      string // "Extension tool `<name>` from plugin `<plugin>` (<its containment>)"
	Input      string // the canonical input, cut at MaxCardInput bytes
	Shared     string // "runs alongside N other plugins in one process", or ""
	Forced     bool   // asked even under auto; "allow for session" is not remembered
	// Dev says the tool's plugin runs from a `cwx plugin dev` session (Request.Dev): the
	// card is Forced for that reason alone unless Requirement is Forced too.
	Dev bool
	// Requirement is the request's own (Forced: the native shell, a hook's ask).
	Requirement Requirement
	// Notes are the pre-execute hooks' asks and annotations, each naming its plugin.
	Notes []string
	// Diff is the change a file write would make (Request.Diff), or "".
	Diff string
}

// NewCard composes the card of a call whose canonical input is canon.
func NewCard(req Request, key string, canon []byte) Card {
	c := Card{
		Key:         key,
		PluginID:    req.PluginID,
		Tool:        req.Tool,
		Origin:      req.Origin(),
		Subject:     req.Subject(),
		Title:       fmt.Sprintf("Extension tool `%s` from plugin `%s` (%s)", req.Tool, req.PluginID, containment(req)),
		Forced:      req.Requirement == Forced || req.Dev,
		Dev:         req.Dev,
		Requirement: req.Requirement,
		Notes:       append([]string(nil), req.Notes...),
		Diff:        req.Diff,
	}
	switch req.Origin() {
	case OriginNative:
		c.Title = fmt.Sprintf("Native tool `%s` (runs in cwx with your permissions)", req.Tool)
	case OriginBuiltin:
		c.Title = fmt.Sprintf("Tool `%s` of builtin module `%s` (cwx's own JavaScript, runs with your permissions)", req.Tool, req.PluginID)
	case OriginMCP:
		c.Title = fmt.Sprintf("Tool `%s` of MCP server `%s` (a program of your config.toml, unsandboxed, runs with your permissions)", req.Tool, strings.TrimPrefix(req.PluginID, "mcp:"))
	}
	if from := req.Caller; from != nil {
		// Composed by the core from the ticket's row, never from what the host says.
		c.Title = fmt.Sprintf("Requested by `extension:%s` from inside its tool `%s` (core/call): core tool `%s`", from.PluginID, from.Tool, req.Tool)
		if req.AgentService {
			c.Title = fmt.Sprintf("Requested by `extension:%s` from inside its tool `%s` (core/call): the agent's service `%s`", from.PluginID, from.Tool, req.Tool)
		}
	}
	if c.ToolKey = req.toolKey(); c.ToolKey != "" {
		switch {
		case req.Caller != nil:
			what := "core tool"
			if req.AgentService {
				what = "the agent's service"
			}
			c.ToolChoice = fmt.Sprintf("allow `extension:%s` at this exact version to call %s `%s` with any input for the session", req.Caller.PluginID, what, req.Tool)
		case req.Native:
			c.ToolChoice = fmt.Sprintf("allow native tool `%s` with any input for the session", req.Tool)
		case req.Builtin:
			c.ToolChoice = fmt.Sprintf("allow `%s` of builtin module `%s` at this exact version with any input for the session", req.Tool, req.PluginID)
		case req.MCP:
			c.ToolChoice = fmt.Sprintf("allow `%s` of MCP server `%s` as configured now with any input for the session", req.Tool, strings.TrimPrefix(req.PluginID, "mcp:"))
		default:
			c.ToolChoice = fmt.Sprintf("allow `%s` from `%s` at this exact version with any input for the session", req.Tool, req.PluginID)
		}
	}
	in := string(canon)
	if len(in) > MaxCardInput {
		in = cutUTF8(in, MaxCardInput) + fmt.Sprintf("… (%d bytes in all)", len(canon))
	}
	c.Input = in
	switch n := req.OtherPlugins; {
	case n == 1:
		c.Shared = "runs alongside 1 other plugin in one process"
	case n > 1:
		c.Shared = fmt.Sprintf("runs alongside %d other plugins in one process", n)
	}
	return c
}

// Text renders the card as lines of plain text.
func (c Card) Text() string {
	var b strings.Builder
	b.WriteString(c.Title)
	b.WriteString("\ninput: ")
	b.WriteString(c.Input)
	if c.Shared != "" {
		b.WriteString("\n")
		b.WriteString(c.Shared)
	}
	for _, n := range c.Notes {
		b.WriteString("\n")
		b.WriteString(n)
	}
	b.WriteString("\n")
	if c.Diff != "" {
		b.WriteString("change:\n")
		b.WriteString(c.Diff)
	}
	return b.String()
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// subject is the card's Subject, or for a card composed by hand (tests, embedders) one made
// from its fields.
func (c Card) subject() string {
	if c.Subject != "" {
		return c.Subject
	}
	return Request{PluginID: c.PluginID, Tool: c.Tool, Native: c.Origin == OriginNative, Builtin: c.Origin == OriginBuiltin, MCP: c.Origin == OriginMCP}.Subject()
}

// Refusal is what a person reads when the card cannot be shown: the call named by its
// origin, and why it needs a person. A Forced card (the native shell, a call a pre-execute
// hook asked about) says that no posture or grant approves it, so no advice to change the
// posture may follow it.
func (c Card) Refusal() string {
	if c.Dev && c.Requirement != Forced {
		return c.subject() + " comes from a `cwx plugin dev` session and must be asked of a person (a dev plugin's tool is always asked; no posture, flag or session grant approves it)"
	}
	if c.Forced {
		return c.subject() + " must be asked of a person (it is always asked, or a pre-execute hook asked for it; no posture or session grant approves it)"
	}
	return c.subject() + " needs approval"
}

// containment is how the card's title states the plugin's containment, after "dev: " for
// a plugin of a dev session.
func containment(req Request) string {
	c := req.Containment
	if c == "" {
		c = "runs JavaScript with your permissions"
	}
	if req.Dev {
		c = "dev: runs from a `cwx plugin dev` session, reviewed by no one; " + c
	}
	return c
}
