// A definition-only stand-in for `@deepseek-ai/dsh-tools`, written for cwx: `defineTool` with
// DSH's parameter language (compiled to a small JSON Schema subset and checked before `execute`
// runs), DSH's error classes and codes. There is no tool runtime here: the host's `tools` shim
// registers the definition and the core validates calls again.

/** COMPILED_SCHEMA marks a definition made by defineTool and carries its compiled input schema. */
export const COMPILED_SCHEMA = Symbol.for('cwx.dsh.compiledSchema');

/** compiledSchema is the input schema defineTool compiled for def, if def came from defineTool. */
export function compiledSchema(def: object): unknown {
  return Reflect.get(def, COMPILED_SCHEMA);
}

export const ErrorCodes = Object.freeze({
  UNSUPPORTED_SCHEMA: 'UNSUPPORTED_SCHEMA',
  INVALID_ARGS: 'INVALID_ARGS',
  INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  ABORTED: 'ABORTED',
  ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
});

export class HarnessError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'HarnessError';
    this.code = code;
  }
}
export class JsonSchemaError extends HarnessError {
  constructor(message: string) {
    super(message, ErrorCodes.UNSUPPORTED_SCHEMA);
    this.name = 'JsonSchemaError';
  }
}
export class ToolArgsError extends HarnessError {
  constructor(message: string) {
    super(message, ErrorCodes.INVALID_ARGS);
    this.name = 'ToolArgsError';
  }
}
export class ToolOutputError extends HarnessError {
  constructor(message: string) {
    super(message, ErrorCodes.INVALID_TOOL_OUTPUT);
    this.name = 'ToolOutputError';
  }
}
export class ToolNotFoundError extends HarnessError {
  constructor(name: string) {
    super(`unknown tool: ${name}`, ErrorCodes.UNKNOWN_TOOL);
    this.name = 'ToolNotFoundError';
  }
}

type Schema = Record<string, unknown>;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object', 'json']);
const ANNOTATIONS = ['description', 'title', 'default', 'examples'] as const;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** compileParameters turns the DSL map of property specs into an open object schema. */
export function compileParameters(params: unknown): Schema {
  if (params === undefined) return { type: 'object', properties: {} };
  if (!isObj(params)) throw new JsonSchemaError('parameters must be an object of property specs');
  return compileObject(params, true, 'parameters');
}

function compileObject(props: Record<string, unknown>, open: boolean, at: string): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(props)) {
    if (!isObj(spec)) throw new JsonSchemaError(`${at}.${key}: a property spec must be an object`);
    properties[key] = compileSpec(spec, `${at}.${key}`);
    if (spec.required === true) required.push(key);
  }
  const out: Schema = { type: 'object', properties };
  if (required.length > 0) out.required = required;
  out.additionalProperties = open;
  return out;
}

function compileSpec(spec: Record<string, unknown>, at: string): Schema {
  const out: Schema = {};
  for (const a of ANNOTATIONS) if (spec[a] !== undefined) out[a] = spec[a];
  if (spec.oneOf !== undefined) {
    if (!Array.isArray(spec.oneOf) || spec.oneOf.length < 2) throw new JsonSchemaError(`${at}: oneOf needs at least two branches`);
    out.oneOf = spec.oneOf.map((b, i) => {
      if (!isObj(b)) throw new JsonSchemaError(`${at}.oneOf[${i}]: a branch must be an object`);
      return compileSpec(b, `${at}.oneOf[${i}]`);
    });
    return out;
  }
  const type = spec.type;
  if (typeof type !== 'string' || !TYPES.has(type)) throw new JsonSchemaError(`${at}: unsupported type ${JSON.stringify(type)}`);
  if (type !== 'json') out.type = type;
  if (spec.enum !== undefined) {
    if (!Array.isArray(spec.enum) || spec.enum.some((v) => isObj(v) || Array.isArray(v))) throw new JsonSchemaError(`${at}: enum must list scalar values`);
    out.enum = spec.enum;
  }
  if (spec.const !== undefined) out.const = spec.const;
  if (type === 'array' && spec.items !== undefined) {
    if (!isObj(spec.items)) throw new JsonSchemaError(`${at}.items must be a property spec`);
    out.items = compileSpec(spec.items, `${at}.items`);
  }
  if (type === 'object' && spec.properties !== undefined) {
    if (!isObj(spec.properties)) throw new JsonSchemaError(`${at}.properties must be an object`);
    if (typeof spec.additionalProperties !== 'boolean') throw new JsonSchemaError(`${at}: a nested object must say additionalProperties: true or false`);
    Object.assign(out, compileObject(spec.properties, spec.additionalProperties, at));
  }
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** checkValue returns the violations of value against a compiled schema. */
export function checkValue(schema: Schema, value: unknown, at = '$', out: string[] = []): string[] {
  if (Array.isArray(schema.oneOf)) {
    const branches: unknown[] = schema.oneOf;
    const matches = branches.filter((b) => checkValue(isObj(b) ? b : {}, value, at).length === 0).length;
    if (matches !== 1) out.push(`${at} must match exactly one of ${branches.length} alternatives`);
    return out;
  }
  const t = typeof schema.type === 'string' ? schema.type : undefined;
  const actual = typeOf(value);
  if (t !== undefined && !(t === actual || (t === 'number' && actual === 'integer'))) {
    out.push(`${at} must be ${t === 'integer' || t === 'array' || t === 'object' ? 'an' : 'a'} ${t}, got ${actual}`);
    return out;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, value))) out.push(`${at} must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (schema.const !== undefined && !jsonEqual(schema.const, value)) out.push(`${at} must be ${JSON.stringify(schema.const)}`);
  const items = schema.items;
  if (Array.isArray(value) && isObj(items)) value.forEach((v, i) => checkValue(items, v, `${at}[${i}]`, out));
  if (isObj(value) && t === 'object') {
    const props = isObj(schema.properties) ? schema.properties : {};
    const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
    for (const r of required) if (typeof r === 'string' && !Object.hasOwn(value, r)) out.push(`${at}.${r} is required`);
    for (const [k, v] of Object.entries(value)) {
      const sub = props[k];
      if (Object.hasOwn(props, k)) checkValue(isObj(sub) ? sub : {}, v, `${at}.${k}`, out);
      else if (schema.additionalProperties === false) out.push(`${at}.${k} is not allowed`);
    }
  }
  return out;
}

/** defineTool accepts a DSH tool definition and returns one whose execute checks its arguments. */
export function defineTool<T extends Record<string, unknown>>(definition: T): Readonly<T> {
  if (!isObj(definition)) throw new JsonSchemaError('defineTool needs a definition object');
  if (typeof definition.name !== 'string' || definition.name === '') throw new JsonSchemaError('defineTool: `name` must be a non-empty string');
  const execute = definition.execute;
  if (typeof execute !== 'function') throw new JsonSchemaError(`defineTool: tool \`${definition.name}\` needs an \`execute\` function`);
  const schema = compileParameters(definition.parameters);
  const checked: T = {
    ...definition,
    execute(args: unknown, exec: unknown): unknown {
      const problems = isObj(args) ? checkValue(schema, args) : [`$ must be an object, got ${typeOf(args)}`];
      if (problems.length > 0) throw new ToolArgsError(`invalid arguments: ${problems.slice(0, 5).join('; ')}`);
      return Reflect.apply(execute, definition, [args, exec]);
    },
  };
  Object.defineProperty(checked, COMPILED_SCHEMA, { value: schema });
  return Object.freeze(checked);
}
