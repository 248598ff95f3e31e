package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cwx-dev/cwx/core/probecache"
)

// versionProbes counts --version probes actually run; tests read it to check the cache.
var versionProbes atomic.Int64

// Options says what to resolve and where to look.
type Options struct {
	Kind         Kind          // "node", "bun" or "auto"; "" means node
	NodePath     string        // configured Node binary: the only Node candidate when set
	BunPath      string        // configured Bun binary: the only Bun candidate when set
	PathEnv      string        // the PATH to scan
	WorkDir      string        // the working directory; candidates inside it are skipped
	HomeDir      string        // the user's home; when inside WorkDir the WorkDir rule is not applied
	ProbeTimeout time.Duration // per probe; 0 means DefaultProbeTimeout
	ConfigFile   string        // where the fix should point (e.g. $CWX_HOME/config.toml)
	// Cache keeps successful --version and flag probes across processes (core/probecache,
	// keyed by each binary's identity); nil probes every time, as `cwx doctor` does.
	Cache ProbeCache
}

// ProbeCache is where probe successes outlive the process: core/probecache's Cache.
type ProbeCache interface {
	Get(key string) (string, bool)
	Put(key, value string)
}

// Runtime is a resolved, usable runtime.
type Runtime struct {
	Kind      Kind     `json:"kind"`                 // KindNode or KindBun
	Path      string   `json:"path"`                 // absolute path of the binary that was probed
	Version   string   `json:"version"`              // exactly what --version printed ("v22.23.5", "1.4.5")
	Source    string   `json:"source"`               // SourceConfig or SourcePATH
	NodeFlags []string `json:"node_flags,omitempty"` // optional Node flags the binary accepted
}

// HelloVersion is the version as the host reports it in host/hello's runtime.version
// (process.versions.node or process.versions.bun): Version without Node's leading "v".
func (r Runtime) HelloVersion() string { return strings.TrimPrefix(r.Version, "v") }

// Where a candidate came from.
const (
	SourceConfig = "config"
	SourcePATH   = "PATH"
)

// Candidate is a binary that was considered and not used.
type Candidate struct {
	Path    string `json:"path"`
	Kind    Kind   `json:"kind"`
	Version string `json:"version,omitempty"` // what --version printed, when it was run and parsed
	Source  string `json:"source"`
	Reason  string `json:"reason"`
}

// Resolution is the outcome of [Resolve].
type Resolution struct {
	Requested Kind        `json:"requested"`          // the effective requested kind
	Chosen    Runtime     `json:"chosen"`             // zero when resolution failed
	Rejected  []Candidate `json:"rejected"`           // every candidate not used, in the order tried
	Fallback  string      `json:"fallback,omitempty"` // auto only: why Bun was not used
}

// ErrNoRuntime is wrapped by every "no usable runtime" failure.
var ErrNoRuntime = errors.New("no usable JavaScript runtime")

// NoRuntimeError says which runtime was wanted, why each candidate failed, and the fix.
type NoRuntimeError struct {
	Kind     Kind
	Rejected []Candidate
	Fix      string
}

func (e *NoRuntimeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no usable %s runtime", kindName(e.Kind))
	if len(e.Rejected) == 0 {
		b.WriteString(": none found on PATH")
	}
	for _, c := range e.Rejected {
		fmt.Fprintf(&b, "; %s: %s", c.Path, c.Reason)
	}
	b.WriteString(". Fix: ")
	b.WriteString(e.Fix)
	return b.String()
}

func (e *NoRuntimeError) Unwrap() error { return ErrNoRuntime }

// kindName is how messages name a kind.
func kindName(k Kind) string {
	switch k {
	case KindNode:
		return "Node.js"
	case KindBun:
		return "Bun"
	case KindAuto:
		return "Bun or Node.js"
	}
	return string(k)
}

// EffectiveKind is the kind Options asks for once defaults apply.
func (o Options) EffectiveKind() Kind {
	if o.Kind != "" {
		return o.Kind
	}
	return KindNode
}

// Resolve finds the runtime Options asks for. The error is a *NoRuntimeError (wrapping
// ErrNoRuntime) when no candidate is usable, or a plain error for a bad Kind.
func Resolve(ctx context.Context, o Options) (Resolution, error) {
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	r := &resolver{o: o, seen: map[string]string{}}
	res := Resolution{Requested: o.EffectiveKind()}
	var order []Kind
	switch res.Requested {
	case KindNode, KindBun:
		order = []Kind{res.Requested}
	case KindAuto:
		order = []Kind{KindBun, KindNode}
	default:
		return res, fmt.Errorf("unknown [extension_host] runtime %q: use \"node\", \"bun\" or \"auto\"", o.Kind)
	}
	for i, kind := range order {
		start := len(r.rejected)
		rt, ok := r.find(ctx, kind)
		if ok {
			if rt.Kind == KindNode {
				rt.NodeFlags = acceptedNodeFlags(ctx, o.Cache, o.ProbeTimeout, rt.Path)
			}
			res.Chosen, res.Rejected = rt, r.rejected
			return res, nil
		}
		if i == 0 && res.Requested == KindAuto {
			res.Fallback = "no usable Bun " + BunFloor + ": " + summarize(r.rejected[start:])
		}
		if err := ctx.Err(); err != nil {
			res.Rejected = r.rejected
			return res, fmt.Errorf("resolving the %s runtime: %w", kind, err)
		}
	}
	res.Rejected = r.rejected
	return res, &NoRuntimeError{Kind: res.Requested, Rejected: r.rejected, Fix: fixFor(res.Requested, o)}
}

