package registry

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/core/protocol"
)

const objSchema = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`

func begin(t *testing.T, r *Registry, id string, tier protocol.HostKey) protocol.OwnerRef {
	t.Helper()
	ref, err := r.BeginOwner(id, tier)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func active(t *testing.T, r *Registry, id string) protocol.OwnerRef {
	t.Helper()
	ref := begin(t, r, id, pluginHost)
	if err := r.Activate(ref, pluginHost); err != nil {
		t.Fatal(err)
	}
	return ref
}

func tool(ref protocol.OwnerRef, name string) *protocol.RegisterParams {
	return &protocol.RegisterParams{Owner: ref, Kind: protocol.KindTool, Spec: protocol.RegisterSpec{
		Name: name, Description: "does " + name, InputSchema: []byte(objSchema)}}
}

func command(ref protocol.OwnerRef, name string) *protocol.RegisterParams {
	return &protocol.RegisterParams{Owner: ref, Kind: protocol.KindCommand, Spec: protocol.RegisterSpec{
		Name: name, Description: "runs " + name}}
}

func mustRegister(t *testing.T, r *Registry, p *protocol.RegisterParams) uint64 {
	t.Helper()
	h, err := r.Register(pluginHost, p)
	if err != nil {
		t.Fatalf("register %s %s: %v", p.Kind, p.Spec.Name, err)
	}
	return h
}

func TestBeginOwner(t *testing.T) {
	r := New(Options{})
	tokenRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	a := begin(t, r, "alpha", pluginHost)
	b := begin(t, r, "host:mcp", builtinHost)
	if a.Generation != 1 || b.Generation != 2 {
		t.Fatalf("generations %d, %d: want one registry-wide counter from 1", a.Generation, b.Generation)
	}
	if !tokenRE.MatchString(a.OwnerToken) || !tokenRE.MatchString(b.OwnerToken) || a.OwnerToken == b.OwnerToken {
		t.Fatalf("tokens %q %q", a.OwnerToken, b.OwnerToken)
	}
	if o, _ := r.Owner("alpha"); o.State != Activating || o.Host != pluginHost {
		t.Fatalf("owner %+v", o)
	}
	bad := []struct {
		id   string
		tier protocol.HostKey
	}{
		{"host:mcp", pluginHost},
		{"host:", builtinHost},
		{"host:Bad", builtinHost},
		{"mcp", builtinHost},
		{"", pluginHost},
		{"alpha", pluginHost}, // already live
		{"x", protocol.HostKey{Tier: "other"}},
		{"gamma", protocol.HostKey{Tier: protocol.TierPlugin, Group: "beta"}},         // another plugin's own host
		{"host:mcp", protocol.HostKey{Tier: protocol.TierBuiltin, Group: "host:mcp"}}, // the builtin tier has no own hosts
	}
	for _, tc := range bad {
		if _, err := r.BeginOwner(tc.id, tc.tier); !errors.Is(err, ErrInvalidOwner) {
			t.Errorf("BeginOwner(%q, %s) = %v, want ErrInvalidOwner", tc.id, tc.tier, err)
		}
	}
	if err := r.Revoke(a, pluginHost, "disabled"); err != nil {
		t.Fatal(err)
	}
	a2 := begin(t, r, "alpha", pluginHost)
	if a2.Generation != 3 || a2.OwnerToken == a.OwnerToken {
		t.Fatalf("re-activation %+v", a2)
	}
}

func TestOwnerRefMustMatchExactly(t *testing.T) {
	r := New(Options{})
	old := active(t, r, "alpha")
	if err := r.Revoke(old, pluginHost, "reconfigured"); err != nil {
		t.Fatal(err)
	}
	cur := active(t, r, "alpha")
	other := active(t, r, "beta")
	cases := map[string]struct {
		ref  protocol.OwnerRef
		tier protocol.HostKey
	}{
		"older generation":   {old, pluginHost},
		"wrong token":        {protocol.OwnerRef{PluginID: "alpha", Generation: cur.Generation, OwnerToken: strings.Repeat("0", 64)}, pluginHost},
		"other plugin's gen": {protocol.OwnerRef{PluginID: "alpha", Generation: other.Generation, OwnerToken: other.OwnerToken}, pluginHost},
		"unknown":            {protocol.OwnerRef{PluginID: "zeta", Generation: 99, OwnerToken: "x"}, pluginHost},
		"other tier":         {cur, builtinHost},
		"other host":         {cur, protocol.HostKey{Tier: protocol.TierPlugin, Group: "alpha"}},
		"token case differs": {protocol.OwnerRef{PluginID: "alpha", Generation: cur.Generation, OwnerToken: strings.ToUpper(cur.OwnerToken)}, pluginHost},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := r.Register(tc.tier, tool(tc.ref, "probe"))
			if !errors.Is(err, ErrStaleOwner) || err.Error() != "stale or unknown owner" {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if err := r.Check(cur, pluginHost); err != nil {
		t.Fatalf("current owner: %v", err)
	}
	mustRegister(t, r, tool(cur, "probe"))
}

func TestEndedOwnersCannotRegister(t *testing.T) {
	for _, end := range []func(*Registry, protocol.OwnerRef) error{
		func(r *Registry, ref protocol.OwnerRef) error { return r.Fail(ref, pluginHost, "apply threw") },
		func(r *Registry, ref protocol.OwnerRef) error {
			return r.Fault(ref, pluginHost, "timer threw")
		},
		func(r *Registry, ref protocol.OwnerRef) error { return r.Revoke(ref, pluginHost, "disabled") },
	} {
		r := New(Options{})
		ref := active(t, r, "alpha")
		h := mustRegister(t, r, tool(ref, "probe"))
		mustRegister(t, r, command(ref, "probe"))
		if err := end(r, ref); err != nil {
			t.Fatal(err)
		}
		if len(r.Tools()) != 0 || len(r.Commands()) != 0 || r.Live(h, ref) {
			t.Fatal("registrations survived the owner's end")
		}
		if _, err := r.Register(pluginHost, tool(ref, "probe")); !errors.Is(err, ErrStaleOwner) {
			t.Fatalf("register after end = %v", err)
		}
		if err := end(r, ref); !errors.Is(err, ErrStaleOwner) {
			t.Fatalf("ending twice = %v", err)
		}
		o, _ := r.Owner("alpha")
		if o.State.Live() || o.Reason == "" || o.Tools != 0 {
			t.Fatalf("owner %+v", o)
		}
	}
}

func TestToolAdmission(t *testing.T) {
	big := strings.Repeat("x", MaxToolDescription+1)
	hugeSchema := `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`
	cases := []struct {
		name   string
		spec   protocol.RegisterSpec
		cause  error
		reason string
	}{
		{"reserved name", spec("read_file"), ErrReservedName, "is a reserved name (`read_file`)"},
		{"reserved name other case", spec("Read_File"), ErrReservedName, "is a reserved name (`read_file`)"},
		{"reserved READ", spec("READ"), ErrReservedName, "reserved name (`read`)"},
		{"reserved Bash", spec("Bash"), ErrReservedName, "reserved name (`bash`)"},
		{"reserved tool_search", spec("tool_search"), ErrReservedName, "reserved name"},
		{"prefix mcp_", spec("mcp_thing"), ErrReservedName, "reserved prefix `mcp_`"},
		{"prefix MCP_ upper", spec("MCP_thing"), ErrReservedName, "reserved prefix `mcp_`"},
		{"prefix ext_", spec("ext_thing"), ErrReservedName, "reserved prefix `ext_`"},
		{"web_fetch", spec("web_fetch"), ErrReservedName, "reserved name"},
		{"web_ family", spec("web_lookup"), ErrReservedName, "`web_`"},
		{"read_ family", spec("read_workspace_deps"), ErrReservedName, "`read_`"},
		{"list_ family", spec("list_things"), ErrReservedName, "`list_`"},
		{"get_ family", spec("get_secret"), ErrReservedName, "`get_`"},
		{"run_ family", spec("run_tests"), ErrReservedName, "reserved name"},
		{"exec_ family", spec("exec_wait"), ErrReservedName, "reserved name"},
		{"shell infix", spec("task_shell_start"), ErrReservedName, "reserved name"},
		{"mcp infix", spec("start_mcp_server"), ErrReservedName, "containing `mcp`"},
		{"fim_edit", spec("fim_edit"), ErrReservedName, "reserved name"},
		{"bad grammar digit", spec("1tool"), ErrInvalidSpec, "must match"},
		{"bad grammar dot", spec("a.b"), ErrInvalidSpec, "must match"},
		{"too long", spec("a" + strings.Repeat("b", 64)), ErrInvalidSpec, "must match"},
		{"description too long", protocol.RegisterSpec{Name: "probe", Description: big, InputSchema: []byte(objSchema)}, ErrInvalidSpec, "4097 bytes; the limit is 4096"},
		{"schema too big", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(hugeSchema)}, ErrInvalidSpec, "the limit is 65536"},
		{"schema not object type", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"type":"string"}`)}, ErrInvalidSpec, `"type": "object"`},
		{"schema without type", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"properties":{}}`)}, ErrInvalidSpec, `"type": "object"`},
		{"schema missing", protocol.RegisterSpec{Name: "probe"}, ErrInvalidSpec, "needs an input_schema"},
		{"schema invalid", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"nope"}}}`)}, ErrInvalidSpec, "not a valid JSON Schema"},
		{"remote $ref", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"type":"object","properties":{"a":{"$ref":"https://example.invalid/s.json"}}}`)}, ErrInvalidSpec, "external schema (https://example.invalid/s.json)"},
		{"file $ref", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`)}, ErrInvalidSpec, "external schema (file:///etc/passwd)"},
		{"relative $ref", protocol.RegisterSpec{Name: "probe", InputSchema: []byte(`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`)}, ErrInvalidSpec, "external $ref is not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{})
			ref := active(t, r, "alpha")
			_, err := r.Register(pluginHost, &protocol.RegisterParams{Owner: ref, Kind: protocol.KindTool, Spec: tc.spec})
			if !errors.Is(err, ErrRefused) || !errors.Is(err, tc.cause) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.cause, tc.reason)
			}
			if len(r.Tools()) != 0 {
				t.Fatal("a refused tool is live")
			}
		})
	}
}

