// Fixture: two pre-execute hooks, registered in this order. The first answers as the call's
// `text` argument says; the second speaks only for `order`, `deny-over-ask` and `ask`. A call of the
// native `list_dir` is denied, whoever makes it.
import { execFileSync } from 'node:child_process';

export const name = 'fixture-hooks';

export function apply(ctx) {
  ctx.on('tools/pre-execute', async (exec, next) => {
    if (exec.name === 'list_dir') return { deny: 'no listing while the fixture watches' };
    const text = exec.arguments?.text;
    switch (text) {
      case 'deny': return { deny: 'the fixture denies it' };
      case 'ask': return { ask: 'the fixture wants a person to look' };
      case 'annotate': return { annotate: 'the fixture looked at it' };
      case 'revise': return { revise: { text: 'revised by the fixture' } };
      case 'revise-bad': return { revise: { text: 42 } };
      case 'order': return { revise: { text: 'first' } };
      case 'deny-over-ask': return { ask: 'asked first' };
      case 'throw': throw new RangeError('the fixture hook threw');
      case 'malformed': return 42;
      case 'two-keys': return { deny: 'x', ask: 'y' };
      case 'allow': return { allow: true };
      case 'next': return next();
      case 'slow': return new Promise(() => {});
      case 'crash': execFileSync('/bin/sh', ['-c', `kill -9 ${process.pid}`]); return undefined; // process.kill of the host is refused
      case 'exec':
        return { deny: JSON.stringify({ keys: Object.keys(exec).sort(), frozen: Object.isFrozen(exec), argsFrozen: Object.isFrozen(exec.arguments),
          name: exec.name, callId: exec.callId, workspace: exec.workspace, aborted: exec.signal.aborted }) };
    }
    return undefined;
  });
  ctx.on('tools/pre-execute', (exec) => {
    const text = exec.arguments?.text;
    if (text === 'order') return { revise: { text: 'second' } };
    if (text === 'deny-over-ask') return { deny: 'denied second' };
    if (text === 'ask') return { annotate: 'the second hook saw it too' };
    return undefined;
  });
}
