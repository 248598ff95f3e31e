package protocol

import "encoding/json"

// Wire types (ARCHITECTURE.md, “Protocol”). A field tagged omitempty is optional (null means
// absent); every other field is required. A json.RawMessage field is "any JSON value"; with
// the tag cwx:"object" it must be a JSON object. Named string types listed in enumValues are
// enums.

// Empty is the params or result that must be exactly {} (host/ping, host/ready, ...).
type Empty struct{}

// OwnerRef identifies one activation of one plugin.
type OwnerRef struct {
	PluginID   string `json:"plugin_id"`
	Generation uint64 `json:"generation"`
	OwnerToken string `json:"owner_token"`
}

// EntryRef names an entry file and its digest (lower-case hex sha256).
type EntryRef struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ProtocolRange is the range of protocol versions a host speaks.
type ProtocolRange struct {
	Min uint64 `json:"min"`
	Max uint64 `json:"max"`
}

// RuntimeName is the JavaScript runtime a host runs on.
type RuntimeName string

// The two runtimes.
const (
	RuntimeNode RuntimeName = "node"
	RuntimeBun  RuntimeName = "bun"
)

// RuntimeInfo is the runtime a host reports in host/hello.
type RuntimeInfo struct {
	Name    RuntimeName `json:"name"`
	Version string      `json:"version"`
}

// ModuleDigest is one builtin module the bundle embeds.
type ModuleDigest struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
}

// HelloParams is host/hello: the host's identity, checked by the core before initialize.
type HelloParams struct {
	Protocol       ProtocolRange  `json:"protocol"`
	HostVersion    string         `json:"host_version"`
	BundleSHA256   string         `json:"bundle_sha256"`
	Runtime        RuntimeInfo    `json:"runtime"`
	Tier           Tier           `json:"tier"`
	BuiltinModules []ModuleDigest `json:"builtin_modules"`
	MemoryLimitMiB *uint64        `json:"memory_limit_mib,omitempty"`
}

// HostLimits are the limits the core announces in host/initialize.
type HostLimits struct {
	MaxFrame           uint64 `json:"max_frame"`
	MaxInflight        uint64 `json:"max_inflight"`
	DisposeDeadlineMS  uint64 `json:"dispose_deadline_ms"`
	ActivateDeadlineMS uint64 `json:"activate_deadline_ms"`
}

// InitializeParams is host/initialize.
type InitializeParams struct {
	Protocol uint64     `json:"protocol"`
	Limits   HostLimits `json:"limits"`
	// FetchProxy is set when the host has no network of its own (it runs sandboxed): its
	// global fetch then goes over net/* to the core, and the runtime's other ways out
	// (node:http, node:net, WebSocket, …) refuse, naming the fetch proxy.
	FetchProxy bool `json:"fetch_proxy,omitempty"`
}

// ActivateParams is ext/activate: run one entry of a plugin under an owner.
type ActivateParams struct {
	Owner      OwnerRef        `json:"owner"`
	PluginName string          `json:"plugin_name"`
	Entry      EntryRef        `json:"entry"`
	Config     json.RawMessage `json:"config,omitempty"`
	Scope      *EntryRef       `json:"scope,omitempty"`
	DataDir    string          `json:"data_dir,omitempty"`
}

// ActivateStatus tags an ActivateResult.
type ActivateStatus string

// Activation outcomes.
const (
	ActivateOK     ActivateStatus = "ok"
	ActivateFailed ActivateStatus = "failed"
)

// ActivateResult answers ext/activate: {status:"ok", tools, commands?} or
// {status:"failed", diagnostic}.
type ActivateResult struct {
	Status     ActivateStatus `json:"status"`
	Tools      []string       `json:"tools,omitzero"`
	Commands   []string       `json:"commands,omitzero"`
	Diagnostic string         `json:"diagnostic,omitempty"`
}

// DeactivateParams is ext/deactivate; Entry retires one entry of a multi-entry owner.
type DeactivateParams struct {
	Owner OwnerRef  `json:"owner"`
	Entry *EntryRef `json:"entry,omitempty"`
}

// DeactivateResult answers ext/deactivate. Leaked lists "tool:x", "command:y", "effect:z".
type DeactivateResult struct {
	Disposed bool     `json:"disposed"`
	Leaked   []string `json:"leaked"`
}

