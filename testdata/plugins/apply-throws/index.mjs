// Fixture: apply throws on line 6, column 9.
export const name = 'fixture-apply-throws';
export const inject = ['tools'];
export function apply(ctx) {
  void ctx;
  throw new RangeError('no room for this plugin');
}
