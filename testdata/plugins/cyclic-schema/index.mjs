// Fixture: `cyclic_nest` has an input schema whose definition `a` is an allOf of two $refs to
// an array whose items point back to `a`: validating {"x": [[[…]]]} would cost 2^depth. The
// core refuses the registration, so the activation fails naming #/$defs/a.
export const name = 'fixture-cyclic-schema';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'cyclic_nest',
    description: 'Accept nested arrays (never admitted).',
    parameters: {
      type: 'object',
      properties: { x: { $ref: '#/$defs/a' } },
      $defs: {
        a: { allOf: [{ $ref: '#/$defs/b' }, { $ref: '#/$defs/b' }] },
        b: { type: 'array', items: { $ref: '#/$defs/a' } },
      },
    },
    execute: () => 'unreachable',
  });
}
