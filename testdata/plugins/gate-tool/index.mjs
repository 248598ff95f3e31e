// Fixture: `gate_wait` answers only when `gate_open` is called (or its call is aborted), so a
// test holds a plugin call in flight for exactly as long as it needs; the event loop stays
// responsive meanwhile.
export const name = 'fixture-gate-tool';
export const inject = ['tools'];
export function apply(ctx) {
  const waiters = new Set();
  ctx.tools.register({
    name: 'gate_wait',
    description: 'Wait until gate_open is called.',
    parameters: { type: 'object', properties: {} },
    execute(_args, exec) {
      return new Promise((resolve, reject) => {
        const w = () => resolve({ opened: true });
        waiters.add(w);
        exec.signal.addEventListener('abort', () => {
          waiters.delete(w);
          reject(new Error('aborted'));
        });
      });
    },
  });
  ctx.tools.register({
    name: 'gate_open',
    description: 'Answer every waiting gate_wait; answers how many were waiting.',
    parameters: { type: 'object', properties: {} },
    execute() {
      const n = waiters.size;
      for (const w of waiters) w();
      waiters.clear();
      return { released: n };
    },
  });
  ctx.effect(() => () => {
    waiters.clear();
  }, 'gate-tool: forget the waiters');
}
