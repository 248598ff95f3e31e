package owners

import (
	"slices"
	"testing"
)

// TestNearNames: a name that is not live is offered the known names it nearly is: the same
// name folded (case, `-` for `_`) first, then a typo or two away, closest first, at most
// three; a short name is not matched to everything, and the name itself is never offered.
func TestNearNames(t *testing.T) {
	known := []string{"edit_file", "hello_greet", "list_dir", "read_file", "shell", "write_file"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"hello-greet", []string{"hello_greet"}},
		{"Hello_Greet", []string{"hello_greet"}},
		{"hello_gret", []string{"hello_greet"}},
		{"read-file", []string{"read_file"}},
		{"reed_file", []string{"read_file"}},
		{"rite_file", []string{"write_file"}},
		{"shel", []string{"shell"}},
		{"sh", nil},
		{"hello_greet", nil},
		{"nosuch", nil},
	} {
		if got := nearNames(tc.name, known); !slices.Equal(got, tc.want) {
			t.Errorf("nearNames(%q) = %q; want %q", tc.name, got, tc.want)
		}
	}
	if got := nearNames("ab_x", []string{"ab_a", "ab_b", "ab_c", "ab_d"}); len(got) != maxNear {
		t.Errorf("nearNames kept %q; want %d", got, maxNear)
	}
}

// TestNotLiveErrorText: the library's text names the plugin and its state, then the near
// misses; it names no cwx command.
func TestNotLiveErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    NotLiveError
		want string
	}{
		{NotLiveError{Kind: "tool", Name: "x"}, `extension host not available: no live extension tool named "x"`},
		{NotLiveError{Kind: "tool", Name: "hello-greet", Plugin: "hello", Near: []string{"hello_greet"}},
			"extension host not available: no live extension tool named \"hello-greet\"; did you mean `hello_greet`?"},
		{NotLiveError{Kind: "command", Name: "hi", Plugin: "hello", State: AbsentDisabled, Why: "which is disabled", Near: []string{"ha", "ho"}},
			"extension host not available: no live extension command named \"hi\": it belongs to plugin `hello`, which is disabled; did you mean `ha` or `ho`?"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q; want %q", got, tc.want)
		}
	}
}
