// Fixture: a TypeScript entry whose line 4 does not parse (column 25 is the stray ';').
export const inject = ['tools'];
export function apply(ctx: unknown): void {
  const n: number = 1 + ;
  void ctx;
  void n;
}
