// Strict JSON: valid UTF-8, no duplicate object keys (keys compare exactly), nesting at most
// MAX_DEPTH containers deep. JSON.parse accepts duplicate keys silently, so a small scanner
// walks the text after it parsed.
import { MAX_DEPTH } from './protocol.generated.ts';
import { JSONParse, JSONStringify, SetPrototypeHas, StringPrototypeSlice, TextDecode } from './primordials.ts';


export class StrictJsonError extends Error {
  override name = 'StrictJsonError';
}

/** parseStrict decodes one JSON payload or throws StrictJsonError with the reason. */
export function parseStrict(payload: Uint8Array): unknown {
  let text: string;
  try {
    text = TextDecode(payload);
  } catch {
    throw new StrictJsonError('payload is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSONParse(text);
  } catch (err) {
    throw new StrictJsonError(`payload is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  scan(text);
  return value;
}

// scan reads the text by index (text[i] on a string calls no String.prototype method, which a
// plugin could replace to see the payload).
function scan(text: string): void {
  const keys: (Set<string> | null)[] = []; // one entry per open container; null for arrays
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') {
      keys.push(c === '{' ? new Set() : null);
      if (keys.length > MAX_DEPTH) throw new StrictJsonError(`JSON nests deeper than ${MAX_DEPTH} levels`);
      expectKey = c === '{';
    } else if (c === '}' || c === ']') {
      keys.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = keys[keys.length - 1] != null;
    } else if (c === '"') {
      const start = i;
      for (i++; i < text.length; i++) {
        const d = text[i];
        if (d === '\\') i++;
        else if (d === '"') break;
      }
      checkSurrogates(text, start, i);
      const set = keys[keys.length - 1];
      if (expectKey && set) { // a key is expected only inside an object, whose entry is its Set
        const key = String(JSONParse(StringPrototypeSlice(text, start, i + 1)));
        if (SetPrototypeHas(set, key)) throw new StrictJsonError(`duplicate key ${JSONStringify(key)}`);
        set.add(key);
        expectKey = false;
      }
    }
  }
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** checkSurrogates refuses \u escapes that leave a surrogate unpaired (not valid UTF-8). */
function checkSurrogates(text: string, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    if (text[i] !== '\\') continue;
    if (text[i + 1] !== 'u') {
      i++;
      continue;
    }
    const hex = StringPrototypeSlice(text, i + 2, i + 6);
    if (!HEX4.test(hex)) return;
    const u = parseInt(hex, 16);
    if (u >= 0xdc00 && u <= 0xdfff) throw new StrictJsonError('JSON string holds an unpaired surrogate');
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = StringPrototypeSlice(text, i + 6, i + 8) === '\\u' ? parseInt(StringPrototypeSlice(text, i + 8, i + 12), 16) : NaN;
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw new StrictJsonError('JSON string holds an unpaired surrogate');
      i += 11;
      continue;
    }
    i += 5;
  }
}
