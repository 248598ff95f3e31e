// Message validation against the generated method table and shapes (protocol.generated.ts),
// plus the rules the table cannot express, kept in agreement with the Go parser by the shared
// corpus: the JSON-RPC envelope, per-kind registry/register specs, tagged results and the
// runtime name in host/hello. Everything the host sends is checked strictly (unknown fields
// refused at every level); what the core sends follows each shape's own strictness. An optional
// field set to null counts as absent. acceptInbound is where a validated message from the core
// becomes the typed form of messages.ts.
import {
  ENVELOPE_KEYS as ENVELOPE, MAX_UINT, METHODS, SHAPES, type Direction, type FieldType, type MethodSpec, type Tier,
} from './protocol.generated.ts';
import type { Inbound } from './messages.ts';
import {
  ArrayIsArray, ArrayPrototypeIncludes, MathAbs, NumberIsInteger, ObjectHasOwn, ObjectKeys, TypedArrayLength, TypedArrayPrototypeIndexOf,
  TypedArrayPrototypeSubarray,
} from './primordials.ts';

export type AnswerLookup = (id: number) => string | undefined;

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(ENVELOPE);
const ANY_OBJECT = 'AnyObject';
const ERROR_KEYS = new Set(['code', 'message', 'data']);

export class ViolationError extends Error {
  override name = 'ViolationError';
}

type Rec = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !ArrayIsArray(v);
}

/** eachKey calls fn with each own enumerable key of o, by index: no array iterator a plugin could replace. */
function eachKey(o: Rec, fn: (k: string) => void): void {
  const ks = ObjectKeys(o);
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    if (k !== undefined) fn(k);
  }
}

function has(o: Rec, k: string): boolean {
  return ObjectHasOwn(o, k);
}

function present(o: Rec, k: string): boolean {
  return has(o, k) && o[k] !== null;
}

/** methodSpec finds a method's row for one direction; direction 'both' ($/cancel) fits either. */
export function methodSpec(method: string, direction: Direction): MethodSpec | undefined {
  const spec = ObjectHasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!spec) return undefined;
  return spec.direction === direction || spec.direction === 'both' ? spec : undefined;
}

/** Split is a payload cut at its first NUL byte: the JSON text and the attachment after it, if any. */
export interface Split {
  text: Uint8Array;
  attachment: Uint8Array | undefined;
}

/**
 * splitAttachment cuts a payload into its JSON text and its attachment (core/protocol doc.go,
 * “Framing”): JSON text never holds a NUL byte, so the first one ends it. Both are views of
 * payload. It returns the reason when the attachment is empty (zero bytes are sent as none).
 */
export function splitAttachment(payload: Uint8Array): Split | string {
  const i = TypedArrayPrototypeIndexOf(payload, 0);
  if (i < 0) return { text: payload, attachment: undefined };
  if (i === TypedArrayLength(payload) - 1) return 'the payload ends with the NUL byte of an empty attachment (zero bytes are sent as no attachment)';
  return { text: TypedArrayPrototypeSubarray(payload, 0, i), attachment: TypedArrayPrototypeSubarray(payload, i + 1) };
}

/**
 * attachmentReason returns null when msg, which validateMessage accepted with the same
 * direction and answers, may carry an attachment, else the reason: only a success result the
 * core sends may, to a method whose result_attachment is set (a late answer, whose method is
 * unknown, keeps it for the receiver to drop).
 */
export function attachmentReason(msg: Rec, direction: Direction, answers?: AnswerLookup): string | null {
  if (direction === 'host_to_core') return 'a host sends no attachment (a NUL byte after the JSON text)';
  if (typeof msg.method === 'string' || !has(msg, 'result')) return 'only a success result carries an attachment (a NUL byte after the JSON text)';
  const method = answers !== undefined && isUint(msg.id) ? answers(msg.id) : undefined;
  if (method === undefined) return null;
  return METHODS[method]?.result_attachment === true ? null : `the result of ${method} carries no attachment (a NUL byte after the JSON text)`;
}

/**
 * validateMessage returns null when `msg` is a valid message travelling in `direction` on a host
 * of `tier`, else the reason. `answers` maps a response id to the method of the request it answers.
 */
export function validateMessage(msg: unknown, direction: Direction, tier: Tier, answers?: AnswerLookup): string | null {
  try {
    checkMessage(msg, direction, tier, answers);
    return null;
  } catch (err) {
    if (err instanceof ViolationError) return err.message;
    throw err;
  }
}

function fail(reason: string): never {
  throw new ViolationError(reason);
}

