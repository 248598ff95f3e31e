// Fixture: `costly_sum` takes an array of numbers whose items schema applies one definition
// 499 times (an allOf of $refs): 999 evaluations per item, just under the core's per-value
// bound, so it is admitted, and validating a large array keeps the core busy for minutes.
export const name = 'fixture-costly-schema';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'costly_sum',
    description: 'Sum numbers, each checked against a costly schema.',
    parameters: {
      type: 'object',
      properties: { xs: { type: 'array', items: { allOf: Array.from({ length: 499 }, () => ({ $ref: '#/$defs/n' })) } } },
      required: ['xs'],
      $defs: { n: { type: 'number' } },
    },
    execute(args) {
      return { sum: args.xs.reduce((a, b) => a + b, 0) };
    },
  });
}
