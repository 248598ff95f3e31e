package owners

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestBuiltinNotesAreReportedOnce(t *testing.T) {
	var buf testenv.Buffer
	l := &Layer{log: hclog.New(&hclog.LoggerOptions{Output: &buf, Level: hclog.Warn})}
	l.noteBuiltin("host:script-tools", "script a.sh: refused")
	l.noteBuiltin("host:script-tools", "script a.sh: refused")
	l.noteBuiltin("host:script-tools", "script b.sh: refused")
	if got := strings.Count(buf.String(), "refused"); got != 2 {
		t.Errorf("%d notes logged, want 2:\n%s", got, buf.String())
	}
}
