// Package shared is the contract between the core and the node shim, the only code both
// sides compile: go-plugin's handshake configuration ([Handshake]: magic cookie plus protocol
// version 1), the plugin map, the gRPC service (generated in shared/proto/shimv1) and the
// client adapter the core uses ([Client], [Channel]).
//
// The shim relays CWX1 frames as opaque payloads and never parses JSON-RPC, so the contract is
// small: one bidirectional Channel of payloads that ends with the runtime's [Exit], and the
// control calls Start (from a [LaunchPlan]), Signal and Stats, which travel on their own HTTP/2
// streams and never queue behind a large payload. Payloads larger than [PartSize] are split
// into parts; both sides allow gRPC messages up to [MaxMessage], so even an unsplit 32 MiB
// payload passes.
//
// The Channel's messages use the cwx-frame codec ([CodecName], codec.go): the protobuf
// encoding of shim.proto's Frame and Event, written and read by hand so a part's bytes are
// copied once per side instead of three times, and both ends use a gRPC buffer pool that
// does not zero what it hands out (pool.go). The shim sends parts from pooled buffers that
// gRPC returns once written ([ServerChannel]). The core's side gathers each part from the
// pieces of a payload ([Channel.SendParts]: a result's text and its attachment), so the pieces
// are never joined first.
package shared
