package shared

import "testing"

func TestExitString(t *testing.T) {
	cases := []struct {
		e    Exit
		want string
	}{
		{Exit{Code: 0}, "exited with code 0"},
		{Exit{Code: 3}, "exited with code 3"},
		{Exit{Code: -1, Signal: 9}, "killed by signal 9 (killed)"},
		{Exit{Code: -1, Signal: 9, Reason: `framing violation: bad magic "GARB", want "CWX1"`},
			`framing violation: bad magic "GARB", want "CWX1" (runtime killed by signal 9 (killed))`},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

func TestInvokedNeedsSubcommandAndCookie(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		cookie string
		want   bool
	}{
		{"both", []string{"cwx", "nodeshim", "--tier=plugin"}, CookieValue, true},
		{"no_cookie", []string{"cwx", "nodeshim"}, "", false},
		{"wrong_cookie", []string{"cwx", "nodeshim"}, "nope", false},
		{"other_command", []string{"cwx", "doctor"}, CookieValue, false},
		{"no_args", []string{"cwx"}, CookieValue, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(CookieKey, c.cookie)
			if got := Invoked(c.args); got != c.want {
				t.Errorf("Invoked(%q) with cookie %q = %v", c.args, c.cookie, got)
			}
		})
	}
}
