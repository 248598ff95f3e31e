package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

const owner = `{"plugin_id":"p","generation":1,"owner_token":"t"}`

func answering(method string) AnswerLookup {
	return func(uint64) (string, bool) { return method, true }
}

// nested returns core/call params whose input nests depth containers below the envelope
// (the envelope is level 1, params 2, input 3).
func coreCallNested(levels int) []byte {
	input := strings.Repeat("[", levels) + strings.Repeat("]", levels)
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"core/call","params":{"owner":` + owner +
		`,"ticket":"t","name":"read_file","input":` + input + `}}`)
}

func TestNesting(t *testing.T) {
	if _, err := ParseHostMessage(coreCallNested(MaxDepth-2), TierPlugin, nil); err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	for _, levels := range []int{MaxDepth - 1, 10_000, 1_000_000} {
		_, err := ParseHostMessage(coreCallNested(levels), TierPlugin, nil)
		if !errors.Is(err, ErrTooDeep) || !errors.Is(err, ErrInvalidMessage) {
			t.Fatalf("%d levels below params: err = %v, want ErrTooDeep", levels, err)
		}
		if !strings.Contains(err.Error(), "deeper than 64") {
			t.Fatalf("reason %q does not say why", err)
		}
	}
	// 10,000 levels of objects in an unparsed payload are refused as well.
	deep := []byte(strings.Repeat(`{"a":`, 10_000) + "1" + strings.Repeat("}", 10_000))
	if _, err := ParseCoreMessage(deep, TierPlugin, nil); !errors.Is(err, ErrTooDeep) {
		t.Fatalf("10,000 nested objects: %v", err)
	}
}

func logWith(msg string) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","msg":"` + msg + `"}}`)
}