function checkMessage(msg: unknown, direction: Direction, tier: Tier, answers?: AnswerLookup): void {
  if (!isPlainObject(msg)) fail('message is not a JSON object');
  eachKey(msg, (k) => { if (!ENVELOPE_KEYS.has(k)) fail(`unknown envelope field "${k}"`); });
  if (msg.jsonrpc !== '2.0') fail('jsonrpc must be "2.0"');
  const id = msg.id;
  if (has(msg, 'id') && !isUint(id)) fail('id must be an unsigned integer');
  const strict = direction === 'host_to_core';
  if (has(msg, 'method')) {
    if (typeof msg.method !== 'string') fail('method must be a string');
    if (has(msg, 'result') || has(msg, 'error')) fail(`${msg.method}: a request or notification carries no result or error`);
    const spec = methodSpec(msg.method, direction);
    if (!spec) fail(`unknown method "${msg.method}" (${direction.replaceAll('_', ' ')})`);
    if (!spec.tiers.includes(tier)) fail(`"${msg.method}" is not allowed on the ${tier} tier`);
    const isRequest = has(msg, 'id');
    if (isRequest !== (spec.kind === 'request')) {
      fail(`"${msg.method}" is a ${spec.kind}${isRequest ? ' but carries an id' : ' but carries no id'}`);
    }
    const params = has(msg, 'params') ? msg.params : {};
    if (!isPlainObject(params)) fail(`${msg.method}: params must be an object`);
    checkShape(params, spec.params, strict, `${msg.method} params`);
    checkParamsRules(msg.method, params);
    return;
  }
  if (!has(msg, 'id')) fail('a response needs an id');
  if (has(msg, 'params')) fail('a response carries no params');
  const hasResult = has(msg, 'result');
  if (hasResult === has(msg, 'error')) fail('a response has exactly one of result and error');
  if (!hasResult) {
    const e = msg.error;
    if (!isPlainObject(e)) fail('error must be an object');
    eachKey(e, (k) => { if (!ERROR_KEYS.has(k)) fail(`unknown error field "${k}"`); });
    if (!isInt(e.code)) fail('error.code must be an integer');
    if (typeof e.message !== 'string') fail('error.message must be a string');
    return;
  }
  const method = isUint(id) ? answers?.(id) : undefined;
  if (method === undefined) return; // an answer to nothing in flight is ignored by the receiver
  const spec = METHODS[method];
  if (!spec?.result) fail(`"${method}" has no result`);
  if (!isPlainObject(msg.result)) fail(`${method} result must be an object`);
  checkShape(msg.result, spec.result, strict, `${method} result`);
  checkResultRules(method, msg.result);
}

function isUint(v: unknown): v is number {
  return typeof v === 'number' && NumberIsInteger(v) && v >= 0 && v <= MAX_UINT;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && NumberIsInteger(v) && MathAbs(v) <= MAX_UINT;
}

function checkShape(value: Rec, shapeName: string, strict: boolean, where: string): void {
  const shape = SHAPES[shapeName];
  if (!shape) fail(`${where}: unknown shape ${shapeName}`);
  if (shapeName !== ANY_OBJECT && (strict || shape.strict)) {
    eachKey(value, (k) => { if (!ObjectHasOwn(shape.fields, k)) fail(`${where}: unknown field "${k}"`); });
  }
  for (const [name, field] of Object.entries(shape.fields)) {
    const isAny = field.type.t === 'any';
    if (!has(value, name) || (value[name] === null && !isAny)) {
      if (field.required) fail(`${where}: missing field "${name}"`);
      continue;
    }
    checkType(value[name], field.type, strict, `${where}.${name}`);
  }
}

function checkType(v: unknown, t: FieldType, strict: boolean, where: string): void {
  switch (t.t) {
    case 'string': if (typeof v !== 'string') fail(`${where} must be a string`); return;
    case 'uint': if (!isUint(v)) fail(`${where} must be an unsigned integer`); return;
    case 'int': if (!isInt(v)) fail(`${where} must be an integer`); return;
    case 'bool': if (typeof v !== 'boolean') fail(`${where} must be a boolean`); return;
    case 'any': return;
    case 'object_any': if (!isPlainObject(v)) fail(`${where} must be an object`); return;
    case 'shape':
      if (!isPlainObject(v)) fail(`${where} must be an object`);
      checkShape(v, t.shape, strict, where);
      return;
    case 'array':
      if (!ArrayIsArray(v)) fail(`${where} must be an array`);
      for (let i = 0; i < v.length; i++) checkType(v[i], t.of, strict, `${where}[${i}]`);
      return;
    case 'enum':
      if (typeof v !== 'string' || !ArrayPrototypeIncludes(t.values, v)) fail(`${where} must be one of ${t.values.join(', ')}`);
      return;
    case 'map':
      if (!isPlainObject(v)) fail(`${where} must be an object`);
      eachKey(v, (k) => { checkType(v[k], t.of, strict, `${where}.${k}`); });
      return;
  }
}

function checkParamsRules(method: string, p: Rec): void {
  if (method === 'host/hello') {
    const name = isPlainObject(p.runtime) ? p.runtime.name : undefined;
    if (name !== 'node' && name !== 'bun') fail('host/hello runtime.name must be "node" or "bun"');
  }
  if (method === 'registry/register') {
    const spec = isPlainObject(p.spec) ? p.spec : {};
    const schema = present(spec, 'input_schema');
    const hint = present(spec, 'argument_hint');
    if (p.kind === 'tool') {
      if (!schema) fail('registry/register: a tool needs spec.input_schema');
      if (hint) fail('registry/register: a tool takes no spec.argument_hint');
    } else if (p.kind === 'command') {
      if (schema) fail('registry/register: a command takes no spec.input_schema');
    } else if (schema || hint) {
      fail(`registry/register: a ${String(p.kind)} takes neither input_schema nor argument_hint`);
    }
  }
}

