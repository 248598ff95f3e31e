// Fixture: try each native-code entry point; report 'refused' or 'reachable' per entry point.
export const name = 'fixture-native-probe';
export const inject = ['tools'];

async function attempt(fn) {
  try {
    await fn();
    return 'reachable';
  } catch (e) {
    return /cwx plugins may not load native code|NativeCodeRefused/.test(`${e?.name} ${e?.message}`) || e?.code === 'ERR_UNKNOWN_BUILTIN_MODULE' || e?.code === 'ERR_PROTO_ACCESS' ? 'refused' : `reachable (${e?.name}: ${e?.message})`;
  }
}

export function apply(ctx) {
  ctx.tools.register({
    name: 'native_probe',
    description: 'Probe native-code entry points.',
    parameters: { type: 'object', properties: {} },
    async execute() {
      const out = {};
      out['process.dlopen'] = await attempt(() => process.dlopen({ exports: {} }, '/nonexistent/cwx-probe.node'));
      // never call a real execve: it would replace the host; only the refusing stand-in is called
      out['process.execve'] = typeof process.execve !== 'function' ? 'absent'
        : process.execve.name === 'refused' ? await attempt(() => process.execve('/nonexistent/cwx-probe')) : 'reachable';
      // a CommonJS host entry (the Node snapshot's, Bun's bytecode build) must not leave the host's require here
      out['process.mainModule'] = process.mainModule === undefined ? 'absent' : 'reachable';
      out['worker_threads.Worker'] = await attempt(async () => {
        const { Worker } = await import('node:worker_threads');
        const w = new Worker('setTimeout(() => {}, 10)', { eval: true });
        await w.terminate();
      });
      if (typeof Bun !== 'undefined') {
        out['Worker'] = await attempt(() => { const w = new Worker('data:text/javascript,0'); w.terminate(); });
        out['bun:ffi'] = await attempt(async () => { const m = await import('bun:ffi'); if (typeof m.dlopen !== 'function') throw new Error('no dlopen'); });
        out['Bun.FFI'] = await attempt(() => { if (typeof Bun.FFI.dlopen !== 'function') throw new Error('no dlopen'); });
        out['bun:sqlite'] = await attempt(async () => { const m = await import('bun:sqlite'); new m.Database(':memory:').close(); });
        out['node:sqlite'] = await attempt(async () => { const m = await import('node:sqlite'); new m.DatabaseSync(':memory:').exec('select 1'); });
        out['Bun.SQL sqlite'] = await attempt(async () => { const db = new Bun.SQL('sqlite://:memory:'); await db`select 1`; await db.close?.(); });
        out['ShadowRealm'] = typeof globalThis.ShadowRealm === 'undefined' ? 'refused' : 'reachable';
      } else {
        out['node:sqlite'] = await attempt(async () => { const m = await import('node:sqlite'); new m.DatabaseSync(':memory:').exec('select 1'); });
        // --disable-proto=throw, a run-time flag the host's own check also verifies
        out['Object.prototype.__proto__'] = await attempt(() => Reflect.get({}, '__proto__'));
      }
      return out;
    },
  });
}
