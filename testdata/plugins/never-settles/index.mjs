// Fixture: `apply` never settles; the host must still answer ext/activate at its deadline.
export const name = 'fixture-never-settles';
export const inject = ['tools'];
export const apply = async (ctx) => {
  ctx.tools.register({ name: 'never_tool', description: 'Never admitted for long.', parameters: { type: 'object', properties: {} }, execute: () => 'x' });
  await new Promise(() => {});
};
