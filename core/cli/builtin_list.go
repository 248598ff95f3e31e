package cli

import (
	"io"

	"github.com/cwx-dev/cwx/core/bundle"
	"github.com/cwx-dev/cwx/core/registry"
)

// writeBuiltinPins prints the pinned builtin modules (core/bundle): the first-party code the
// builtin tier runs, with the full digest each module file must have.
func writeBuiltinPins(w io.Writer) error {
	pins := bundle.Pinned()
	if len(pins) == 0 {
		return nil
	}
	printf(w, "\n")
	tw := newTable(w)
	printf(tw, "BUILTIN MODULE\tOWNER\tPINNED SHA256\n")
	for _, p := range pins {
		printf(tw, "%s\t%s\t%s\n", p.ID, registry.HostIDPrefix+p.ID, p.SHA256)
	}
	return tw.Flush()
}
