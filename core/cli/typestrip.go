package cli

import (
	"context"
	"fmt"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/probecache"
	jsruntime "github.com/cwx-dev/cwx/core/runtime"
)

// typeStripNotes is what `plugin install`, `plugin review` and `plugin dev` say of dir's
// TypeScript files that Node's type stripping refuses (an enum, a namespace with values, a
// parameter property): Bun transpiles them and runs them, Node only strips types and fails
// to load them, so a plugin that works on one runtime fails on the other at its first run.
// The check runs Node's own module.stripTypeScriptTypes over the files as text (nothing is
// loaded); without a usable Node, or a folder without TypeScript, it says nothing. Node is
// found as `cwx doctor` finds it, its probes kept in home's probe cache.
func typeStripNotes(ctx context.Context, home string, cfg *config.Config, dir string) []string {
	files, more, err := jsruntime.TypeScriptFiles(dir)
	if err != nil || len(files) == 0 {
		return nil
	}
	host := cfg.ExtensionHost
	o := runtimeOptions(home, host, string(jsruntime.KindNode))
	o.Cache = probecache.Open(home, probecache.Options{})
	res, err := jsruntime.Resolve(ctx, o)
	if err != nil {
		return nil
	}
	fails, err := jsruntime.CheckTypeStripping(ctx, res.Chosen.Path, dir, files)
	if err != nil {
		return []string{fmt.Sprintf("its TypeScript was not checked against Node.js's type stripping: %v", err)}
	}
	onBun := host.Runtime == string(jsruntime.KindBun)
	var notes []string
	for _, f := range fails {
		if onBun {
			notes = append(notes, fmt.Sprintf("Node.js cannot load %s: Bun (configured) runs it, but under runtime = \"node\" it fails; "+
				"without enum, namespace and parameter properties it runs on both", f))
		} else {
			notes = append(notes, fmt.Sprintf("Node.js will not load %s: Node only strips types; "+
				"rewrite it without enum, namespace and parameter properties, or set [extension_host] runtime = \"bun\"", f))
		}
	}
	if more && len(notes) > 0 {
		notes = append(notes, fmt.Sprintf("only the first %d TypeScript files were checked", jsruntime.MaxStripFiles))
	}
	return notes
}
