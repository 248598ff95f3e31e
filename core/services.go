package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/cwx-dev/cwx/core/gitscope"
	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/skills"
)

// Agent services are what only the agent that embeds cwx owns: its sessions, its sub-agent
// manager, its skills roots, its git review scope. Each is optional in Options; a plugin
// asks for one through core/call, by one of the names below, with the live invocation's
// ticket, and every call goes through the gate like a core tool's. A service the embedder
// does not provide is refused by name (core doc.go, “Agent services”).
const (
	ServiceSessionFlush    = "sessions_flush"
	ServiceSubagentStart   = "subagents_start"
	ServiceSubagentResult  = "subagents_result"
	ServiceSubagentDispose = "subagents_dispose"
	ServiceSkillsList      = "skills_list"
	ServiceGitReviewScope  = "git_review_scope"
)

// Bounds of the agent services.
const (
	MaxPersona       = 32 << 10 // a child's persona section
	MaxChildPrompt   = 64 << 10
	MaxChildren      = 8 // children one invocation may start
	MaxChildResult   = 1 << 20
	ChildDisposeWait = 10 * time.Second // what the end of an invocation waits for its children
)

// ServiceCall names the live invocation a service call comes from, as the core knows it
// from the ticket: never what the plugin claims.
type ServiceCall struct {
	PluginID  string
	Tool      string // the plugin's tool whose invocation asks
	CallID    string
	SessionID string // CallOptions.SessionID of the invocation
	AgentID   string // CallOptions.AgentID: the parent of any child it starts
	Workspace string
}

// Sessions is the agent's session store.
type Sessions interface {
	// Flush saves c.SessionID's conversation so far and returns once the store confirmed it.
	Flush(ctx context.Context, c ServiceCall) error
}

// Subagents is the agent's sub-agent manager: DSH's `spawn` provider, a child with a fresh
// context inside its parent's limits.
type Subagents interface {
	// Tools lists the tools c.AgentID may use: the limit a child's tool filter narrows.
	Tools(ctx context.Context, c ServiceCall) ([]string, error)
	// Start starts a child. The core has checked req: its tools are a subset of Tools.
	// It returns the child's id, which Result and Dispose take.
	Start(ctx context.Context, c ServiceCall, req ChildRequest) (string, error)
	// Result waits for the child to settle.
	Result(ctx context.Context, c ServiceCall, child string) (ChildResult, error)
	// Dispose stops the child and its own descendants, and returns once they stopped. The
	// core disposes every child a tool call started and did not dispose when the call ends.
	Dispose(ctx context.Context, c ServiceCall, child string) error
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
	Query(ctx context.Context, c ServiceCall, q gitscope.Query) (string, error)
}

// GitQuery is one bounded git metadata query (gitscope.Query).
type GitQuery = gitscope.Query

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

// Skill is one skill the core discovered under the agent's roots (skills.Skill).
type Skill = skills.Skill

// SkillProblem is one candidate skill the core refused, and why (skills.Problem).
type SkillProblem = skills.Problem

// childSet is the children one invocation started and has not disposed.
type childSet struct {
	mu       sync.Mutex
	reserved int             // +checklocks:mu
	live     map[string]bool // +checklocks:mu
	closed   bool            // +checklocks:mu
}

func (s *childSet) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.reserved == MaxChildren {
		return false
	}
	s.reserved++
	return true
}

func (s *childSet) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved--
}

// add records a started child; false once takeAll ran (the caller disposes it itself).
func (s *childSet) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.live == nil {
		s.live = map[string]bool{}
	}
	s.live[id] = true
	return true
}

// takeAll forgets and returns the live children, sorted; reserve refuses from then on.
func (s *childSet) takeAll() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.live))
	for id := range s.live {
		out = append(out, id)
	}
	sort.Strings(out)
	s.live = nil
	s.closed = true
	return out
}

func (s *childSet) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id]
}

// drop forgets id.
func (s *childSet) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
}

// GitArgs is the argument list, after `git`, that runs q with hooks, paging and lazy fetch
// off (gitscope.Args); a GitReviewScope runs it with GitEnv. A query the core would not
// admit is an error.
func GitArgs(q GitQuery) ([]string, error) { return gitscope.Args(q) }

// GitEnv is what a GitReviewScope adds to a minimal environment (gitscope.Env).
func GitEnv() []string { return append([]string(nil), gitscope.Env...) }
