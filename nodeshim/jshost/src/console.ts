// console.* of a plugin, attributed: a console call made while an owner's code runs (its
// module's top level, apply, a tool's execute, a command's handler, and every timer or
// promise continuation they started, which AsyncLocalStorage follows) becomes a `log`
// notification naming the plugin, like a ctx.logger line. A call made outside every owner (the
// host's own, or a library's at import time) goes to stderr as before, where the shim logs it
// as the host's line.
import { format } from 'node:util';
import { ownerContext, type OwnerRecord } from './owner.ts';

export type LogSink = (level: 'error' | 'warn' | 'info', msg: string, owner: OwnerRecord) => void;

const NAMES = ['log', 'info', 'debug', 'warn', 'error'] as const;
const LEVELS = { log: 'info', info: 'info', debug: 'info', warn: 'warn', error: 'error' } as const satisfies Record<(typeof NAMES)[number], string>;

/** attributeConsole routes the console methods through sink whenever an owner's code runs. */
export function attributeConsole(sink: LogSink): void {
  for (const name of NAMES) {
    const previous = console[name].bind(console);
    const level = LEVELS[name];
    console[name] = (...args: unknown[]) => {
      const owner = ownerContext.getStore();
      if (owner === undefined) return previous(...args);
      let msg: string;
      try {
        msg = format(...args);
      } catch {
        msg = '(unprintable console arguments)';
      }
      sink(level, msg, owner);
    };
  }
}