// ToolCallParams is tool/call.
type ToolCallParams struct {
	Handle       uint64          `json:"handle"`
	CallID       string          `json:"call_id"`
	Input        json.RawMessage `json:"input"`
	DeadlineMS   uint64          `json:"deadline_ms"`
	Workspace    string          `json:"workspace,omitempty"`
	Ticket       string          `json:"ticket,omitempty"`
	SessionID    string          `json:"session_id,omitempty"`
	AgentID      string          `json:"agent_id,omitempty"`
	OriginTurnID string          `json:"origin_turn_id,omitempty"`
}

// ContentType tags a ContentBlock: the MCP content block types cwx carries.
type ContentType string

// The content block types. Each carries its own fields (ContentBlock's rule, rules.go); the
// core's content policy bounds them (package content).
const (
	ContentText         ContentType = "text"          // text
	ContentImage        ContentType = "image"         // data (base64), mime_type image/*
	ContentAudio        ContentType = "audio"         // data (base64), mime_type audio/*
	ContentResourceLink ContentType = "resource_link" // uri, name, mime_type?
	ContentResource     ContentType = "resource"      // uri, mime_type?, and text or blob (base64)
)

// ContentBlock is one block of a tool result.
type ContentBlock struct {
	Type     ContentType `json:"type"`
	Text     string      `json:"text,omitempty"`
	Data     string      `json:"data,omitempty"`
	MimeType string      `json:"mime_type,omitempty"`
	URI      string      `json:"uri,omitempty"`
	Name     string      `json:"name,omitempty"`
	Blob     string      `json:"blob,omitempty"`
}

// ToolResult answers tool/call and core/call.
type ToolResult struct {
	Content    []ContentBlock  `json:"content"`
	IsError    bool            `json:"is_error"`
	Structured json.RawMessage `json:"structured,omitempty"`
}

// CommandRunParams is command/run.
type CommandRunParams struct {
	Handle       uint64 `json:"handle"`
	CommandID    string `json:"command_id"`
	RawInput     string `json:"raw_input"`
	DeadlineMS   uint64 `json:"deadline_ms"`
	Workspace    string `json:"workspace,omitempty"`
	Ticket       string `json:"ticket,omitempty"`
	SessionID    string `json:"session_id,omitempty"`
	AgentID      string `json:"agent_id,omitempty"`
	OriginTurnID string `json:"origin_turn_id,omitempty"`
}

// CommandResultKind tags a CommandResult.
type CommandResultKind string

// Command outcomes.
const (
	CommandSuccess CommandResultKind = "success"
	CommandError   CommandResultKind = "error"
	CommandSubmit  CommandResultKind = "submit"
)

// CommandResult answers command/run: success{text?}, error{text}, submit{prompt, text?}.
type CommandResult struct {
	Kind   CommandResultKind `json:"kind"`
	Text   string            `json:"text,omitempty"`
	Prompt string            `json:"prompt,omitempty"`
}

// HookCallPayload describes the tool call a hook evaluates.
type HookCallPayload struct {
	Name      string          `json:"name"`
	CallID    string          `json:"call_id"`
	Input     json.RawMessage `json:"input"`
	Mode      string          `json:"mode"`
	Workspace string          `json:"workspace"`
	Model     string          `json:"model"`
}

// HookEvaluateParams is hook/evaluate.
type HookEvaluateParams struct {
	Handle     uint64          `json:"handle"`
	Event      string          `json:"event"`
	Payload    HookCallPayload `json:"payload"`
	DeadlineMS uint64          `json:"deadline_ms"`
}

// HookVerdictKind tags a HookVerdict.
type HookVerdictKind string

// Hook verdicts.
const (
	HookAbstain  HookVerdictKind = "abstain"
	HookDeny     HookVerdictKind = "deny"
	HookAsk      HookVerdictKind = "ask"
	HookAnnotate HookVerdictKind = "annotate"
	HookRevise   HookVerdictKind = "revise"
)

// HookVerdict answers hook/evaluate: abstain | deny{reason} | ask{reason} |
// annotate{text} | revise{input}.
type HookVerdict struct {
	Kind   HookVerdictKind `json:"kind"`
	Reason string          `json:"reason,omitempty"`
	Text   string          `json:"text,omitempty"`
	Input  json.RawMessage `json:"input,omitempty" cwx:"object"`
}

// CancelParams is $/cancel: the id of a request the sender itself issued.
type CancelParams struct {
	ID uint64 `json:"id"`
}

