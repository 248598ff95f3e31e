// Fixture: commands. `/greet <mode>` answers each result kind; `/rawcheck` echoes what it saw.
export const name = 'fixture-command';
export const inject = ['commands'];

export function apply(ctx) {
  ctx.commands.register({
    name: 'greet',
    description: 'Greet someone.',
    argumentHint: '<mode>',
    async handler(inv) {
      switch (inv.args) {
        case 'string': return 'hello as a string';
        case 'error': return { kind: 'error', text: 'no greeting today' };
        case 'submit': return { kind: 'submit', prompt: 'Say hello to the user.', text: 'submitting' };
        case 'throw': throw new Error('greeting exploded');
        case 'undefined': return undefined;
        case 'wait':
          return new Promise((resolve, reject) => inv.signal.addEventListener('abort', () => reject(new Error('aborted'))));
        default: return { kind: 'success', text: `hello ${inv.args}` };
      }
    },
  });
  ctx.commands.register({
    name: 'rawcheck',
    description: 'Show the invocation.',
    input: { hint: '[text]' },
    handler: (inv) => ({ kind: 'success', text: JSON.stringify({ rawInput: inv.rawInput, args: inv.args, frozen: Object.isFrozen(inv), workspace: inv.workspace ?? null, dataDir: inv.dataDir ?? null, attachments: inv.attachments }) }),
  });
}
