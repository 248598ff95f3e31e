// Fixture: DSH's `tools.restrict`, which narrows a child agent's tools inside its
// `agent/created` handler; cwx has no such handler (a child's tools are narrowed by the
// tool filter of subagents.startActivation), so the method refuses by name.
export const name = 'fixture-dsh-tools-restrict';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.restrict({ deny: ['shell'] });
}