func summarize(cs []Candidate) string {
	if len(cs) == 0 {
		return "none found on PATH"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Path + ": " + c.Reason
	}
	return strings.Join(parts, "; ")
}

// fixFor spells out what the user should do.
func fixFor(kind Kind, o Options) string {
	where := o.ConfigFile
	if where == "" {
		where = "config.toml"
	}
	node := fmt.Sprintf("install Node %s (in a cwx checkout, `make tools` puts one at .tools/bin/node) and set `[extension_host] node = \"/path/to/node\"` in %s", NodeFloor, where)
	bun := fmt.Sprintf("install Bun %s (in a cwx checkout, `make tools` puts one at .tools/bin/bun) and set `[extension_host] bun = \"/path/to/bun\"` in %s", BunFloor, where)
	switch kind {
	case KindNode:
		if o.NodePath != "" {
			return fmt.Sprintf("point `[extension_host] node` in %s at Node %s (`make tools` puts one at .tools/bin/node), or remove it to search PATH", where, NodeFloor)
		}
		return node
	case KindBun:
		if o.BunPath != "" {
			return fmt.Sprintf("point `[extension_host] bun` in %s at Bun %s (`make tools` puts one at .tools/bin/bun), or remove it to search PATH", where, BunFloor)
		}
		return bun
	}
	return node + "; or " + bun
}

// resolver carries one resolution's state.
type resolver struct {
	o        Options
	rejected []Candidate
	seen     map[string]string // real path → first path it was probed as
}

func (r *resolver) reject(c Candidate, reason string) {
	c.Reason = reason
	r.rejected = append(r.rejected, c)
}

// find returns the first usable candidate of kind.
func (r *resolver) find(ctx context.Context, kind Kind) (Runtime, bool) {
	configured := r.o.NodePath
	if kind == KindBun {
		configured = r.o.BunPath
	}
	if configured != "" {
		c := Candidate{Path: configured, Kind: kind, Source: SourceConfig}
		if !filepath.IsAbs(configured) {
			r.reject(c, "a configured path must be absolute")
			return Runtime{}, false
		}
		if fi, err := os.Stat(configured); err != nil {
			r.reject(c, fmt.Sprintf("cannot use it: %v", err))
			return Runtime{}, false
		} else if fi.IsDir() {
			r.reject(c, "is a directory, not a binary")
			return Runtime{}, false
		}
		return r.try(ctx, c)
	}
	for _, dir := range filepath.SplitList(r.o.PathEnv) {
		if ctx.Err() != nil {
			return Runtime{}, false
		}
		path := filepath.Join(dir, string(kind))
		if !isExecutable(path) {
			continue
		}
		c := Candidate{Path: path, Kind: kind, Source: SourcePATH}
		if reason := r.skipReason(dir, path); reason != "" {
			r.reject(c, reason)
			continue
		}
		if rt, ok := r.try(ctx, c); ok {
			return rt, true
		}
	}
	return Runtime{}, false
}

// skipReason says why a PATH candidate is not run at all, or "".
func (r *resolver) skipReason(dir, path string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return fmt.Sprintf("skipped without running it: PATH entry %q is relative", dir)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Sprintf("skipped: cannot resolve it: %v", err)
	}
	for _, p := range []string{filepath.Clean(path), real} {
		if inNodeModules(p) {
			return fmt.Sprintf("skipped without running it: %s is inside a node_modules folder", p)
		}
	}
	if wd := r.workDir(); wd != "" {
		for _, p := range []string{filepath.Clean(path), real} {
			if within(p, wd) {
				return fmt.Sprintf("skipped without running it: %s is inside the working directory %s", p, wd)
			}
		}
	}
	if first, dup := r.seen[real]; dup {
		return fmt.Sprintf("same file as %s, already tried", first)
	}
	r.seen[real] = path
	return ""
}

// workDir is the working directory the skip rule applies to, or "" when it is off.
func (r *resolver) workDir() string {
	if r.o.WorkDir == "" {
		return ""
	}
	wd := filepath.Clean(r.o.WorkDir)
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if home := r.o.HomeDir; home != "" {
		if real, err := filepath.EvalSymlinks(home); err == nil {
			home = real
		}
		if within(filepath.Clean(home), wd) {
			return ""
		}
	}
	return wd
}

// try probes a candidate's --version and checks its floor. What an accepted candidate
// printed is kept in the probe cache under the binary's identity, taken before the probe.
func (r *resolver) try(ctx context.Context, c Candidate) (Runtime, bool) {
	key, cacheable := "", false
	if r.o.Cache != nil {
		key, cacheable = probecache.Keyed("runtime-version", []string{c.Path})
	}
	stdout, hit := "", false
	if cacheable {
		stdout, hit = r.o.Cache.Get(key)
	}
	if !hit {
		versionProbes.Add(1)
		res := runProbe(ctx, r.o.ProbeTimeout, c.Path, "--version")
		if res.err != nil {
			r.reject(c, res.describe("`--version`", r.o.ProbeTimeout))
			return Runtime{}, false
		}
		stdout = res.stdout
	}
	v, raw, err := parseVersion(stdout)
	if err != nil {
		r.reject(c, err.Error())
		return Runtime{}, false
	}
	c.Version = raw
	if reason := checkFloor(c.Kind, v, raw); reason != "" {
		r.reject(c, reason)
		return Runtime{}, false
	}
	if cacheable && !hit {
		r.o.Cache.Put(key, stdout)
	}
	return Runtime{Kind: c.Kind, Path: c.Path, Version: raw, Source: c.Source}, true
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func inNodeModules(p string) bool {
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == "node_modules" {
			return true
		}
	}
	return false
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
