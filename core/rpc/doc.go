// Package rpc is the core's JSON-RPC peer for one host incarnation.
//
// A Peer speaks to one running extension host (one process, one generation) over a Conn
// that carries one JSON-RPC message per Send/Recv (a result's attachment, core/protocol doc.go,
// “Framing”, goes in the same frame: to a [PartsConn] as a second piece, never joined to the
// text; to another Conn joined). It owns exactly two long-lived
// goroutines, both started and joined by Run: a reader that validates every frame with
// core/protocol and dispatches it, and a writer that drains the outbound queue. Nothing
// else ever touches the Conn, and no lock is held while the Conn is read or written.
//
// Outbound requests (Call) get ids counting from 1 for the incarnation. At most MaxPending of
// them are pending at once, plus one slot reserved for the heartbeat (CallOpts.Heartbeat). A
// call that reaches its deadline sends `$/cancel`, fails its caller with ErrTimeout at once,
// and keeps its slot for [CancelGrace] so the host is never handed more than MaxPending
// requests; a caller whose context is cancelled sends `$/cancel` and is resolved with
// ErrCancelled on the host's answer or when the grace ends, whichever comes first. Answers
// that arrive after a call was given up are dropped and logged. A request cancelled before the
// writer sent it is never sent.
//
// Inbound host requests each run as a task on their own goroutine with a context the host's
// `$/cancel` cancels; a task that ignores its cancellation is abandoned CancelGrace later (its
// slot freed, its answer dropped). At most MaxInbound run at once; an id reused while in
// flight, a request beyond MaxInbound, or any frame core/protocol refuses is a protocol
// violation that ends the incarnation with the reason.
//
// The peer is the one place that counts the calls in flight on an incarnation: its slots.
// Drain stops admission (the heartbeat and host/shutdown still go out) and reports when
// the last admitted call gave its slot back, which is how the supervisor waits for "no
// call in flight" before a planned restart without counting calls itself.
//
// The outbound queue holds QueueSize frames. A Call or Notify that finds it full fails with
// ErrBusy (a case of ErrNotAvailable) instead of blocking. A message over protocol.MaxFrame is
// refused with ErrTooLarge (an over-limit answer to a host request is replaced by an
// InvalidParams error) rather than sent, which would end the incarnation.
//
// When the incarnation ends (the Conn fails, a violation, Close, or Run's context), every
// pending call fails with ErrHostExited wrapping the reason, every task's context is
// cancelled and their answers are dropped, and the Conn is closed if it implements
// io.Closer so a blocked Recv returns. Run then joins the reader and the writer (bounded
// by Options.JoinTimeout) and waits at most CancelGrace for tasks before returning the
// reason; Done is closed when Run has returned.
//
// The peer's timers are the standard library's, so exact bounds are tested inside a
// testing/synctest bubble, whose fake clock every timer of the bubble's goroutines follows.
package rpc
