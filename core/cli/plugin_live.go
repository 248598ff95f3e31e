package cli

import (
	"context"
	"io"
	"time"
)

// PluginLive is the live part of `cwx plugin show ID`: the plugin activated in this
// process, with the tools and commands it has live, or why it has none.
type PluginLive struct {
	// Tools and Commands are what the plugin has live after activation.
	Tools    []ToolListItem    `json:"tools"`
	Commands []CommandListItem `json:"commands"`
	// Problems are the diagnostics recorded while activating it here (refused names with
	// their reasons, an activation failure, a fault, a receipt that no longer holds).
	Problems []PluginProblem `json:"problems"`
	// Error is why the extension hosts could not run the plugin at all (no usable
	// runtime, a refused config.toml), or "".
	Error string `json:"error,omitempty"`
}

// PluginProblem is one diagnostic of a plugin's activation.
type PluginProblem struct {
	Kind    string `json:"kind"`    // activation_failed, faulted, refused, receipt, config, ...
	Message string `json:"message"` // escapes stripped
}

// showLive activates the enabled plugins in this process and reports what plugin id has
// live; `cwx plugin show` prints it after the stored state. Tests replace it.
var showLive = livePlugin

// diagnosticsFlusher is implemented by core.Manager: it waits until the diagnostics queued
// so far are in state.json.
type diagnosticsFlusher interface {
	FlushDiagnostics(ctx context.Context) error
}

func livePlugin(ctx context.Context, stderr io.Writer, id string) (live PluginLive, err error) {
	live = PluginLive{Tools: []ToolListItem{}, Commands: []CommandListItem{}, Problems: []PluginProblem{}}
	start := time.Now()
	m, err := openForCommand(ctx, stderr, "")
	if err != nil {
		return live, err
	}
	defer func() { err = firstErr(err, closeCore(m)) }()
	if rerr := m.Reconcile(ctx); rerr != nil {
		live.Error = stripEscapes(rerr.Error())
	}
	for _, t := range toolItems(m.Tools()) {
		if t.Plugin == id {
			live.Tools = append(live.Tools, t)
		}
	}
	for _, c := range commandItems(m.Commands()) {
		if c.Plugin == id {
			live.Commands = append(live.Commands, c)
		}
	}
	if f, ok := m.(diagnosticsFlusher); ok {
		fctx, cancel := context.WithTimeout(ctx, closeWait)
		_ = f.FlushDiagnostics(fctx) // best effort: what is not flushed yet is not shown
		cancel()
	}
	if r, gerr := m.Plugins().Get(id); gerr == nil {
		for _, d := range r.Diagnostics {
			if !d.Time.Before(start.Truncate(time.Second)) {
				live.Problems = append(live.Problems, PluginProblem{Kind: d.Kind, Message: stripEscapes(d.Message)})
			}
		}
	}
	return live, nil
}

// writeLive prints the live part of `cwx plugin show`.
func writeLive(w io.Writer, live PluginLive) {
	switch {
	case live.Error != "":
		printf(w, "live     not running: %s\n", oneLine(live.Error))
	case len(live.Tools)+len(live.Commands) == 0:
		printf(w, "live     nothing registered in this process\n")
	default:
		printf(w, "live     %s, %s\n", plural(len(live.Tools), "tool"), plural(len(live.Commands), "command"))
	}
	for _, t := range live.Tools {
		printf(w, "  tool     %s: %s\n", t.Name, cutCell(oneLine(t.Description), 72))
	}
	for _, c := range live.Commands {
		usage := "/" + c.Name
		if c.ArgumentHint != "" {
			usage += " " + oneLine(c.ArgumentHint)
		}
		printf(w, "  command  %s: %s\n", usage, cutCell(oneLine(c.Description), 72))
	}
	for _, p := range live.Problems {
		printf(w, "  %s: %s\n", p.Kind, oneLine(p.Message))
	}
}
