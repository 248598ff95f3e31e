// Fixture: a DSH commands method cwx does not provide.
export const name = 'fixture-dsh-commands-list';
export const inject = ['commands'];
export function apply(ctx) {
  ctx.commands.list();
}
