// guard-example: a pre-execute hook. Before any gated call (an extension tool, a native tool,
// a core/call from inside another plugin's tool) the core asks every live hook what it thinks.
// This one denies a `shell` command that contains `rm -rf` and annotates every other call; the
// annotation shows on the call's approval card, attributed to this plugin.
//
// A hook can stop a call (`{ deny }`), force a card (`{ ask }`), add a note (`{ annotate }`) or
// replace the input (`{ revise }`, validated against the tool's schema again). It can never
// approve one: returning nothing or `next()` abstains. `exec` is frozen: `name`, `arguments`,
// `callId`, `signal` and `workspace`.
//
// It also contributes a prompt section: text for the agent's prompt, which the core shows
// attributed to this plugin and quoted, never as system text (`cwx prompt show`).
export const name = 'guard-example';
export const inject = ['prompt'];

const RM_RF = /\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b/;

export function apply(ctx) {
  ctx.prompt.registerSection({
    id: 'shell-safety',
    text: 'Shell commands containing `rm -rf` are refused by guard-example.\nDelete files one by one, naming each.',
  });
  ctx.on('tools/pre-execute', (exec, next) => {
    if (exec.name === 'shell' && typeof exec.arguments?.command === 'string' && RM_RF.test(exec.arguments.command)) {
      return { deny: 'guard-example refuses shell commands containing rm -rf' };
    }
    if (exec.name === 'shell') return { annotate: `guard-example saw this shell command in ${exec.workspace || 'no workspace'}` };
    if (exec.signal.aborted) return next(); // the call is gone: abstain
    return { annotate: `guard-example checked \`${exec.name}\`` };
  });
}