func spec(name string) protocol.RegisterSpec {
	return protocol.RegisterSpec{Name: name, Description: "d", InputSchema: []byte(objSchema)}
}

func TestToolNamesAdmitted(t *testing.T) {
	r := New(Options{})
	ref := active(t, r, "alpha")
	for _, n := range []string{"load_workspace_dependencies", "slow_wait", "probe_read", "probe_write", "approval_probe",
		"crash_probe", "hang_probe", "memory_hog", "fixture_script_tool", "A", "a-b_c9"} {
		mustRegister(t, r, tool(ref, n))
	}
	internal := `{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`
	p := tool(ref, "defs_probe")
	p.Spec.InputSchema = []byte(internal)
	mustRegister(t, r, p)
}

func TestEmbedderReservedNames(t *testing.T) {
	r := New(Options{NativeTools: []string{"deploy"}, BuiltinCommands: []string{"model"}})
	ref := active(t, r, "alpha")
	if _, err := r.Register(pluginHost, tool(ref, "Deploy")); !errors.Is(err, ErrReservedName) {
		t.Fatalf("embedder tool: %v", err)
	}
	if _, err := r.Register(pluginHost, command(ref, "model")); !errors.Is(err, ErrReservedName) {
		t.Fatalf("embedder command: %v", err)
	}
}