func TestStrictJSON(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		kind    error
		reason  string
	}{
		{"invalid byte", logWith("caf\xe9"), ErrInvalidUTF8, "invalid UTF-8"},
		{"truncated multibyte", logWith("\xe2\x82"), ErrInvalidUTF8, "invalid UTF-8"},
		{"overlong encoding", logWith("\xc0\xaf"), ErrInvalidUTF8, "invalid UTF-8"},
		{"surrogate encoded in UTF-8", logWith("\xed\xa0\x80"), ErrInvalidUTF8, "invalid UTF-8"},
		{"lone high surrogate escape", logWith(`\ud800`), ErrInvalidUTF8, "lone UTF-16 surrogate"},
		{"lone low surrogate escape", logWith(`\udc00x`), ErrInvalidUTF8, "lone UTF-16 surrogate"},
		{"reversed surrogate pair", logWith(`\udc00\ud800`), ErrInvalidUTF8, "lone UTF-16 surrogate"},
		{"invalid UTF-8 after an escape", logWith("\\n\xff"), ErrInvalidUTF8, "invalid UTF-8"},
		{"duplicate params key", []byte(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","msg":"a","msg":"a"}}`), ErrDuplicateKey, `duplicate key "msg"`},
		{"duplicate key by escape", []byte(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","msg":"a","m\u0073g":"a"}}`), ErrDuplicateKey, `duplicate key "msg"`},
		{"duplicate key inside any", []byte(`{"jsonrpc":"2.0","id":1,"method":"core/call","params":{"owner":` + owner + `,"ticket":"t","name":"n","input":{"a":1,"a":2}}}`), ErrDuplicateKey, `duplicate key "a"`},
		{"raw control character", logWith("a\x01b"), ErrSyntax, "control character"},
		{"trailing data", append(logWith("a"), " {}"...), ErrSyntax, "after the top-level value"},
		{"two values", []byte(`{} {}`), ErrSyntax, "after the top-level value"},
		{"bad escape", logWith(`\x`), ErrSyntax, "invalid escape"},
		{"leading zero", []byte(`{"jsonrpc":"2.0","id":01,"result":{}}`), ErrSyntax, "not JSON"},
		{"empty", nil, ErrSyntax, "unexpected end"},
		{"NaN", []byte(`{"jsonrpc":"2.0","id":NaN,"result":{}}`), ErrSyntax, "unexpected character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHostMessage(tt.payload, TierPlugin, nil)
			if !errors.Is(err, tt.kind) || !errors.Is(err, ErrInvalidMessage) {
				t.Fatalf("err = %v, want %v", err, tt.kind)
			}
			var ve *ViolationError
			if !errors.As(err, &ve) || !strings.Contains(ve.Error(), tt.reason) {
				t.Fatalf("err = %v, want a ViolationError mentioning %q", err, tt.reason)
			}
		})
	}
	// Escapes that are valid: a surrogate pair, and every simple escape.
	m, err := ParseHostMessage(logWith(`\ud83d\ude00 \"\\\/\b\f\n\r\t \u00e9`), TierPlugin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Value.(*LogParams).Msg; got != "\U0001F600 \"\\/\b\f\n\r\t é" {
		t.Fatalf("msg = %q", got)
	}
}

func TestKeysAreCaseSensitive(t *testing.T) {
	_, err := ParseHostMessage([]byte(`{"JSONRPC":"2.0","method":"host/ready"}`), TierPlugin, nil)
	if !errors.Is(err, ErrEnvelope) || !strings.Contains(err.Error(), `unknown envelope field "JSONRPC"`) {
		t.Fatalf("err = %v", err)
	}
	// A tolerant core→host type ignores "Handle"; encoding/json must not see it either, or
	// its case-insensitive matching would overwrite handle.
	payload := []byte(`{"jsonrpc":"2.0","id":1,"method":"tool/call","params":{"handle":1,"Handle":99,"call_id":"c","input":{},"deadline_ms":5,"WORKSPACE":"/evil"}}`)
	m, err := ParseCoreMessage(payload, TierPlugin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Value.(*ToolCallParams); p.Handle != 1 || p.Workspace != "" {
		t.Fatalf("decoded %+v: a differently-cased key leaked into the value", p)
	}
	if string(m.Params) != string(payload[strings.Index(string(payload), `{"handle"`):len(payload)-1]) {
		t.Fatalf("Params = %s, want the params object as sent", m.Params)
	}
	// The same message from a host is refused.
	if _, err := ParseHostMessage([]byte(`{"jsonrpc":"2.0","method":"log","params":{"level":"info","Msg":"x","msg":"x"}}`), TierPlugin, nil); err == nil || !strings.Contains(err.Error(), `unknown field "Msg"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestNumbers(t *testing.T) {
	unreg := func(handle string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"registry/unregister","params":{"owner":` + owner + `,"handle":` + handle + `}}`)
	}
	for _, ok := range []string{"0", "17", "9007199254740991"} {
		if _, err := ParseHostMessage(unreg(ok), TierPlugin, nil); err != nil {
			t.Errorf("handle %s: %v", ok, err)
		}
	}
	for _, bad := range []string{"-1", "-0", "1.0", "1e2", "1E+2", "9007199254740992", "18446744073709551616", `"1"`, "true", "null"} {
		_, err := ParseHostMessage(unreg(bad), TierPlugin, nil)
		if err == nil || (!strings.Contains(err.Error(), "unsigned integer") && !strings.Contains(err.Error(), "missing field")) {
			t.Errorf("handle %s: err = %v", bad, err)
		}
	}
	m, err := ParseHostMessage([]byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"gone"}}`), TierPlugin, answering(MethodToolCall))
	if err != nil || m.Error.Code != CodeNotAvailable || m.Error.Message != "gone" {
		t.Fatalf("error response: %+v, %v", m, err)
	}
}

func TestNullMeansAbsent(t *testing.T) {
	m, err := ParseCoreMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"tool/call","params":{"handle":1,"call_id":"c","input":null,"deadline_ms":5,"ticket":null}}`), TierPlugin, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := m.Value.(*ToolCallParams)
	if p.Ticket != "" || string(p.Input) != "null" {
		t.Fatalf("decoded %+v: want ticket absent and input the value null", p)
	}
	if _, err := ParseCoreMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"tool/call","params":{"handle":null,"call_id":"c","input":1,"deadline_ms":5}}`), TierPlugin, nil); err == nil || !strings.Contains(err.Error(), `missing field "handle"`) {
		t.Fatalf("null in a required field: %v", err)
	}
}

func TestResponses(t *testing.T) {
	ok := []byte(`{"jsonrpc":"2.0","id":9,"result":{"status":"ok","tools":["a"]}}`)
	m, err := ParseHostMessage(ok, TierPlugin, answering(MethodExtActivate))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Value.(*ActivateResult); m.Kind != KindResponse || m.ID != 9 || m.Method != MethodExtActivate || r == nil || r.Tools[0] != "a" {
		t.Fatalf("message %+v", m)
	}
	// An id not in flight: returned unchecked for the caller to drop.
	for _, lookup := range []AnswerLookup{nil, func(uint64) (string, bool) { return "", false }} {
		m, err := ParseHostMessage([]byte(`{"jsonrpc":"2.0","id":9,"result":[1,2]}`), TierPlugin, lookup)
		if err != nil || m.Method != "" || string(m.Result) != "[1,2]" || m.Value != nil {
			t.Fatalf("late answer: %+v, %v", m, err)
		}
	}
	// The lookup names a method the core does not send, or a notification.
	for _, method := range []string{MethodRegistryRegister, MethodCancel, MethodHostReady, "nope"} {
		if _, err := ParseHostMessage(ok, TierPlugin, answering(method)); !errors.Is(err, ErrUnknownMethod) {
			t.Errorf("answers %s: err = %v", method, err)
		}
	}
	// An any-object result of a reserved method is kept raw.
	m, err = ParseHostMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"anything":[1]}}`), TierBuiltin, answering(MethodHarnessRun))
	if err != nil || m.Value != nil || string(m.Result) != `{"anything":[1]}` {
		t.Fatalf("harness/run result: %+v, %v", m, err)
	}
}

