// Package frame implements the CWX1 wire framing shared by the core, the shim and the
// JS extension host.
//
// A frame is the four ASCII bytes "CWX1", a little-endian uint32 payload length and the
// payload: one UTF-8 JSON-RPC 2.0 message, which may be followed by an attachment of raw bytes
// (core/protocol doc.go, “Framing”; framing does not look inside). Payloads larger than [MaxPayload] are refused on
// both sides; the decoder checks the announced length before it allocates anything, so a
// header that announces 4 GiB costs nothing. Every failure is a typed error: callers tell
// a clean end of stream ([io.EOF] exactly on a frame boundary) from a truncated frame
// ([ErrTruncated]), a foreign stream ([ErrBadMagic]) or an oversized frame ([ErrTooLarge]).
package frame
