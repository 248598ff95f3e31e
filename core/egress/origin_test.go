package egress

import (
	"errors"
	"net/netip"
	"testing"
)

func TestParseOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://Example.COM", "https://example.com"},
		{"https://example.com:443/path?q=1#f", "https://example.com"},
		{"HTTP://example.com:80", "http://example.com"},
		{"http://example.com:443", "http://example.com:443"},
		{"https://example.com.", "https://example.com"},
		{"https://example.com.:8443", "https://example.com:8443"},
		{"https://bücher.example", "https://xn--bcher-kva.example"},
		{"https://BÜCHER.example", "https://xn--bcher-kva.example"},
		{"https://xn--bcher-kva.example", "https://xn--bcher-kva.example"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"http://[0:0:0:0:0:0:0:1]", "http://[::1]"},
		{"http://[::FFFF:127.0.0.1]", "http://[::ffff:127.0.0.1]"},
		{"http://127.0.0.1:9", "http://127.0.0.1:9"},
		{"http://localhost:9", "http://localhost:9"},
	} {
		o, err := ParseOrigin(tc.in)
		if err != nil {
			t.Errorf("ParseOrigin(%q): %v", tc.in, err)
			continue
		}
		if o.String() != tc.want {
			t.Errorf("ParseOrigin(%q) = %s, want %s", tc.in, o, tc.want)
		}
	}
}

func TestParseOriginRefuses(t *testing.T) {
	for _, in := range []string{
		"", "example.com", "ftp://example.com", "https://", "https://user:pw@example.com",
		"https://example.com:0", "https://example.com:65536", "https://example.com:08",
		"https://example.com:", "https://[fe80::1%25eth0]", "https://[127.0.0.1]",
		"https://example..com", "https://example.com..", "http://0x7f.1", "http://2130706433",
		"http://127.1", "mailto:a@example.com", "https://exa mple.com",
	} {
		if o, err := ParseOrigin(in); err == nil {
			t.Errorf("ParseOrigin(%q) = %s, want a refusal", in, o)
		} else if !errors.Is(err, ErrBadOrigin) {
			t.Errorf("ParseOrigin(%q): %v is not ErrBadOrigin", in, err)
		}
	}
}

func TestLocalhostIsNotLoopbackLiteral(t *testing.T) {
	a, _ := ParseOrigin("http://localhost:8080")
	b, _ := ParseOrigin("http://127.0.0.1:8080")
	if a == b {
		t.Fatal("localhost and 127.0.0.1 are one origin")
	}
}

func TestIsPrivate(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		private bool
	}{
		{"0.0.0.0", true}, {"0.1.2.3", true}, {"127.0.0.1", true}, {"127.255.0.9", true},
		{"10.1.2.3", true}, {"172.16.0.1", true}, {"172.31.255.255", true}, {"172.32.0.1", false},
		{"192.168.1.1", true}, {"100.64.0.1", true}, {"100.127.255.255", true}, {"100.128.0.1", false},
		{"169.254.169.254", true}, {"224.0.0.1", true}, {"239.255.255.255", true},
		{"255.255.255.255", true}, {"::1", true}, {"::", true}, {"fc00::1", true}, {"fd12::1", true},
		{"fe80::1", true}, {"ff02::1", true},
		{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:8.8.8.8", false},
		{"64:ff9b::7f00:1", true}, {"64:ff9b::a00:1", true}, {"64:ff9b::808:808", false},
		{"8.8.8.8", false}, {"1.1.1.1", false}, {"2001:4860:4860::8888", false}, {"172.15.255.255", false},
	} {
		_, got := IsPrivate(netip.MustParseAddr(tc.addr))
		if got != tc.private {
			t.Errorf("IsPrivate(%s) = %v, want %v", tc.addr, got, tc.private)
		}
	}
}

func TestCheckDialed(t *testing.T) {
	o, _ := ParseOrigin("https://example.com")
	for _, tc := range []struct {
		addr    string
		private bool
		refused bool
	}{
		{"127.0.0.1:443", false, true},
		{"[::ffff:169.254.169.254]:80", false, true},
		{"[64:ff9b::c0a8:101]:443", false, true},
		{"127.0.0.1:443", true, false},
		{"93.184.216.34:443", false, false},
		{"garbage", true, true},
	} {
		err := checkDialed(o, tc.addr, tc.private)
		if (err != nil) != tc.refused {
			t.Errorf("checkDialed(%s, private=%v) = %v, want refused=%v", tc.addr, tc.private, err, tc.refused)
		}
		if err != nil && !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("checkDialed(%s): %v is not ErrPrivateAddress", tc.addr, err)
		}
	}
	// localhost reaches loopback only, even with the private ranges allowed.
	lo, _ := ParseOrigin("http://localhost:8080")
	for _, tc := range []struct {
		addr    string
		refused bool
	}{
		{"127.0.0.1:8080", false},
		{"[::1]:8080", false},
		{"10.0.0.5:8080", true},
		{"169.254.169.254:8080", true},
	} {
		err := checkDialed(lo, tc.addr, true)
		if (err != nil) != tc.refused {
			t.Errorf("checkDialed(localhost, %s) = %v, want refused=%v", tc.addr, err, tc.refused)
		}
		if err != nil && !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("checkDialed(%s): %v is not ErrPrivateAddress", tc.addr, err)
		}
	}
}

func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"https://Example.COM.:443/x", "http://[::1]:80", "http://bücher.example", "http://0x7f.1", "https://a:b@c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrigin(s)
		if err != nil {
			return
		}
		again, err := ParseOrigin(o.String())
		if err != nil {
			t.Fatalf("%q gave %s, which does not parse: %v", s, o, err)
		}
		if again != o {
			t.Fatalf("%q gave %s, then %s", s, o, again)
		}
		if o.Port < 1 || o.Port > 65535 || (o.Scheme != "http" && o.Scheme != "https") || o.Host == "" {
			t.Fatalf("%q gave a malformed origin %#v", s, o)
		}
	})
}
