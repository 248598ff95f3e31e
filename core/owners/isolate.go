package owners

import (
	"maps"

	"github.com/cwx-dev/cwx/core/config"
)

// isolated returns cfg with every plugin of ids given a host of its own (Options.Isolate),
// whatever config.toml says; cfg itself is left as it was.
func isolated(cfg *config.Config, ids []string) *config.Config {
	if cfg == nil || len(ids) == 0 {
		return cfg
	}
	c := *cfg
	c.Plugins = maps.Clone(cfg.Plugins)
	if c.Plugins == nil {
		c.Plugins = map[string]config.Plugin{}
	}
	for _, id := range ids {
		p := cfg.Plugin(id)
		p.Isolation = config.IsolationProcess
		c.Plugins[id] = p
	}
	return &c
}
