package plugins

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestFirstTrustSurvivesRetrust: the first trust time stays when the plugin is updated and
// trusted again, and when it is untrusted and trusted again.
func TestFirstTrustSurvivesRetrust(t *testing.T) {
	now := fixedNow()
	s := newStore(t, t.TempDir(), func(o *Options) { o.Now = func() time.Time { return now } })
	src := helloFolder(t)
	_, err := s.Install(src)
	must(t, err)
	trustEnable(t, s, "hello")
	first := now.UTC()

	now = now.Add(time.Hour)
	must(t, os.WriteFile(filepath.Join(src, "index.mjs"), []byte(entryJS+"// v2\n"), 0o644))
	_, err = s.Install(src)
	must(t, err)
	rv, err := s.Review("hello")
	must(t, err)
	must(t, s.Trust("hello", rv.Token))
	must(t, s.Untrust("hello"))
	now = now.Add(time.Hour)
	must(t, s.Trust("hello", rv.Token))

	r, err := s.Get("hello")
	must(t, err)
	if !r.FirstTrust().Equal(first) || !r.FirstTrustedAt.Equal(first) || r.Trust.TrustedAt.Equal(first) {
		t.Fatalf("first trust %v, receipt %v; want first %v kept", r.FirstTrustedAt, r.Trust.TrustedAt, first)
	}
}

// TestFirstTrustOfOlderRecords: a record written before first trust was kept ranks by its
// receipt, or by its install time when untrusted.
func TestFirstTrustOfOlderRecords(t *testing.T) {
	at := fixedNow()
	cases := []struct {
		name string
		r    Record
		want time.Time
	}{
		{"kept", Record{FirstTrustedAt: at, Trust: &Receipt{TrustedAt: at.Add(time.Hour)}}, at},
		{"receipt only", Record{Trust: &Receipt{TrustedAt: at.Add(time.Hour)}, InstalledAt: at}, at.Add(time.Hour)},
		{"untrusted", Record{InstalledAt: at}, at},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.FirstTrust(); !got.Equal(tc.want) {
				t.Fatalf("FirstTrust = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClaimsPersist: claims are written with the record, read back by another store of the
// same home, and do not move the generation.
func TestClaimsPersist(t *testing.T) {
	home := t.TempDir()
	s := newStore(t, home, nil)
	installHello(t, s)
	trustEnable(t, s, "hello")
	g, err := s.Generation()
	must(t, err)
	must(t, s.SetClaims("hello", []string{"hello_greet"}, nil))
	must(t, s.SetClaims("hello", []string{"hello_greet"}, []string{}))

	other := newStore(t, home, nil)
	r, err := other.Get("hello")
	must(t, err)
	if r.Claims == nil || !slices.Equal(r.Claims.Tools, []string{"hello_greet"}) || r.Claims.Commands == nil || len(r.Claims.Commands) != 0 {
		t.Fatalf("claims = %+v", r.Claims)
	}
	if g2, _ := other.Generation(); g2 != g {
		t.Fatalf("generation moved %d → %d", g, g2)
	}
	if err := s.SetClaims("nope", nil, nil); err == nil {
		t.Fatal("claims for an id with no record")
	}
}
