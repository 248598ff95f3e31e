package cli

import (
	"bytes"
	"testing"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		steps    []string
		want     string
	}{
		{"terminal", true, []string{"calls 1/3", "calls 2/3", ""}, "\r\x1b[Kcwx bench: calls 1/3\r\x1b[Kcwx bench: calls 2/3\r\x1b[K"},
		{"not a terminal", false, []string{"calls 1/3", ""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := isTerminal
			isTerminal = func(any) bool { return tt.terminal }
			t.Cleanup(func() { isTerminal = old })
			var buf bytes.Buffer
			p := progressLine(&buf)
			for _, s := range tt.steps {
				p(s)
			}
			if buf.String() != tt.want {
				t.Errorf("progress wrote %q, want %q", buf.String(), tt.want)
			}
		})
	}
}

func TestBenchFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"bench", "--runtime", "deno"}, ExitUsage},
		{[]string{"bench", "extra"}, ExitUsage},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := Main(tt.args, &bytes.Buffer{}, &out, &errb); code != tt.code {
			t.Errorf("cwx %v: exit %d, want %d (%s)", tt.args, code, tt.code, errb.String())
		}
	}
}
