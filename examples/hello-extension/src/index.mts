// hello-extension: a cwx plugin written in TypeScript.
//
// cwx loads this file as it is: Node (22.18 and later) strips the type annotations of a .mts
// module and Bun runs TypeScript natively, so there is no emit step. Everything below that
// is TypeScript-only is erasable syntax (type imports, interfaces, annotations), which
// `tsc -p .` checks (see tsconfig.json and the README).
import Schema from '@deepseek-ai/schemastery';
import type { Context } from 'cwx-plugin';

// cwx-plugin.d.ts (printed by `cwx plugin types`) declares `ctx` with the services cwx's host
// provides and the schema builder; this example has no Node types, so it states the one Node
// global it reads.
declare const process: { readonly pid: number };

export const name = 'hello-extension';
export const inject = ['tools', 'commands'];

// Config is validated by Cordis before apply runs. Its values come from config.toml:
//
//   [plugins."hello-extension".config]
//   greeting = "Ahoy"
//
// Missing keys take the defaults below; a wrong type fails activation with the reason.
export interface Config {
  greeting: string;
  punctuation: string;
}
export const Config: Schema<Config> = Schema.object({
  greeting: Schema.string().default('Hello').description('The word each greeting starts with.'),
  punctuation: Schema.string().default('!').description('What each greeting ends with.'),
});

interface GreetArgs {
  name?: string;
}

export function apply(ctx: Context, config: Config): void {
  let greetings = 0;
  const greet = (who: string): string => {
    greetings++;
    return `${config.greeting}, ${who || 'world'}${config.punctuation}`;
  };

  ctx.tools.register<GreetArgs>({
    name: 'hello_greet',
    description: 'Greet someone by name, with the greeting configured for this plugin.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 200, description: 'Who to greet.' } },
      additionalProperties: false,
    },
    execute(args, exec) {
      return { text: greet(args.name ?? ''), greetings, pid: process.pid, call_id: exec.callId };
    },
  });

  ctx.commands.register({
    name: 'hello',
    description: 'Say hello to someone.',
    argumentHint: '[name]',
    handler: (inv) => ({ kind: 'success', text: greet(inv.args.trim()) }),
  });

  // The disposer: cwx runs it when the plugin is disabled, re-activated with a new config, or
  // the host shuts down. An effect's disposer may be async; cwx waits for it (2 s at most).
  ctx.effect(() => () => {
    ctx.logger.info(`said hello ${greetings} time(s); goodbye`);
  }, 'hello-extension: farewell');
}
