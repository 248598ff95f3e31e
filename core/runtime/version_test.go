package runtime

import "testing"

func TestCheckFloor(t *testing.T) {
	tests := []struct {
		kind   Kind
		out    string
		reason string // "" = accepted
	}{
		{KindNode, "v20.20.2\n", "v20.20.2 is below the 22.19 floor"},
		{KindNode, "v22.18.9", "v22.18.9 is below the 22.19 floor"},
		{KindNode, "v22.19.0", ""},
		{KindNode, "v22.23.5\n", ""},
		{KindNode, "v22.19.0-rc.1", "v22.19.0-rc.1 is below the 22.19 floor"},
		{KindNode, "v23.11.0", "v23.11.0 is outside ^22.19 || >=24 (Node 23 is not supported)"},
		{KindNode, "v24.0.0", ""},
		{KindNode, "v26.10.1", ""},
		{KindBun, "1.3.9", "1.3.9 is below the 1.4.0 floor"},
		{KindBun, "1.4.0-canary.2+abc", "1.4.0-canary.2+abc is below the 1.4.0 floor"},
		{KindBun, "1.4.0", ""},
		{KindBun, "1.4.5+deadbeef", ""},
		{KindBun, "2.0.0", ""},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind)+"/"+tc.out, func(t *testing.T) {
			v, raw, err := parseVersion(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if got := checkFloor(tc.kind, v, raw); got != tc.reason {
				t.Errorf("checkFloor = %q, want %q", got, tc.reason)
			}
		})
	}
}

func TestParseVersionRefusesNonVersions(t *testing.T) {
	for _, out := range []string{"", "\n", "hello", "v22", "v22.1", "v22.x.1", "v22.1.1\nv23.0.0", "1.2.3.4", "v-1.2.3"} {
		if _, _, err := parseVersion(out); err == nil {
			t.Errorf("parseVersion(%q) accepted it", out)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v22.23.5", "1.4.0-canary+x", "", "v1.2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, raw, err := parseVersion(s)
		if err != nil {
			return
		}
		if v.major < 0 || v.minor < 0 || v.patch < 0 || raw == "" {
			t.Fatalf("parseVersion(%q) = %+v %q", s, v, raw)
		}
		_ = checkFloor(KindNode, v, raw)
	})
}