func TestValueTypes(t *testing.T) {
	// Every method decodes its params into the Go type its table row names.
	for _, spec := range Methods() {
		if spec.params.Name() != spec.ParamsShape {
			t.Errorf("%s: params type %s, shape %s", spec.Name, spec.params, spec.ParamsShape)
		}
	}
	m, err := ParseHostMessage([]byte(`{"jsonrpc":"2.0","method":"host/ready"}`), TierPlugin, nil)
	if err != nil || string(m.Params) != "{}" || m.Kind != KindNotification {
		t.Fatalf("ready without params: %+v, %v", m, err)
	}
	if _, ok := m.Value.(*Empty); !ok {
		t.Fatalf("Value = %T, want *Empty", m.Value)
	}
}

func TestInvalidTierArgument(t *testing.T) {
	_, err := ParseHostMessage([]byte(`{}`), "root", nil)
	if err == nil || errors.Is(err, ErrInvalidMessage) {
		t.Fatalf("err = %v, want a caller error, not a violation", err)
	}
}

func TestEncoders(t *testing.T) {
	tests := []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"request", func() ([]byte, error) { return NewRequest(1, MethodHostPing, nil) }, `{"jsonrpc":"2.0","id":1,"method":"host/ping","params":{}}`},
		{"request typed", func() ([]byte, error) { return NewRequest(2, MethodCancel, &CancelParams{ID: 7}) }, `{"jsonrpc":"2.0","id":2,"method":"$/cancel","params":{"id":7}}`},
		{"notification", func() ([]byte, error) { return NewNotification(MethodHostReady, Empty{}) }, `{"jsonrpc":"2.0","method":"host/ready","params":{}}`},
		{"notification nil pointer", func() ([]byte, error) { return NewNotification(MethodHostReady, (*Empty)(nil)) }, `{"jsonrpc":"2.0","method":"host/ready","params":{}}`},
		{"result", func() ([]byte, error) { return NewResult(3, nil) }, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{"result html", func() ([]byte, error) {
			return NewResult(0, &RegisterResult{Refused: ptr("name <x> & y")})
		}, `{"jsonrpc":"2.0","id":0,"result":{"refused":"name <x> & y"}}`},
		{"error", func() ([]byte, error) {
			return NewErrorResponse(4, &RPCError{Code: CodeCancelled, Message: "cancelled"})
		}, `{"jsonrpc":"2.0","id":4,"error":{"code":-32800,"message":"cancelled"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.got()
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
	if _, err := NewErrorResponse(1, nil); err == nil {
		t.Fatal("NewErrorResponse(nil) succeeded")
	}
	if _, err := NewRequest(1, MethodToolCall, func() {}); err == nil {
		t.Fatal("NewRequest with unencodable params succeeded")
	}
}

func ptr[T any](v T) *T { return &v }

// TestRoundTripTypes encodes typed values with the encoders and parses them back.
func TestRoundTripTypes(t *testing.T) {
	hello := &HelloParams{Protocol: ProtocolRange{1, 1}, HostVersion: "0.1.0", BundleSHA256: "ab",
		Runtime: RuntimeInfo{RuntimeBun, "1.4.4"}, Tier: TierBuiltin, BuiltinModules: []ModuleDigest{{"mcp", "cd"}}, MemoryLimitMiB: ptr(uint64(512))}
	b, err := NewNotification(MethodHostHello, hello)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseHostMessage(b, TierBuiltin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Value, hello) {
		t.Fatalf("round trip: %+v, want %+v", m.Value, hello)
	}
	act := &ActivateParams{Owner: OwnerRef{"p", 2, "tok"}, PluginName: "p", Entry: EntryRef{"/e.mjs", "ef"},
		Config: json.RawMessage(`{"a":[1,2]}`), DataDir: "/d"}
	b, _ = NewRequest(5, MethodExtActivate, act)
	if m, err = ParseCoreMessage(b, TierPlugin, nil); err != nil || !reflect.DeepEqual(m.Value, act) {
		t.Fatalf("activate round trip: %+v, %v", m, err)
	}
}

func TestMethodTable(t *testing.T) {
	if got := len(Methods()); got != 23 {
		t.Fatalf("%d methods, want 23 (core/protocol doc.go, “Methods”)", got)
	}
	if got := len(Pairs()); got != 24 {
		t.Fatalf("%d (method, direction) pairs, want 24", got)
	}
	builtin := map[string]bool{MethodHarnessRun: true}
	for _, s := range Methods() {
		if got := !s.AllowedOn(TierPlugin); got != builtin[s.Name] {
			t.Errorf("%s: builtin-only = %v, want %v", s.Name, got, builtin[s.Name])
		}
		if !s.AllowedOn(TierBuiltin) {
			t.Errorf("%s not allowed on the builtin tier", s.Name)
		}
		if s.Request != (s.ResultShape != "") {
			t.Errorf("%s: request %v with result shape %q", s.Name, s.Request, s.ResultShape)
		}
		if _, ok := Shapes()[s.ParamsShape]; !ok {
			t.Errorf("%s: params shape %q missing", s.Name, s.ParamsShape)
		}
	}
	notifications := []string{MethodHostHello, MethodHostReady, MethodExtFaulted, MethodLog, MethodCancel}
	for _, n := range notifications {
		if s, _ := Lookup(n); s.Request {
			t.Errorf("%s is a notification", n)
		}
	}
	if s, _ := Lookup(MethodCancel); !s.SentBy(HostToCore) || !s.SentBy(CoreToHost) {
		t.Error("$/cancel is sent by both sides")
	}
	if _, ok := Lookup("approval/respond"); ok {
		t.Error("no method expresses approval")
	}
}

func TestViolationError(t *testing.T) {
	_, err := ParseHostMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"harness/run","params":{}}`), TierPlugin, nil)
	var ve *ViolationError
	if !errors.As(err, &ve) || ve.Method != MethodHarnessRun || !errors.Is(err, ErrUnknownMethod) {
		t.Fatalf("err = %#v", err)
	}
	e := &RPCError{Code: CodeDenied, Message: "the user declined"}
	if got := e.Error(); got != "Denied (-32003): the user declined" {
		t.Fatalf("RPCError.Error() = %q", got)
	}
	if got := (&RPCError{Code: 7, Message: "x"}).Error(); got != "error 7: x" {
		t.Fatalf("RPCError.Error() = %q", got)
	}
	if KindRequest.String() != "request" || Kind(9).String() != "Kind(9)" {
		t.Fatal("Kind.String")
	}
	_ = fmt.Sprint(KindNotification, KindResponse)
}

