package plugins

import (
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/config"
)

func TestViewGrants(t *testing.T) {
	if ViewGrants("p", nil, config.Grants{}) != nil {
		t.Fatal("a plugin that asks for nothing and has nothing has a grants view")
	}
	req := &GrantRequests{Read: []string{"${env:PAYLOADS}", "/srv/b"}, Network: []string{"https://a.example"}}
	g := config.Grants{Read: []string{"/srv/payloads"}, Written: []string{"${env:PAYLOADS}"}, Network: []string{"https://b.example"}}
	v := ViewGrants("p", req, g)
	notes := strings.Join(v.Notes, "\n")
	for _, want := range []string{
		"its grants give it a host of its own",
		`asks to read /srv/b, not granted: to grant it, add read = ["/srv/b"] under [plugins."p"] in config.toml`,
		`asks to reach https://a.example, not granted: to grant it, add network = ["https://a.example"] under [plugins."p"]`,
		"it sees every tool call's arguments and may send data to https://b.example: its hooks are refused unless confirm_hook_network = true",
		"fetch proxy, which is not built yet",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "asks to read ${env:PAYLOADS}") {
		t.Errorf("a granted request is listed as not granted:\n%s", notes)
	}
	g.ConfirmHookNetwork = true
	if n := strings.Join(ViewGrants("p", nil, g).Notes, "\n"); !strings.Contains(n, "confirm_hook_network = true allows it") {
		t.Errorf("with the confirmation: %s", n)
	}
}
