package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
	// ConfirmHookNetwork acknowledges that a plugin holding a pre-execute hook, which sees
	// every gated call's input, may also send data to its Network origins.
	ConfirmHookNetwork bool `json:"confirm_hook_network,omitempty"`
}

// Empty reports whether g grants nothing.
func (g Grants) Empty() bool { return len(g.Read) == 0 && len(g.Network) == 0 }

// envRef is ${env:NAME} inside a grant.
var envRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// resolveGrants checks one plugin's grant keys; bad names the offending key.
func resolveGrants(id string, read, network []string, confirm *bool, bad func(key, reason string) error) (Grants, error) {
	var g Grants
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
	return g, nil
}

// ExpandEnv replaces each ${env:NAME} of s with the variable's value; an unset variable, or
// one whose value holds a CR or LF, is refused.
func ExpandEnv(s string) (string, error) {
	var err error
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		name := envRef.FindStringSubmatch(m)[1]
		v, ok := os.LookupEnv(name)
		switch {
		case !ok && err == nil:
			err = fmt.Errorf("%q names ${env:%s}, which is not set; set it or write the path", s, name)
		case strings.ContainsAny(v, "\r\n") && err == nil:
			err = fmt.Errorf("${env:%s} holds a line break; a grant is one path", name)
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