// TestLargePayloadCost parses a 2 MiB frame whose input holds a million small values:
// values inside a field of type any are validated but never built into a tree, so the
// cost is a few copies of the payload and a bounded number of allocations.
func TestLargePayloadCost(t *testing.T) {
	const items = 1 << 20
	payload := coreCallInput("[" + strings.Repeat("1,", items) + `"\u00e9"]`)
	var stats [2]runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&stats[0])
	m, err := ParseHostMessage(payload, TierPlugin, nil)
	runtime.ReadMemStats(&stats[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Value.(*CoreCallParams).Input); got < 2*items {
		t.Fatalf("input of %d bytes, want all of it", got)
	}
	bytesAlloc, mallocs := stats[1].TotalAlloc-stats[0].TotalAlloc, stats[1].Mallocs-stats[0].Mallocs
	t.Logf("%d byte payload: %d bytes in %d allocations", len(payload), bytesAlloc, mallocs)
	if bytesAlloc > 8*uint64(len(payload)) || mallocs > 10_000 {
		t.Fatalf("%d byte payload cost %d bytes in %d allocations; want a few copies, not a tree", len(payload), bytesAlloc, mallocs)
	}
	if _, err := ParseHostMessage(make([]byte, MaxFrame+1), TierPlugin, nil); err == nil || !strings.Contains(err.Error(), "frame limit") {
		t.Fatalf("payload over MaxFrame: %v", err)
	}
}

func coreCallInput(input string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"core/call","params":{"owner":` + owner +
		`,"ticket":"t","name":"read_file","input":` + input + `}}`)
}

// TestMapDecode covers the map field type (no wire type uses it yet; the TS side has it).
func TestMapDecode(t *testing.T) {
	data := []byte(`{"a\u0001":"x","b":"y"}`)
	root, _, err := scanJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{data: data, allStrict: true}
	c.enter(pathSeg{name: "m"})
	var got map[string]string
	if err := c.check(FieldType{T: "map", Of: &FieldType{T: "string"}}, root, reflect.ValueOf(&got).Elem()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a\x01"] != "x" || got["b"] != "y" {
		t.Fatalf("decoded %q", got)
	}
	c = &checker{data: data, allStrict: true}
	c.enter(pathSeg{name: "m"})
	var nums map[string]uint64
	if err := c.check(FieldType{T: "map", Of: &FieldType{T: "uint"}}, root, reflect.ValueOf(&nums).Elem()); err == nil || !strings.Contains(err.Error(), "must be an unsigned integer (got a string)") {
		t.Fatalf("err = %v", err)
	}
}
