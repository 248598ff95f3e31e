// Package content is the one policy for what a tool result may hold besides text. A result
// is a list of MCP content blocks of five types: text, image, audio, resource_link and
// resource (an embedded resource). The same blocks travel from a plugin tool's `output.render`
// (the JS host turns DSH or MCP field names into the wire's, src/content.ts), through the
// Manager's ToolResult, into `cwx tool call --json` as they are, and out of `cwx serve --mcp`
// as the matching MCP content (package mcpserve); nothing is converted to text on the way.
//
// [Check] bounds them when the result arrives; a result it refuses fails the call with an
// ExecutionError that names the block and what to change, never with the block dropped:
//
//   - at most MaxBlocks blocks;
//   - image and audio: `data` standard base64 of at most MaxBlockData characters, `mime_type`
//     image/… or audio/…;
//   - resource_link: `uri` with a scheme, at most MaxURI bytes; `name` at most MaxName bytes;
//   - resource: `uri` as above, exactly one of `text` (at most MaxBlockData bytes) and `blob`
//     (base64, at most MaxBlockData characters);
//   - every `mime_type` a plain lower-case type/subtype, every uri and name inert text;
//   - all of a result's data, blobs and resource text together at most MaxResultData.
//
// A terminal shows each non-text block as one [Placeholder] line, such as
// `[image image/png, 12 KiB]` (ToolResult.Text); the model and an MCP client get the blocks.
package content
