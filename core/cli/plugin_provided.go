package cli

import (
	"fmt"

	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// providedModules returns the package names the JS extension host provides as singletons
// (the "provided" list of nodeshim/jshost's embedded provided-modules.json). A plugin's
// runtime dependency on one of them needs no bundled copy, and a peer dependency on one is
// marked "provided by cwx" in the review. refused holds the host's refused import
// patterns, which the review notes.
func providedModules() (provided, refused []string, err error) {
	p, err := jshost.Provided()
	if err != nil {
		return nil, nil, fmt.Errorf("read the host's provided-modules list: %w", err)
	}
	return p.Provided, p.Refused, nil
}
