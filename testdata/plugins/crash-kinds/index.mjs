// Fixture: apply registers `crash_kinds_live` and arms a timer (config `delay_ms`, default
// 300) that does what config `kind` says: `kill` process.kill(process.pid, 'SIGKILL'),
// `kill0` process.kill(0, 'SIGKILL'), `killall` process.kill(-1, 'SIGKILL'), `abort`
// process.abort(), `exit` process.exit(1), `reallyExit` process.reallyExit(1) (each
// attempt caught, so only the host's report can blame it), `loop` an endless loop, `oom`
// allocation until the runtime runs out of memory, `listener` a throw from an EventEmitter
// listener. The tool `crash_kinds_arm` does the same from its execute, or with `later` from a
// timer it arms (so that the activation has surely finished).
import { EventEmitter } from 'node:events';

export const name = 'fixture-crash-kinds';
export const inject = ['tools', 'timer'];

function act(kind) {
  const caught = (f) => { try { f(); } catch { /* the host reports the attempt anyway */ } };
  switch (kind) {
    case 'kill': return caught(() => process.kill(process.pid, 'SIGKILL'));
    case 'kill0': return caught(() => process.kill(0, 'SIGKILL'));
    case 'killall': return caught(() => process.kill(-1, 'SIGKILL'));
    case 'abort': return caught(() => process.abort());
    case 'exit': return caught(() => process.exit(1));
    case 'reallyExit': return caught(() => process.reallyExit(1));
    case 'loop': for (;;) { /* never yields */ }
    case 'oom': {
      const keep = [];
      for (;;) keep.push(new Array(1 << 22).fill(keep.length));
    }
    case 'listener': {
      const e = new EventEmitter();
      e.on('tick', () => { throw new Error('thrown in a listener'); });
      return e.emit('tick');
    }
    default: throw new Error(`unknown kind ${kind}`);
  }
}

export function apply(ctx, config) {
  ctx.tools.register({
    name: 'crash_kinds_live',
    description: 'Answer live.',
    parameters: { type: 'object', properties: {} },
    execute: () => 'live',
  });
  ctx.tools.register({
    name: 'crash_kinds_arm',
    description: 'Do a kind of crash now.',
    parameters: { type: 'object', properties: { kind: { type: 'string' }, later: { type: 'boolean' } }, required: ['kind'] },
    execute: (args) => {
      if (args.later) { ctx.setTimeout(() => act(args.kind), 10); return 'armed'; }
      act(args.kind);
      return 'survived';
    },
  });
  if (config?.kind) ctx.setTimeout(() => act(config.kind), Number(config.delay_ms ?? 300));
}
