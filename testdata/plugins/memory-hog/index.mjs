// Fixture: allocate off-heap memory until `mib` MiB are held.
export const name = 'fixture-memory-hog';
export const inject = ['tools'];
const held = [];
export function apply(ctx) {
  ctx.tools.register({
    name: 'memory_hog',
    description: 'Allocate memory.',
    parameters: { type: 'object', properties: { mib: { type: 'integer' } }, required: ['mib'] },
    execute(args) {
      let total = 0;
      while (total < args.mib) {
        held.push(Buffer.alloc(64 * 1024 * 1024, 1));
        total += 64;
      }
      return { held_mib: total };
    },
  });
}