func TestToolClashAcrossPlugins(t *testing.T) {
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	mustRegister(t, r, tool(a, "probe"))
	for _, n := range []string{"probe", "PROBE", "Probe"} {
		_, err := r.Register(pluginHost, tool(b, n))
		if !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "belongs to plugin `alpha`") {
			t.Fatalf("%s: %v", n, err)
		}
	}
	// Commands are a separate namespace.
	mustRegister(t, r, command(b, "probe"))
}

func TestSameOwnerReplacesUnderNewHandle(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	h1 := mustRegister(t, r, tool(a, "probe"))
	h2 := mustRegister(t, r, tool(a, "Probe"))
	if h2 == h1 {
		t.Fatal("replacement reused the handle")
	}
	if r.Live(h1, a) || !r.Live(h2, a) {
		t.Fatal("old handle still live or new handle not live")
	}
	if o, _ := r.Owner("alpha"); o.Tools != 1 {
		t.Fatalf("owner counts %d tools", o.Tools)
	}
	// Undoing the retired handle is a no-op and leaves the replacement.
	if r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: a, Handle: h1}) {
		t.Fatal("stale handle removed something")
	}
	if tl := r.Tools(); len(tl) != 1 || tl[0].Name != "Probe" || tl[0].Handle != h2 {
		t.Fatalf("tools %+v", tl)
	}
}