// RegisterKind is what registry/register registers.
type RegisterKind string

// Register kinds (any other kind is an invalid frame).
const (
	KindTool          RegisterKind = "tool"
	KindCommand       RegisterKind = "command"
	KindHook          RegisterKind = "hook"
	KindPromptSection RegisterKind = "prompt_section"
)

// RegisterSpec is the thing registered.
type RegisterSpec struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty" cwx:"object"`
	ArgumentHint *string         `json:"argument_hint,omitempty"`
}

// RegisterParams is registry/register. Per kind: tool needs input_schema and has no
// argument_hint; command has no input_schema; hook and prompt_section have neither.
type RegisterParams struct {
	Owner OwnerRef     `json:"owner"`
	Scope *EntryRef    `json:"scope,omitempty"`
	Kind  RegisterKind `json:"kind"`
	Spec  RegisterSpec `json:"spec"`
}

// RegisterResult answers registry/register: exactly one of {handle} or {refused}.
type RegisterResult struct {
	Handle  *uint64 `json:"handle,omitempty"`
	Refused *string `json:"refused,omitempty"`
}

// UnregisterParams is registry/unregister (idempotent).
type UnregisterParams struct {
	Owner  OwnerRef `json:"owner"`
	Handle uint64   `json:"handle"`
}

