// Package fetchproxy is the core's side of the fetch proxy (core/protocol doc.go, “The fetch
// proxy”): it serves `net/fetch`, `net/write`, `net/read` and `net/close` for the plugins of
// a host that has no network of its own, sending each request through one core/egress client
// per plugin, under a policy made from the plugin's grants. It reads no frames and knows no
// owner table: the owner layer resolves who asks (a [Caller]: the host, the live owner, a
// context that ends with it, its grants) and the core ties a ticket to its invocation
// (Options.Invocation).
//
// # Policy
//
// A plugin's grants (config.Grants) become an egress.Policy: Allow admits a hop only to an
// origin of `network`, a first request and each redirect alike (a refused redirect names
// both origins); Private lets the origins of `network_private` reach private addresses,
// judged on the address dialed; Header adds the `[plugins."<id>".headers."<origin>"]` table
// for that exact origin, each ${env:NAME} expanded once per owner and set of grants (a
// changed grant makes a new client and policy; open exchanges finish on theirs) (an unset variable refuses
// requests to that origin, naming the variable). The plugin's own request headers are
// refused when hop-by-hop, Host, Proxy-*, Content-Length, or when they name a header
// configured for the request's origin (a plugin may not replace, or learn by an error, the
// credential). TRACE and CONNECT are refused. A response's headers leave out every name
// configured for the plugin, so a server that sets one does not hand it back; a server that
// echoes request headers in its body still does (README, “Fetch proxy”).
//
// # Exchanges
//
// An exchange is keyed by the owner and the host's request_id, at most [MaxOpen] open per
// owner. Its context derives from the owner's (Caller.Context), so it ends when the owner
// ends; [Proxy.HostEnded] ends those of a host incarnation. Within an invocation (the
// request carries a ticket) the context also ends with the invocation, its deadline
// included; a ticket that is not a live invocation's is refused (the core looks it up without
// spending one of its uses: a plugin may poll a service far more often than it calls the
// core). Outside one the exchange has
// Options.Timeout (60 s) and the plugin's requests are rate limited (a token bucket,
// [Rate] per second, burst [Burst]).
//
// A streamed request body is an io.Pipe: `net/write` is answered once the transport took
// the chunk, so the host has one chunk in flight. The host sends `net/write` while its
// `net/fetch` is pending and requests are handled concurrently, so a write that finds no
// exchange waits while that `net/fetch` is being judged (and up to a second for it to start)
// before it answers unknown. When the transport is done with the body (the server answered
// early), the pending write fails. The response head answers `net/fetch`;
// the body is read by one pump goroutine per exchange, [pumpChunk] bytes at a time through a
// buffer of its own, into one buffer of at most [pumpMax] bytes (a bounded read-ahead: a
// slow host stops the reads and so slows the server; no lock is held while it reads), and
// `net/read` takes what is there, up to max_bytes, waiting at most [pumpLinger] after each
// piece for the next once it has data (a bulk body fills few reads; a paused stream is
// answered at once after that). A read that took all there was up to max_bytes waits as
// long again for what follows: when it is the body's end, that read says eof, and the host
// needs no other read to learn it. A net/fetch with max_bytes gathers the body's first bytes
// the same way for its head, but waits at most [pumpLinger] for the first one (a server that
// sent only its head, or a quiet stream, gets the head alone at once). It answers with the bytes as the result's attachment
// (protocol.WithAttachment): they are copied once into the frame, never encoded. The pump is owned by its exchange: it
// ends with the exchange's context, and closing the exchange waits for it. `$/cancel` of a
// pending `net/fetch`, `net/write` or `net/read` (the handler's context) and `net/close` end
// the exchange; after EOF or an error it is forgotten.
//
// # Errors and logs
//
// Every refusal and failure is an *protocol.RPCError with protocol.NetErrorData: egress
// refusals are CodeRefused (not_granted, private, redirect, request, too_large), deadlines
// CodeRefused/deadline, cancels CodeCancelled, the network CodeExecutionFailed/network.
// Messages name the canonical origin and what to add to config.toml, never a path, a query
// or a header value. Each request is logged once, at its end, as a plugin log line
// ("host: fetch …", with the plugin's id, so it lands in `cwx logs`): method, origin and
// path without the query, status, bytes sent and received, or the refusal's reason.
package fetchproxy