func TestUnregisterExactHandle(t *testing.T) {
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	ha := mustRegister(t, r, tool(a, "alpha_probe"))
	hb := mustRegister(t, r, tool(b, "beta_probe"))
	cases := []struct {
		name string
		p    protocol.UnregisterParams
		tier protocol.HostKey
		gone bool
	}{
		{"foreign handle", protocol.UnregisterParams{Owner: a, Handle: hb}, pluginHost, false},
		{"unknown handle", protocol.UnregisterParams{Owner: a, Handle: 999}, pluginHost, false},
		{"stale owner", protocol.UnregisterParams{Owner: protocol.OwnerRef{PluginID: "alpha", Generation: a.Generation, OwnerToken: "x"}, Handle: ha}, pluginHost, false},
		{"wrong tier", protocol.UnregisterParams{Owner: a, Handle: ha}, builtinHost, false},
		{"exact", protocol.UnregisterParams{Owner: a, Handle: ha}, pluginHost, true},
		{"again", protocol.UnregisterParams{Owner: a, Handle: ha}, pluginHost, false},
	}
	for _, tc := range cases {
		if got := r.Unregister(tc.tier, &tc.p); got != tc.gone {
			t.Fatalf("%s: removed = %v", tc.name, got)
		}
	}
	if !r.Live(hb, b) || r.Live(ha, a) {
		t.Fatal("wrong registration removed")
	}
}

func TestToolCaps(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for i := range MaxToolsPerOwner {
		mustRegister(t, r, tool(a, fmt.Sprintf("t%d", i)))
	}
	_, err := r.Register(pluginHost, tool(a, "one_more"))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "128 tools, the limit per plugin") {
		t.Fatalf("owner cap: %v", err)
	}
	// Replacing at the cap is allowed.
	mustRegister(t, r, tool(a, "t0"))
	// Fill the host: 8 owners × 128 = 1024.
	for o := 1; o < MaxToolsPerHost/MaxToolsPerOwner; o++ {
		ref := active(t, r, fmt.Sprintf("p%d", o))
		for i := range MaxToolsPerOwner {
			mustRegister(t, r, tool(ref, fmt.Sprintf("p%d_t%d", o, i)))
		}
	}
	last := active(t, r, "last")
	_, err = r.Register(pluginHost, tool(last, "extra"))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "the plugin tier's host already has 1024 tools") {
		t.Fatalf("host cap: %v", err)
	}
	// The builtin tier counts separately.
	bref := begin(t, r, "host:mcp", builtinHost)
	if _, err := r.Register(builtinHost, tool(bref, "builtin_probe")); err != nil {
		t.Fatalf("builtin tier: %v", err)
	}
	// So does a plugin's own host, and a registration there is its own.
	own := protocol.HostKey{Tier: protocol.TierPlugin, Group: "solo"}
	sref := begin(t, r, "solo", own)
	if err := r.Activate(sref, own); err != nil {
		t.Fatal(err)
	}
	h, err := r.Register(own, tool(sref, "solo_probe"))
	if err != nil {
		t.Fatalf("own host: %v", err)
	}
	if tg, ok := r.LookupTool("solo_probe"); !ok || tg.Host != own || tg.Others != 0 || tg.Handle != h {
		t.Fatalf("own host's target %+v", tg)
	}
	if _, err := r.Register(pluginHost, tool(sref, "solo_other")); !errors.Is(err, ErrStaleOwner) {
		t.Fatalf("an own host's owner registered through the shared host: %v", err)
	}
	// Dropping an owner frees room.
	if err := r.Revoke(a, pluginHost, "disabled"); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, r, tool(last, "extra"))
}

