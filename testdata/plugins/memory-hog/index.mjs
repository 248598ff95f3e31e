// Fixture: `memory_hog` allocates off-heap Buffers up to `mib` MiB (an allocation past the
// data limit fails and the host keeps serving); `memory_exhaust` retains ordinary objects
// (ignoring a RangeError) until the runtime's heap or data limit ends the process.
export const name = 'fixture-memory-hog';
export const inject = ['tools'];
const held = [];
const kept = [];
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
  ctx.tools.register({
    name: 'memory_exhaust',
    description: 'Retain objects until the runtime runs out of memory.',
    parameters: { type: 'object', properties: {} },
    execute() {
      // V8 ends the process at its heap cap; JavaScriptCore may throw a RangeError first,
      // which this loop ignores, as a careless plugin would, until the runtime crashes.
      for (;;) {
        try {
          const chunk = new Array(1 << 16);
          for (let i = 0; i < chunk.length; i++) chunk[i] = { i, s: 'x' + i };
          kept.push(chunk);
        } catch {
          // keep going
        }
      }
    },
  });
}
