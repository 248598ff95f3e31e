package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHooksText: the cut of a long command in `cwx hooks list` and `cwx hooks test` never
// splits a character (printf would show the broken half as U+FFFD), and a tab in a hooks
// file's matcher does not push the row's cells out of their columns.
func TestHooksText(t *testing.T) {
	cmd := "printf ''; echo " + strings.Repeat("é", 90)
	var list bytes.Buffer
	writeHooksTable(&list, HooksListJSON{Hooks: []HookJSON{
		{ID: "PreToolUse#1", Event: "PreToolUse", Matcher: "Bash|\tWrite", Command: cmd, TimeoutS: 60, Source: "config.toml"},
	}})
	var test bytes.Buffer
	writeHooksTest(&test, HooksTestJSON{Event: "PreToolUse", Outcome: "the call is denied before approval is asked",
		Decisions: []HookDecisionJSON{{Hook: "PreToolUse#1", Command: cmd, Said: "exit 2", Decision: "block"}}})
	for name, out := range map[string]string{"hooks list": list.String(), "hooks test": test.String()} {
		if strings.ContainsRune(out, utf8.RuneError) || !utf8.ValidString(out) {
			t.Errorf("%s prints a split character:\n%q", name, out)
		}
		if !strings.Contains(out, "é...") {
			t.Errorf("%s does not cut the long command:\n%q", name, out)
		}
	}
	rows := strings.Split(strings.TrimSpace(list.String()), "\n")
	if len(rows) != 2 || strings.Index(rows[0], "COMMAND") != strings.Index(rows[1], "printf") ||
		strings.Index(rows[0], "TIMEOUT") != strings.Index(rows[1], "60s") {
		t.Errorf("hooks list row is not under its columns ID, MATCHER, TIMEOUT, SOURCE, COMMAND:\n%s", list.String())
	}
}
