// Fixture: what @deepseek-ai/dsh-agent-tool-presentation does first, `ctx.tools.presentAs`,
// which cwx does not provide: the activation fails naming the method.
export const name = 'fixture-dsh-present-as';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.presentAs('card', { tool: 'anything' });
}
