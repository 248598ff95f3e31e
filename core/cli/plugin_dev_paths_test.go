package cli

import "testing"

func TestAuthorPaths(t *testing.T) {
	const closure = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	a := newAuthorPaths("/h/plugins/my-greeter", "/src/my-greeter")
	cases := []struct{ in, want string }{
		{"Error: x\n    at apply (file:///h/plugins/my-greeter/" + closure + "/src/index.ts:3:9)", "Error: x\n    at apply (/src/my-greeter/src/index.ts:3:9)"},
		{"read /h/plugins/my-greeter/" + closure + "/data.json", "read /src/my-greeter/data.json"},
		{"extension failed: Error: no (at src/index.ts:36:13)", "extension failed: Error: no (at /src/my-greeter/src/index.ts:36:13)"},
		{"(at /abs/x.ts:1:2) and (at node:fs:1:2)", "(at /abs/x.ts:1:2) and (at node:fs:1:2)"},
		{"/h/plugins/other/" + closure + "/x.ts", "/h/plugins/other/" + closure + "/x.ts"},
		{"/h/plugins/my-greeter/notahash/x.ts", "/h/plugins/my-greeter/notahash/x.ts"},
	}
	for _, c := range cases {
		if got := a.rewrite(c.in); got != c.want {
			t.Errorf("rewrite(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
