// Fixture: writes to stdout in every way a plugin might.
export const name = 'fixture-stdout-writer';
export const inject = ['tools'];
export function apply(ctx) {
  console.log('console.log while loading');
  process.stdout.write('process.stdout.write while loading\n');
  if (typeof Bun !== 'undefined') Bun.write(Bun.stdout, 'Bun.stdout while loading\n');
  console.info('console.info'); console.debug('console.debug'); console.dir({ dir: true });
  ctx.tools.register({
    name: 'print_probe',
    description: 'Print, then answer.',
    parameters: { type: 'object', properties: {} },
    execute() {
      console.log('CWX1 printed from a tool');
      process.stdout.write(Buffer.from('CWX1\u0000\u0000\u0000\u0010raw bytes'));
      return 'printed';
    },
  });
}
