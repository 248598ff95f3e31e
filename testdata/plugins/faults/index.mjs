// Fixture: faults attributed to their owner through async context, plus an unattributed one and
// an idempotent disposer.
export const name = 'fixture-faults';
export const inject = ['tools', 'timer'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'timer_throw',
    description: 'Throw from a timer callback shortly.',
    parameters: { type: 'object', properties: {} },
    execute() {
      ctx.setTimeout(() => { throw new Error('thrown in a timer callback'); }, 20);
      return 'armed';
    },
  });
  ctx.tools.register({
    name: 'late_reject',
    description: 'Leave an unhandled rejection shortly.',
    parameters: { type: 'object', properties: {} },
    execute() {
      setTimeout(() => { Promise.reject(new RangeError('rejected later')); }, 20);
      return 'armed';
    },
  });
  ctx.tools.register({
    name: 'exit_probe',
    description: 'Try process.exit and process.abort.',
    parameters: { type: 'object', properties: {} },
    execute() {
      const out = {};
      for (const k of ['exit', 'abort']) {
        try { process[k](3); out[k] = 'returned'; } catch (e) { out[k] = e.message; }
      }
      return out;
    },
  });
  ctx.tools.register({
    name: 'interval_count',
    description: 'Count interval ticks.',
    parameters: { type: 'object', properties: {} },
    execute: () => ({ ticks: globalThis.__cwxTicks ?? 0 }),
  });
  ctx.tools.register({
    name: 'unattributed',
    description: 'Throw from a microtask with a stack that names no plugin file.',
    parameters: { type: 'object', properties: {} },
    execute() {
      queueMicrotask(() => {
        const e = new Error('nobody owns this');
        e.stack = 'Error: nobody owns this';
        throw e;
      });
      return 'armed';
    },
  });
  ctx.tools.register({
    name: 'withdraw_twice',
    description: 'Register a temporary tool, then call its disposer twice.',
    parameters: { type: 'object', properties: {} },
    async execute() {
      const dispose = ctx.tools.register({ name: 'temp_tool', description: 't', parameters: { type: 'object', properties: {} }, execute: () => 't' });
      await new Promise((r) => setTimeout(r, 50));
      await dispose();
      await dispose();
      return 'withdrawn';
    },
  });
  globalThis.__cwxTicks = 0;
  ctx.setInterval(() => { globalThis.__cwxTicks++; }, 10);
}
