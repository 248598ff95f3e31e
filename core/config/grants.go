package config

import (
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Grants are what config.toml gives one plugin beyond its sandbox ([plugins."<id>"] read,
// network and confirm_hook_network; ARCHITECTURE.md, “Grants”). They are syntax-checked
// here, at load; core/grants resolves the paths and refuses what may never be granted, at
// `cwx config check` and at every start of the plugin's host. A plugin with any grant runs in
// a host of its own (Config.Isolated), so a grant never reaches another plugin.
type Grants struct {
	// Read are absolute, cleaned paths (after ${env:NAME} expansion), bound read-only into the
	// plugin's sandbox; Written keeps each as config.toml writes it, for messages.
	Read    []string `json:"read,omitempty"`
	Written []string `json:"-"`
	// Network are origins (scheme://host[:port], lower case, the default port left out) the
	// plugin may reach through the core's fetch proxy.
	Network []string `json:"network,omitempty"`
	// Private are the origins of Network that may resolve to private, loopback or
	// link-local addresses (network_private: a local service, an intranet wiki).
	Private []string `json:"network_private,omitempty"`
	// Headers are what the core's fetch proxy adds to the plugin's requests, per exact
	// origin of Network ([plugins."<id>".headers."<origin>"]): canonical header name to the
	// value as config.toml writes it, ${env:NAME} left for the proxy to expand. The values
	// are never printed or marshalled; HeaderNames lists what may be shown.
	Headers map[string]map[string]string `json:"-"`
	// ConfirmHookNetwork acknowledges that a plugin holding a pre-execute hook, which sees
	// every gated call's input, may also send data to its Network origins.
	ConfirmHookNetwork bool `json:"confirm_hook_network,omitempty"`
}

// Empty reports whether g grants nothing.
func (g Grants) Empty() bool { return len(g.Read) == 0 && len(g.Network) == 0 }

// envRef is ${env:NAME} inside a grant.
var envRef = lazyre.New(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// HeaderNames are the names of the headers configured for each origin, sorted: what
// `cwx config check` shows of Headers.
func (g Grants) HeaderNames() map[string][]string {
	if len(g.Headers) == 0 {
		return nil
	}
	out := make(map[string][]string, len(g.Headers))
	for o, h := range g.Headers {
		out[o] = slices.Sorted(maps.Keys(h))
	}
	return out
}

// grantsTOML are one plugin's grant keys as decoded.
type grantsTOML struct {
	read, network, private []string
	headers                map[string]map[string]string
	confirm                *bool
}

// resolveGrants checks one plugin's grant keys; bad names the offending key.
func resolveGrants(id string, t grantsTOML, bad func(key, reason string) error) (Grants, error) {
	var g Grants
	read, network, confirm := t.read, t.network, t.confirm
	key := func(name string, i int) string { return fmt.Sprintf("plugins.%q.%s[%d]", id, name, i) }
	for i, raw := range read {
		p, err := ExpandEnv(raw)
		if err != nil {
			return g, bad(key("read", i), err.Error())
		}
		if !filepath.IsAbs(p) {
			return g, bad(key("read", i), fmt.Sprintf("%q is not an absolute path; write the full path of the folder or file to grant (or ${env:NAME}/…)", raw))
		}
		p = filepath.Clean(p)
		if !slices.Contains(g.Read, p) {
			g.Read, g.Written = append(g.Read, p), append(g.Written, raw)
		}
	}
	for i, raw := range network {
		o, err := ParseOrigin(raw)
		if err != nil {
			return g, bad(key("network", i), err.Error())
		}
		if !slices.Contains(g.Network, o) {
			g.Network = append(g.Network, o)
		}
	}
	if confirm != nil {
		g.ConfirmHookNetwork = *confirm
	}
	for i, raw := range t.private {
		o, err := ParseOrigin(raw)
		if err != nil {
			return g, bad(key("network_private", i), err.Error())
		}
		if !slices.Contains(g.Network, o) {
			return g, bad(key("network_private", i), fmt.Sprintf("%q is not in network; add it there too (network_private only lets a granted origin reach private addresses)", raw))
		}
		if !slices.Contains(g.Private, o) {
			g.Private = append(g.Private, o)
		}
	}
	return g, resolveHeaders(id, t.headers, &g, bad)
}

// resolveHeaders checks [plugins."<id>".headers."<origin>"]: each origin granted, each
// name a token that is not one the proxy refuses, each value one line. ${env:NAME} is
// expanded by the proxy, not here: a value is never kept expanded in a Config.
func resolveHeaders(id string, headers map[string]map[string]string, g *Grants, bad func(key, reason string) error) error {
	for _, raw := range slices.Sorted(maps.Keys(headers)) {
		k := fmt.Sprintf("plugins.%q.headers.%q", id, raw)
		o, err := ParseOrigin(raw)
		if err != nil {
			return bad(k, err.Error())
		}
		if !slices.Contains(g.Network, o) {
			return bad(k, fmt.Sprintf("%q is not in network; headers go only to a granted origin, so add it to network too", raw))
		}
		if g.Headers == nil {
			g.Headers = map[string]map[string]string{}
		}
		if g.Headers[o] == nil {
			g.Headers[o] = map[string]string{}
		}
		for _, name := range slices.Sorted(maps.Keys(headers[raw])) {
			if why := badHeaderName(name); why != "" {
				return bad(k+"."+name, why)
			}
			v := headers[raw][name]
			if strings.ContainsAny(v, "\r\n\x00") {
				return bad(k+"."+name, "the value holds a line break or NUL; a header value is one line")
			}
			if rest := envRef().ReplaceAllString(v, ""); strings.Contains(rest, "${") {
				return bad(k+"."+name, "the value has a ${…} that is not ${env:NAME}")
			}
			g.Headers[o][textproto.CanonicalMIMEHeaderKey(name)] = v
		}
	}
	return nil
}

// badHeaderName says why name may not be a configured header, or "".
func badHeaderName(name string) string {
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }) >= 0 {
		return fmt.Sprintf("%q is not a header name", name)
	}
	switch c := textproto.CanonicalMIMEHeaderKey(name); {
	case c == "Host" || c == "Content-Length" || strings.HasPrefix(c, "Proxy-"),
		c == "Connection" || c == "Keep-Alive" || c == "Te" || c == "Trailer" || c == "Transfer-Encoding" || c == "Upgrade":
		return fmt.Sprintf("%s is set by the connection itself and cannot be configured", c)
	}
	return ""
}

// ExpandEnv replaces each ${env:NAME} of s with the variable's value; an unset variable, or
// one whose value holds a CR or LF, is refused.
func ExpandEnv(s string) (string, error) {
	var err error
	out := envRef().ReplaceAllStringFunc(s, func(m string) string {
		name := envRef().FindStringSubmatch(m)[1]
		v, ok := os.LookupEnv(name)
		switch {
		case !ok && err == nil:
			err = fmt.Errorf("%q names ${env:%s}, which is not set; set it in the environment cwx runs in, or write the value", s, name)
		case strings.ContainsAny(v, "\r\n") && err == nil:
			err = fmt.Errorf("${env:%s} holds a line break; a path or header value is one line", name)
		}
		return v
	})
	if err == nil && strings.Contains(out, "${") {
		err = fmt.Errorf("%q has a ${…} that is not ${env:NAME}", s)
	}
	return out, err
}

// ParseOrigin checks that s is an origin, http or https with a host and no path, query,
// fragment or user information, and returns it normalized: lower case, the scheme's
// default port left out.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not an origin; write scheme://host[:port], e.g. https://api.example.com", s)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q is more than an origin; write only scheme://host[:port] (a grant covers the whole origin)", s)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}