func TestCommandAdmission(t *testing.T) {
	hint := func(s string) *string { return &s }
	cases := []struct {
		name   string
		spec   protocol.RegisterSpec
		cause  error
		reason string
	}{
		{"builtin help", protocol.RegisterSpec{Name: "help", Description: "d"}, ErrReservedName, "built-in command"},
		{"builtin exit", protocol.RegisterSpec{Name: "exit", Description: "d"}, ErrReservedName, "built-in command"},
		{"builtin plugins", protocol.RegisterSpec{Name: "plugins", Description: "d"}, ErrReservedName, "built-in command"},
		{"upper case", protocol.RegisterSpec{Name: "Export", Description: "d"}, ErrInvalidSpec, "must match"},
		{"empty description", protocol.RegisterSpec{Name: "export", Description: "  "}, ErrInvalidSpec, "non-empty description"},
		{"long description", protocol.RegisterSpec{Name: "export", Description: strings.Repeat("d", MaxCommandDescription+1)}, ErrInvalidSpec, "the limit is 1024"},
		{"multi-line description", protocol.RegisterSpec{Name: "export", Description: "a\nb"}, ErrInvalidSpec, "one line"},
		{"escape in description", protocol.RegisterSpec{Name: "export", Description: "a\x1b[31m"}, ErrInvalidSpec, "control characters"},
		{"empty hint", protocol.RegisterSpec{Name: "export", Description: "d", ArgumentHint: hint("")}, ErrInvalidSpec, "hint"},
		{"long hint", protocol.RegisterSpec{Name: "export", Description: "d", ArgumentHint: hint(strings.Repeat("h", MaxArgumentHint+1))}, ErrInvalidSpec, "the limit is 256"},
		{"control in hint", protocol.RegisterSpec{Name: "export", Description: "d", ArgumentHint: hint("a\tb")}, ErrInvalidSpec, "control characters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := New(Options{})
			ref := active(t, r, "alpha")
			_, err := r.Register(pluginHost, &protocol.RegisterParams{Owner: ref, Kind: protocol.KindCommand, Spec: tc.spec})
			if !errors.Is(err, tc.cause) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.cause, tc.reason)
			}
		})
	}
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	p := command(a, "export")
	p.Spec.ArgumentHint = hint("[format]")
	p.Spec.Description = "  Export the session log  "
	mustRegister(t, r, p)
	if _, err := r.Register(pluginHost, command(b, "export")); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("clash: %v", err)
	}
	c, ok := r.Command("export")
	if !ok || c.Description != "Export the session log" || c.ArgumentHint != "[format]" || c.Origin != "extension:alpha" {
		t.Fatalf("command %+v", c)
	}
}

func TestCommandCaps(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for i := range MaxCommandsPerOwner {
		mustRegister(t, r, command(a, fmt.Sprintf("c%d", i)))
	}
	if _, err := r.Register(pluginHost, command(a, "more")); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "64 commands") {
		t.Fatalf("owner cap: %v", err)
	}
	for o := 1; o < MaxCommandsPerHost/MaxCommandsPerOwner; o++ {
		ref := active(t, r, fmt.Sprintf("p%d", o))
		for i := range MaxCommandsPerOwner {
			mustRegister(t, r, command(ref, fmt.Sprintf("p%d-c%d", o, i)))
		}
	}
	last := active(t, r, "last")
	if _, err := r.Register(pluginHost, command(last, "extra")); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "256 commands, the limit per host") {
		t.Fatalf("host cap: %v", err)
	}
}

