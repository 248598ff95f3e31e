// Fixture: `big_result` returns a result of the size asked for: a string of `bytes` ASCII
// characters, or (with `object`) an object holding that string.
export const name = 'fixture-big-result';
export const inject = ['tools'];

export function apply(ctx) {
  ctx.tools.register({
    name: 'big_result',
    description: 'Return a result of the given size.',
    parameters: { type: 'object', properties: { bytes: { type: 'integer' }, object: { type: 'boolean' } }, required: ['bytes'] },
    async execute(args) {
      const text = 'abcdefghijklmnop'.repeat(Math.ceil(args.bytes / 16)).slice(0, args.bytes);
      return args.object ? { text } : text;
    },
  });
}
