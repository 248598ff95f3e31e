package services

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/cwx-dev/cwx/core/gitscope"
	"github.com/cwx-dev/cwx/core/inert"
)

// The names a plugin calls the services by, through core/call.
const (
	NameSessionFlush    = "sessions_flush"
	NameSubagentStart   = "subagents_start"
	NameSubagentResult  = "subagents_result"
	NameSubagentDispose = "subagents_dispose"
	NameSkillsList      = "skills_list"
	NameGitReviewScope  = "git_review_scope"
)

// Bounds of the agent services.
const (
	MaxPersona       = 32 << 10 // a child's persona section
	MaxChildPrompt   = 64 << 10
	MaxChildren      = 8 // children one invocation may start
	MaxChildResult   = 1 << 20
	ChildDisposeWait = 10 * time.Second // what the end of an invocation waits for its children
)

// Call names the live invocation a service call comes from, as the core knows it from the
// ticket: never what the plugin claims.
type Call struct {
	PluginID  string
	Tool      string // the plugin's tool whose invocation asks
	CallID    string
	SessionID string // CallOptions.SessionID of the invocation
	AgentID   string // CallOptions.AgentID: the parent of any child it starts
	Workspace string
}

// Provided is the services an embedder provides; each is optional.
type Provided struct {
	Sessions       Sessions
	Subagents      Subagents
	Skills         Skills
	GitReviewScope GitReviewScope
}

// Sessions is the agent's session store.
type Sessions interface {
	// Flush saves c.SessionID's conversation so far and returns once the store confirmed it.
	Flush(ctx context.Context, c Call) error
}

// Subagents is the agent's sub-agent manager: DSH's `spawn` provider, a child with a fresh
// context inside its parent's limits.
type Subagents interface {
	// Tools lists the tools c.AgentID may use: the limit a child's tool filter narrows.
	Tools(ctx context.Context, c Call) ([]string, error)
	// Start starts a child. The core has checked req: its tools are a subset of Tools.
	// It returns the child's id, which Result and Dispose take.
	Start(ctx context.Context, c Call, req ChildRequest) (string, error)
	// Result waits for the child to settle.
	Result(ctx context.Context, c Call, child string) (ChildResult, error)
	// Dispose stops the child and its own descendants, and returns once they stopped. The
	// core disposes every child a tool call started and did not dispose when the call ends.
	Dispose(ctx context.Context, c Call, child string) error
}

// ChildRequest is a child agent to start.
type ChildRequest struct {
	Persona string   // added to the child's own system prompt; at most MaxPersona
	Prompt  string   // its first message
	Tools   []string // what the child may use, sorted: the parent's, narrowed by the filter
	Model   string   // "" inherits the parent's; else one the parent may already use
}

// ChildResult is how a child settled.
type ChildResult struct {
	Status string // "completed", "failed" or "cancelled"
	Text   string // its final output (cut at MaxChildResult)
}

// Skills names the agent's skills roots; the core discovers and audits what they hold
// (package skills).
type Skills interface {
	Roots(ctx context.Context) ([]string, error)
}

// SkillsRoots is a fixed list of roots as a Skills.
type SkillsRoots []string

// Roots returns r.
func (r SkillsRoots) Roots(context.Context) ([]string, error) { return r, nil }

// GitReviewScope runs one bounded git metadata query in c.Workspace, with
// gitscope.Args(q) after `git` and gitscope.Env; the core has checked q, bounds ctx by
// gitscope.Deadline and cuts the output at gitscope.MaxOutput.
type GitReviewScope interface {
	Query(ctx context.Context, c Call, q gitscope.Query) (string, error)
}

// ToolFilter is what a plugin asks of a child's tools: Allow keeps only those (each must be
// a tool of the parent: a filter can only narrow), Deny removes them.
type ToolFilter struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// ErrWiden: a child's tool filter names a tool its parent does not have.
var ErrWiden = errors.New("a child's tool filter can only narrow its parent's tools")

// Narrow is the child's tools: parent's, kept to f.Allow when it is given, less f.Deny,
// sorted. A name in Allow that parent lacks is ErrWiden.
func Narrow(parent []string, f ToolFilter) ([]string, error) {
	have := map[string]bool{}
	for _, t := range parent {
		have[t] = true
	}
	keep := have
	if f.Allow != nil {
		keep = map[string]bool{}
		for _, t := range f.Allow {
			if !have[t] {
				return nil, fmt.Errorf("%w: `%s` is not a tool of the parent agent", ErrWiden, inert.Strip(t))
			}
			keep[t] = true
		}
	}
	out := []string{}
	for t := range keep {
		if !slices.Contains(f.Deny, t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out, nil
}