func TestUnsupportedKinds(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	for _, k := range []protocol.RegisterKind{"widget"} {
		_, err := r.Register(pluginHost, &protocol.RegisterParams{Owner: a, Kind: k, Spec: protocol.RegisterSpec{Name: "x", Description: "d"}})
		if !errors.Is(err, ErrUnsupportedKind) || err.Error() != string(k)+" is not supported yet" {
			t.Fatalf("%s: %v", k, err)
		}
		res := Result(0, err)
		if res.Handle != nil || res.Refused == nil || *res.Refused != string(k)+" is not supported yet" {
			t.Fatalf("result %+v", res)
		}
	}
	res := Result(7, nil)
	if res.Handle == nil || *res.Handle != 7 || res.Refused != nil {
		t.Fatalf("result %+v", res)
	}
}

func TestHandlesNeverReused(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	seen := make(map[uint64]bool, 20000)
	for i := range 10000 {
		p := tool(a, "probe")
		if i%2 == 1 {
			p = command(a, "probe")
		}
		h := mustRegister(t, r, p)
		if seen[h] {
			t.Fatalf("cycle %d: handle %d reused", i, h)
		}
		seen[h] = true
		if !r.Unregister(pluginHost, &protocol.UnregisterParams{Owner: a, Handle: h}) {
			t.Fatalf("cycle %d: unregister failed", i)
		}
	}
	if len(r.Tools())+len(r.Commands()) != 0 {
		t.Fatal("registrations left")
	}
	if o, _ := r.Owner("alpha"); o.Tools != 0 || o.Commands != 0 {
		t.Fatalf("counts %+v", o)
	}
}

func TestActivatingOwnersAreNotListed(t *testing.T) {
	r := New(Options{})
	ref := begin(t, r, "alpha", pluginHost)
	h := mustRegister(t, r, tool(ref, "probe"))
	if len(r.Tools()) != 0 || r.Live(h, ref) {
		t.Fatal("an activating owner's tool is listed or live")
	}
	if _, ok := r.Tool("probe"); ok {
		t.Fatal("Tool found an activating owner's tool")
	}
	if err := r.Activate(ref, pluginHost); err != nil {
		t.Fatal(err)
	}
	ti, ok := r.Tool("probe")
	if !ok || ti.Handle != h || ti.Origin != "extension:alpha" || string(ti.InputSchema) != objSchema || !r.Live(h, ref) {
		t.Fatalf("tool %+v", ti)
	}
	if _, ok := r.Tool("PROBE"); ok {
		t.Fatal("Tool matched another case")
	}
	if err := r.Activate(ref, pluginHost); !errors.Is(err, ErrStaleOwner) {
		t.Fatalf("activate twice: %v", err)
	}
}

func TestBuiltinTierOwnership(t *testing.T) {
	r := New(Options{})
	b := begin(t, r, "host:mcp", builtinHost)
	p := active(t, r, "alpha")
	if _, err := r.Register(pluginHost, tool(b, "probe")); !errors.Is(err, ErrStaleOwner) {
		t.Fatalf("plugin host registering for a builtin owner: %v", err)
	}
	if _, err := r.Register(builtinHost, tool(p, "probe")); !errors.Is(err, ErrStaleOwner) {
		t.Fatalf("builtin host registering for a plugin owner: %v", err)
	}
}

func TestHostExited(t *testing.T) {
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	c := begin(t, r, "gamma", pluginHost)
	bi := begin(t, r, "host:mcp", builtinHost)
	mustRegister(t, r, tool(a, "a_probe"))
	mustRegister(t, r, tool(c, "c_probe"))
	replay, blamed := r.HostExited(pluginHost, "exited with signal 9")
	if strings.Join(replay, ",") != "alpha,beta" || blamed != "gamma" {
		t.Fatalf("replay %v blamed %q", replay, blamed)
	}
	if o, _ := r.Owner("gamma"); o.State != Failed || o.Reason != "host crashed during activation: exited with signal 9" {
		t.Fatalf("gamma %+v", o)
	}
	if o, _ := r.Owner("alpha"); o.State != Revoked {
		t.Fatalf("alpha %+v", o)
	}
	if len(r.Tools()) != 0 || r.Check(b, pluginHost) == nil {
		t.Fatal("plugin tier owners survived")
	}
	if err := r.Check(bi, builtinHost); err != nil {
		t.Fatalf("builtin owner affected: %v", err)
	}
	// Two activating owners: neither is blamed.
	r2 := New(Options{})
	begin(t, r2, "x", pluginHost)
	begin(t, r2, "y", pluginHost)
	if replay, blamed := r2.HostExited(pluginHost, "oom"); blamed != "" || len(replay) != 2 {
		t.Fatalf("replay %v blamed %q", replay, blamed)
	}
}

