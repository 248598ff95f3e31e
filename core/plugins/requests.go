package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
)

// GrantRequests are the grants a manifest asks for (`cwx.grants` in package.json or
// plugin.json), so that the review shows them up front. They are requests only: nothing is
// granted until config.toml says so (ARCHITECTURE.md, “Grants”).
type GrantRequests struct {
	Read    []string `json:"read,omitempty"`    // paths as the plugin names them (absolute or ${env:NAME}/…)
	Network []string `json:"network,omitempty"` // origins, normalized
}

// Empty reports whether nothing is requested.
func (r GrantRequests) Empty() bool { return len(r.Read) == 0 && len(r.Network) == 0 }

// maxRequests bounds each list of a manifest's requests.
const maxRequests = 32

// readGrantRequests reads obj's cwx.grants; nil when it requests nothing.
func readGrantRequests(file string, obj map[string]json.RawMessage) (*GrantRequests, error) {
	r, err := grantRequests(file, obj)
	if err != nil || r.Empty() {
		return nil, err
	}
	return &r, nil
}

func grantRequests(file string, obj map[string]json.RawMessage) (GrantRequests, error) {
	var r GrantRequests
	raw, ok := obj["cwx"]
	if !ok {
		return r, nil
	}
	var cw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cw); err != nil {
		return r, &ManifestError{File: file, Field: "cwx", Reason: "must be an object"}
	}
	g, ok := cw["grants"]
	if !ok {
		return r, nil
	}
	var req struct {
		Read    []string `json:"read"`
		Network []string `json:"network"`
	}
	dec := json.NewDecoder(bytes.NewReader(g))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return r, &ManifestError{File: file, Field: "cwx.grants", Reason: `must be {"read": [paths], "network": [origins]}: ` + err.Error()}
	}
	if len(req.Read) > maxRequests || len(req.Network) > maxRequests {
		return r, &ManifestError{File: file, Field: "cwx.grants", Reason: fmt.Sprintf("asks for more than %d paths or origins; ask for the folders it needs", maxRequests)}
	}
	for i, p := range req.Read {
		if p == "" || len(p) > 4096 || bytes.ContainsAny([]byte(p), "\x00\r\n") {
			return r, &ManifestError{File: file, Field: fmt.Sprintf("cwx.grants.read[%d]", i), Reason: "must be a path of one line"}
		}
	}
	r.Read = req.Read
	for i, o := range req.Network {
		n, err := config.ParseOrigin(o)
		if err != nil {
			return r, &ManifestError{File: file, Field: fmt.Sprintf("cwx.grants.network[%d]", i), Reason: err.Error()}
		}
		r.Network = append(r.Network, n)
	}
	return r, nil
}

// GrantsView is what a review and `plugin show` say about a plugin's grants: what its
// manifest asks for, what config.toml gives it, and what that means.
type GrantsView struct {
	Requested *GrantRequests `json:"requested,omitempty"`
	// Read and Network are config.toml's grants (read as written there, network normalized).
	Read    []string `json:"read"`
	Network []string `json:"network"`
	// ConfirmHookNetwork is config.toml's confirm_hook_network.
	ConfirmHookNetwork bool     `json:"confirm_hook_network,omitempty"`
	Notes              []string `json:"notes"`
}

// ViewGrants describes plugin id's grants; nil when it asks for none and has none.
func ViewGrants(id string, req *GrantRequests, g config.Grants) *GrantsView {
	if (req == nil || req.Empty()) && g.Empty() {
		return nil
	}
	v := &GrantsView{Requested: req, Read: append([]string{}, g.Written...), Network: append([]string{}, g.Network...),
		ConfirmHookNetwork: g.ConfirmHookNetwork, Notes: []string{}}
	if !g.Empty() {
		v.Notes = append(v.Notes, "its grants give it a host of its own: no other plugin shares its process, sandbox or grants")
	}
	if req != nil {
		for _, p := range req.Read {
			if !slices.Contains(g.Written, p) {
				v.Notes = append(v.Notes, fmt.Sprintf("asks to read %s, not granted: to grant it, add read = [%q] under [plugins.%q] in config.toml", p, p, id))
			}
		}
		for _, o := range req.Network {
			if !slices.Contains(g.Network, o) {
				v.Notes = append(v.Notes, fmt.Sprintf("asks to reach %s, not granted: to grant it, add network = [%q] under [plugins.%q] in config.toml", o, o, id))
			}
		}
	}
	if net := g.Network; len(net) > 0 {
		v.Notes = append(v.Notes, "network grants are served by the core's fetch proxy, which is not built yet: no origin is reachable from the sandbox yet")
		hook := fmt.Sprintf("if it holds a pre-execute hook, it sees every tool call's arguments and may send data to %s", strings.Join(net, ", "))
		if g.ConfirmHookNetwork {
			v.Notes = append(v.Notes, hook+" (confirm_hook_network = true allows it)")
		} else {
			v.Notes = append(v.Notes, hook+": its hooks are refused unless confirm_hook_network = true")
		}
	}
	return v
}
