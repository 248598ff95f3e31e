// Fixture: an input schema with three violations of the metaschema, one per location: a
// type that is no type, a negative minLength and a `required` that is not an array.
export const name = 'fixture-bad-schema';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'bad_schema',
    description: 'Never registered.',
    inputSchema: { type: 'object', properties: { a: { type: 'strin' }, b: { minLength: -1 } }, required: 'a' },
    execute: () => 'never',
  });
}
