package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/cwx-dev/cwx/core/catalog"
)

// OwnerPrefix starts the catalog id (and log name) of a server: mcp:<name>.
const OwnerPrefix = "mcp:"

// cacheFormat is the catalog key's bundle field for MCP servers: another admission of the
// same server's tools (a later cwx) changes it.
const cacheFormat = "mcp-admission/1"

// cacheKey is the catalog key of server s's tools: its identity digest (command, args,
// env names, cwd) and the digest of the allow-list, which shapes what is admitted.
func cacheKey(s *Server) catalog.Key {
	allow := slices.Clone(s.cfg.Tools)
	slices.Sort(allow)
	b, _ := json.Marshal(allow)
	sum := sha256.Sum256(b)
	return catalog.Key{PluginID: OwnerPrefix + s.cfg.Name, Closure: s.cfg.Identity(), Config: hex.EncodeToString(sum[:]), Bundle: cacheFormat}
}

// remember writes the admitted tools of s as its catalog entry.
func (set *Set) remember(s *Server, tools []Tool) {
	if set.o.Catalog == nil {
		return
	}
	e := catalog.Entry{Key: cacheKey(s), Tools: make([]catalog.Tool, 0, len(tools))}
	for _, t := range tools {
		e.Tools = append(e.Tools, catalog.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if old, ok := set.o.Catalog.Lookup(e.Key); ok && old.Equal(e) {
		return
	}
	if err := set.o.Catalog.Put(e); err != nil {
		set.o.Logger.Warn("mcp: the tools of the server were not cached", "server", s.cfg.Name, "error", err)
	}
}

// Cached returns the tools of server name as last admitted by any cwx process with this
// configuration, from the catalog; false when none are cached.
func (set *Set) Cached(name string) ([]catalog.Tool, bool) {
	s, ok := set.servers[name]
	if !ok || set.o.Catalog == nil {
		return nil, false
	}
	e, ok := set.o.Catalog.Lookup(cacheKey(s))
	return e.Tools, ok
}
