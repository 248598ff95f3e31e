// Fixture: apply never yields, so the host's event loop is blocked for good.
export const name = 'fixture-blocks-in-apply';
export function apply() {
  for (;;) {}
}
