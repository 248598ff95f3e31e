// The protocol's methods as types: for every method the host serves or sends, the generated
// params and result shapes (protocol.generated.ts), keyed by method name. The RPC peer checks each
// message against the generated method table before a handler sees it and before it leaves, so
// these types describe exactly what passed that check. They mirror METHODS: a method added there
// is added here, or the host refuses to send it and answers it with MethodNotFound.
import type * as P from './protocol.generated.ts';

interface Exchange<Params, Result> {
  params: Params;
  result: Result;
}

/** CoreRequests are the requests the core sends the host (direction core_to_host). */
export interface CoreRequests {
  'host/initialize': Exchange<P.InitializeParams, P.Empty>;
  'host/ping': Exchange<P.Empty, P.Empty>;
  'host/shutdown': Exchange<P.Empty, P.Empty>;
  'ext/activate': Exchange<P.ActivateParams, P.ActivateResult>;
  'ext/deactivate': Exchange<P.DeactivateParams, P.DeactivateResult>;
  'tool/call': Exchange<P.ToolCallParams, P.ToolResult>;
  'command/run': Exchange<P.CommandRunParams, P.CommandResult>;
  'hook/evaluate': Exchange<P.HookEvaluateParams, P.HookVerdict>;
  'harness/run': Exchange<P.HarnessRunParams, P.AnyObject>;
}

/**
 * Attached is what a result with result_attachment (protocol.generated.ts) resolves with beside
 * its fields: the bytes after its JSON text (core/protocol doc.go, “Framing”), empty when none
 * came. It is not a wire field; the RPC peer sets it.
 */
export interface Attached {
  attachment: Uint8Array;
}

/** HostRequests are the requests the host sends the core (direction host_to_core). */
export interface HostRequests {
  'registry/register': Exchange<P.RegisterParams, P.RegisterResult>;
  'registry/unregister': Exchange<P.UnregisterParams, P.Empty>;
  'core/call': Exchange<P.CoreCallParams, P.ToolResult>;
  'user/ask': Exchange<P.UserAskParams, P.UserAnswer>;
  'net/fetch': Exchange<P.NetFetchParams, P.NetResponseHead & Attached>;
  'net/write': Exchange<P.NetWriteParams, P.Empty>;
  'net/read': Exchange<P.NetReadParams, P.NetChunk & Attached>;
  'net/close': Exchange<P.NetCloseParams, P.Empty>;
}

/** HostNotifications are the notifications the host sends the core, by their params. */
export interface HostNotifications {
  'host/hello': P.HelloParams;
  'host/ready': P.Empty;
  'log': P.LogParams;
  'host/busy': P.BusyParams;
  'ext/faulted': P.FaultedParams;
  '$/cancel': P.CancelParams;
}

/** CoreNotifications are the notifications the core sends the host, by their params. */
export interface CoreNotifications {
  '$/cancel': P.CancelParams;
}

export type CoreMethod = keyof CoreRequests;
export type HostMethod = keyof HostRequests;
export type CoreParams<M extends CoreMethod> = CoreRequests[M]['params'];
export type CoreResult<M extends CoreMethod> = CoreRequests[M]['result'];
export type HostParams<M extends HostMethod> = HostRequests[M]['params'];
export type HostResult<M extends HostMethod> = HostRequests[M]['result'];

/** CoreRequest is one validated inbound request: a method and its params. */
export type CoreRequest = { [M in CoreMethod]: { method: M; params: CoreParams<M> } }[CoreMethod];
/** CoreNotification is one validated inbound notification. */
export type CoreNotification = { [M in keyof CoreNotifications]: { method: M; params: CoreNotifications[M] } }[keyof CoreNotifications];

/**
 * Inbound is a message from the core after validation. params is present in a request or
 * notification (absent on the wire means {}); a response carries exactly one of result and error.
 */
export type Inbound =
  | (CoreRequest & { id: number })
  | (CoreNotification & { id?: undefined })
  | { id: number; method?: undefined; result: unknown }
  | { id: number; method?: undefined; error: P.RPCError };

/** Outbound is a message the host sends: validated again, strictly, before it is written. */
export type Outbound =
  | { jsonrpc: '2.0'; id: number; method: HostMethod; params: HostParams<HostMethod> }
  | { jsonrpc: '2.0'; method: keyof HostNotifications; params: HostNotifications[keyof HostNotifications] }
  | { jsonrpc: '2.0'; id: number; result: unknown }
  | { jsonrpc: '2.0'; id: number; error: P.RPCError };
