// The content policy's host half: what a tool's `output.render` returns becomes wire content
// blocks of the five MCP types cwx carries (text, image, audio, resource_link, resource), in
// either the wire's field names or MCP's (`mimeType`, an embedded `resource: {uri, mimeType,
// text | blob}`). Anything else — another type, a block that is not an object, a field of the
// wrong type — fails the call saying what was returned; nothing is dropped. The core then
// applies the size caps and checks the data (core/content).
import type { ContentBlock } from './protocol.generated.ts';
import { RpcError } from './rpc.ts';
import { ErrorCode } from './protocol.generated.ts';
import { isPlainObject } from './validate.ts';

const TYPES = 'text, image, audio, resource_link and resource';

function bad(i: number, why: string): RpcError {
  return new RpcError(ErrorCode.ExecutionFailed, `render returned content block ${i + 1}, ${why}; cwx carries ${TYPES} blocks`);
}

function str(b: Record<string, unknown>, i: number, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = b[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw bad(i, `whose \`${k}\` is not a string`);
    return v;
  }
  return undefined;
}

function need(b: Record<string, unknown>, i: number, ...keys: string[]): string {
  const v = str(b, i, ...keys);
  if (v === undefined) throw bad(i, `of type \`${String(b.type)}\` without \`${keys[0]}\``);
  return v;
}

/** toBlock turns one rendered block into a wire block, or throws naming what is wrong. */
export function toBlock(b: unknown, i: number): ContentBlock {
  if (!isPlainObject(b)) throw bad(i, 'which is not an object');
  switch (b.type) {
    case 'text':
      return { type: 'text', text: need(b, i, 'text') };
    case 'image':
    case 'audio':
      return { type: b.type, data: need(b, i, 'data'), mime_type: need(b, i, 'mime_type', 'mimeType') };
    case 'resource_link': {
      const out: ContentBlock = { type: 'resource_link', uri: need(b, i, 'uri'), name: need(b, i, 'name') };
      const mime = str(b, i, 'mime_type', 'mimeType');
      if (mime !== undefined) out.mime_type = mime;
      return out;
    }
    case 'resource': {
      const r = isPlainObject(b.resource) ? b.resource : b;
      const out: ContentBlock = { type: 'resource', uri: need(r, i, 'uri') };
      const mime = str(r, i, 'mime_type', 'mimeType');
      const text = str(r, i, 'text');
      const blob = str(r, i, 'blob');
      if ((text === undefined) === (blob === undefined)) throw bad(i, 'an embedded resource that needs exactly one of `text` and `blob`');
      if (mime !== undefined) out.mime_type = mime;
      if (text !== undefined) out.text = text;
      if (blob !== undefined) out.blob = blob;
      return out;
    }
  }
  throw bad(i, `of type ${JSON.stringify(String(b.type)).slice(0, 40)}`);
}