// CoreCallParams is core/call: the host asks the core to run one of its own tools.
type CoreCallParams struct {
	Owner  OwnerRef        `json:"owner"`
	Ticket string          `json:"ticket"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
}

// UserAskParams is user/ask: a plugin's tool or command, while it runs, asks the person a
// question. The ticket is the invocation's (tool/call's or command/run's).
type UserAskParams struct {
	Owner    OwnerRef     `json:"owner"`
	Ticket   string       `json:"ticket"`
	Question UserQuestion `json:"question"`
}

// UserQuestion is what the person is asked: the question, the choices offered (none: the
// person answers in their own words) and whether their own text is accepted besides.
type UserQuestion struct {
	Text      string       `json:"text"`
	Options   []UserOption `json:"options,omitempty"`
	AllowText bool         `json:"allow_text,omitempty"`
}

// UserOption is one choice of a UserQuestion.
type UserOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// UserAnswerKind tags a UserAnswer.
type UserAnswerKind string

// Answers: one of the options, the person's own text, or skipped.
const (
	AnswerChoice  UserAnswerKind = "choice"
	AnswerText    UserAnswerKind = "text"
	AnswerSkipped UserAnswerKind = "skipped"
)

// UserAnswer is the result of user/ask: {kind: choice, choice}, {kind: text, text} or
// {kind: skipped}.
type UserAnswer struct {
	Kind   UserAnswerKind `json:"kind"`
	Choice string         `json:"choice,omitempty"`
	Text   string         `json:"text,omitempty"`
}

// FaultedParams is ext/faulted: an owner failed after activation.
type FaultedParams struct {
	Owner OwnerRef `json:"owner"`
	Error string   `json:"error"`
}

// BusyParams is host/busy: the host's event loop has been inside one callback of Owner for
// longer than the host's own bound (the host's watchdog thread says so while the loop is
// stuck), or, without Owner, that callback has returned (ARCHITECTURE.md, “Lifecycles and
// numbers”, Blame).
type BusyParams struct {
	Owner *OwnerRef `json:"owner,omitempty"`
}

// LogParams is log.
type LogParams struct {
	Level    string `json:"level"`
	Msg      string `json:"msg"`
	PluginID string `json:"plugin_id,omitempty"`
}

// HookDispatch names the shell hook a harness run serves.
type HookDispatch struct {
	Event   string          `json:"event"`
	Dialect string          `json:"dialect"`
	Point   string          `json:"point"`
	Matcher string          `json:"matcher,omitempty"`
	Query   json.RawMessage `json:"query"`
}

// HarnessRunParams is harness/run (builtin tier only).
type HarnessRunParams struct {
	Owner       OwnerRef      `json:"owner"`
	ExecutionID string        `json:"execution_id"`
	Ticket      string        `json:"ticket"`
	DeadlineMS  uint64        `json:"deadline_ms"`
	Hook        *HookDispatch `json:"hook,omitempty"`
}

// HTTPHeader is one header line of a net/fetch request or its response, in the order written. A
// name may repeat. The core refuses a request header it sets itself or that names a hop (Host,
// Connection, Proxy-*, …); see core/protocol doc.go, “The fetch proxy”.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NetFetchParams is net/fetch: one HTTP exchange through the core's fetch proxy, answered with
// the response head once it arrives. RequestID is chosen by the host and names the exchange in
// net/write, net/read and net/close; it is unique among the owner's open exchanges. Ticket is
// the invocation the request is made for (a tool call or a command), absent outside one. Body is
// base64: the whole request body, or its first chunk when BodyStreamed, in which case the rest
// follows in net/write calls, the last with end set. MaxBytes, when set, asks for the body's
// first bytes with the head (at most MaxBytes, and NetMaxChunk), as a net/read would take them.
type NetFetchParams struct {
	Owner        OwnerRef     `json:"owner"`
	RequestID    string       `json:"request_id"`
	Ticket       string       `json:"ticket,omitempty"`
	Method       string       `json:"method"`
	URL          string       `json:"url"`
	Headers      []HTTPHeader `json:"headers"`
	Body         string       `json:"body,omitempty"`
	BodyStreamed bool         `json:"body_streamed,omitempty"`
	MaxBytes     int          `json:"max_bytes,omitempty"`
}

// NetResponseHead is the result of net/fetch. URL is the final URL after the redirects the core
// followed (Redirected says whether it followed any). The body is pulled with net/read; when the
// request set max_bytes, its first bytes may come with the head as the result's attachment
// (core/protocol doc.go, “Framing”), and EOF says they were all of it (the exchange is then over).
type NetResponseHead struct {
	Status     int          `json:"status"`
	StatusText string       `json:"status_text"`
	Headers    []HTTPHeader `json:"headers"`
	URL        string       `json:"url"`
	Redirected bool         `json:"redirected"`
	EOF        bool         `json:"eof,omitempty"`
}

// NetWriteParams is net/write: the next chunk of a streamed request body (base64, at most
// NetMaxChunk bytes decoded). The core answers once the chunk is handed to the connection, so
// the host never has more than one chunk in flight per exchange.
type NetWriteParams struct {
	Owner     OwnerRef `json:"owner"`
	RequestID string   `json:"request_id"`
	Data      string   `json:"data"`
	End       bool     `json:"end,omitempty"`
}

// NetReadParams is net/read: pull the next chunk of a response body, at most MaxBytes bytes
// (0 or more than NetMaxChunk means NetMaxChunk). The core reads from the connection only
// when asked, so a slow plugin slows its server instead of filling the core's memory.
type NetReadParams struct {
	Owner     OwnerRef `json:"owner"`
	RequestID string   `json:"request_id"`
	MaxBytes  int      `json:"max_bytes,omitempty"`
}

// NetChunk is the result of net/read: EOF says the body ended. The body's bytes are the
// result's attachment (core/protocol doc.go, “Framing”), none when the chunk is empty.
type NetChunk struct {
	EOF bool `json:"eof"`
}

// NetCloseParams is net/close: the host is done with an exchange, at any stage (an upload
// abandoned, a body not read to its end). The core closes the connection's side and forgets the
// exchange. Closing an unknown or closed exchange is not an error.
type NetCloseParams struct {
	Owner     OwnerRef `json:"owner"`
	RequestID string   `json:"request_id"`
}

// NetErrorData is the data of a net/* error answer: Reason is one of the NetReason constants,
// Origin the canonical origin the refusal is about (never a path or a query).
type NetErrorData struct {
	Reason string `json:"reason"`
	Origin string `json:"origin,omitempty"`
}

// Reasons of a net/* error answer (NetErrorData.Reason). The message says the same in words.
const (
	NetReasonNotGranted = "not_granted"  // the origin is not in the plugin's network grant
	NetReasonPrivate    = "private"      // the origin resolved to a private address not in network_private
	NetReasonRedirect   = "redirect"     // a redirect to a refused origin, or https to http
	NetReasonRequest    = "request"      // a refused method, header, scheme or URL
	NetReasonTooLarge   = "too_large"    // the request or the response passed its size cap
	NetReasonDeadline   = "deadline"     // the invocation's deadline or the per-plugin default passed
	NetReasonRateLimit  = "rate_limited" // too many requests outside an invocation
	NetReasonCancelled  = "cancelled"    // the call or the exchange was cancelled
	NetReasonNetwork    = "network"      // DNS, connect, TLS or a broken connection
	NetReasonUnknown    = "unknown"      // no open exchange by that request_id
)