func TestValidateInput(t *testing.T) {
	r := New(Options{})
	a := active(t, r, "alpha")
	p := tool(a, "probe")
	p.Spec.InputSchema = []byte(`{"type":"object","properties":{` +
		`"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"},"d":{"type":"array"},` +
		`"e":{"type":"object"},"f":{"type":"number","maximum":3}},"required":["a"]}`)
	h := mustRegister(t, r, p)
	if err := r.ValidateInput(h, []byte(`{"a":"x","b":2,"f":3}`)); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	err := r.ValidateInput(h, []byte(`{"b":"x","c":1,"d":{},"e":[],"f":4}`))
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("err = %v", err)
	}
	if len(ie.Violations) != MaxViolations || ie.More != 1 || !strings.Contains(err.Error(), "(and 1 more)") {
		t.Fatalf("violations %q more %d", ie.Violations, ie.More)
	}
	for _, bad := range []string{`{`, `[]`, `{"a":"x"} {}`} {
		if err := r.ValidateInput(h, []byte(bad)); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("%s: %v", bad, err)
		}
	}
	if err := r.ValidateInput(999, []byte(`{}`)); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown handle: %v", err)
	}
	ch := mustRegister(t, r, command(a, "export"))
	if err := r.ValidateInput(ch, []byte(`{}`)); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("command handle: %v", err)
	}
}

func TestConcurrentRegistration(t *testing.T) {
	r := New(Options{})
	refs := make([]protocol.OwnerRef, 8)
	for i := range refs {
		refs[i] = active(t, r, fmt.Sprintf("p%d", i))
	}
	done := make(chan error, len(refs))
	for i, ref := range refs {
		go func() {
			for j := range 50 {
				// Every plugin races for "shared"; exactly one wins.
				r.Register(pluginHost, tool(ref, "shared"))
				h, err := r.Register(pluginHost, tool(ref, fmt.Sprintf("p%d_t%d", i, j)))
				if err != nil {
					done <- err
					return
				}
				r.ValidateInput(h, []byte(`{"q":"x"}`))
				r.Tools()
			}
			done <- nil
		}()
	}
	for range refs {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, ti := range r.Tools() {
		if ti.Name == "shared" {
			n++
		}
	}
	if n != 1 || len(r.Tools()) != 8*50+1 {
		t.Fatalf("shared held %d times, %d tools", n, len(r.Tools()))
	}
}

func TestIdenticalSchemasShareACompilation(t *testing.T) {
	r := New(Options{})
	a, b := active(t, r, "alpha"), active(t, r, "beta")
	self := `{"type":"object","properties":{"child":{"$ref":"#"}},"additionalProperties":false}`
	var handles []uint64
	for _, p := range []*protocol.RegisterParams{tool(a, "tree_a"), tool(b, "tree_b")} {
		p.Spec.InputSchema = []byte(self)
		handles = append(handles, mustRegister(t, r, p))
	}
	for _, h := range handles {
		if err := r.ValidateInput(h, []byte(`{"child":{"child":{}}}`)); err != nil {
			t.Fatal(err)
		}
		if err := r.ValidateInput(h, []byte(`{"child":{"x":1}}`)); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("err = %v", err)
		}
	}
	if r.schemas.m[self] == nil || len(r.schemas.m) != 1 {
		t.Fatalf("cache holds %d schemas", len(r.schemas.m))
	}
	// A refused schema is refused every time (refusals are not cached).
	for range 2 {
		p := tool(a, "remote")
		p.Spec.InputSchema = []byte(`{"type":"object","$ref":"https://example.invalid/x.json"}`)
		if _, err := r.Register(pluginHost, p); !errors.Is(err, ErrInvalidSpec) {
			t.Fatalf("err = %v", err)
		}
	}
}