function need(r: Rec, k: string, where: string): void {
  if (!present(r, k)) fail(`${where}: missing field "${k}"`);
}
function forbid(r: Rec, k: string, where: string): void {
  if (present(r, k)) fail(`${where}: unexpected field "${k}"`);
}

function checkResultRules(method: string, r: Rec): void {
  const where = `${method} result`;
  switch (method) {
    case 'ext/activate':
      if (r.status === 'ok') { need(r, 'tools', where); forbid(r, 'diagnostic', where); }
      else { need(r, 'diagnostic', where); forbid(r, 'tools', where); forbid(r, 'commands', where); }
      return;
    case 'command/run':
      if (r.kind === 'error') need(r, 'text', where);
      if (r.kind === 'submit') need(r, 'prompt', where);
      else forbid(r, 'prompt', where);
      return;
    case 'registry/register':
      if (present(r, 'handle') === present(r, 'refused')) fail(`${where}: exactly one of handle and refused`);
      return;
    case 'hook/evaluate': {
      const allowed: Record<string, string[]> = { abstain: [], deny: ['reason'], ask: ['reason'], annotate: ['text'], revise: ['input'] };
      const want = (typeof r.kind === 'string' ? allowed[r.kind] : undefined) ?? [];
      for (const k of ['reason', 'text', 'input']) {
        if (want.includes(k)) need(r, k, where);
        else forbid(r, k, where);
      }
      return;
    }
    case 'tool/call':
    case 'core/call':
      if (ArrayIsArray(r.content)) for (let i = 0; i < r.content.length; i++) checkBlock(r.content[i], `${where} content[${i}]`);
      return;
    case 'user/ask': {
      const want = r.kind === 'choice' ? 'choice' : r.kind === 'text' ? 'text' : undefined;
      for (const k of ['choice', 'text']) {
        if (k === want) need(r, k, where);
        else forbid(r, k, where);
      }
      return;
    }
  }
}

/** BLOCK_FIELDS: the fields each content block type requires and allows (ContentBlock's rule in Go). */
const BLOCK_FIELDS: Record<string, { need: string[]; allow: string[] }> = {
  text: { need: [], allow: ['text'] },
  image: { need: ['data', 'mime_type'], allow: ['data', 'mime_type'] },
  audio: { need: ['data', 'mime_type'], allow: ['data', 'mime_type'] },
  resource_link: { need: ['uri', 'name'], allow: ['uri', 'name', 'mime_type'] },
  resource: { need: ['uri'], allow: ['uri', 'mime_type', 'text', 'blob'] },
};

function checkBlock(b: unknown, where: string): void {
  if (!isPlainObject(b) || typeof b.type !== 'string') return;
  const f = BLOCK_FIELDS[b.type];
  if (!f) return;
  for (const k of f.need) need(b, k, where);
  for (const k of ['text', 'data', 'mime_type', 'uri', 'name', 'blob']) if (!ArrayPrototypeIncludes(f.allow, k)) forbid(b, k, where);
}

/**
 * acceptInbound turns a message from the core that validateMessage accepted (with the same
 * `answers`) into its typed form: params absent becomes {}, and optional fields set to null are
 * dropped at every depth of the params or result (null is absent; a field of type any keeps its
 * null). This is the one place a decoded JSON value is taken as a protocol type: the checks above
 * are what make the cast below true.
 */
export function acceptInbound(msg: Rec, answers: AnswerLookup): Inbound {
  if (typeof msg.method === 'string') {
    const spec = methodSpec(msg.method, 'core_to_host');
    const params = isPlainObject(msg.params) ? msg.params : {};
    if (spec) dropNulls(params, spec.params);
    msg.params = params;
  } else if (has(msg, 'result') && isUint(msg.id) && isPlainObject(msg.result)) {
    const method = answers(msg.id);
    const shape = method === undefined ? undefined : METHODS[method]?.result;
    if (shape !== undefined) dropNulls(msg.result, shape);
  }
  return msg as Inbound;
}

function dropNulls(value: Rec, shapeName: string): void {
  const shape = SHAPES[shapeName];
  if (!shape) return;
  for (const [name, field] of Object.entries(shape.fields)) {
    if (!has(value, name)) continue;
    const v = value[name];
    if (v === null) {
      if (field.type.t !== 'any') delete value[name];
      continue;
    }
    dropNullsIn(v, field.type);
  }
}

function dropNullsIn(v: unknown, t: FieldType): void {
  if (t.t === 'shape' && isPlainObject(v)) dropNulls(v, t.shape);
  else if (t.t === 'array' && ArrayIsArray(v)) for (let i = 0; i < v.length; i++) dropNullsIn(v[i], t.of);
  else if (t.t === 'map' && isPlainObject(v)) eachKey(v, (k) => { dropNullsIn(v[k], t.of); });
}
