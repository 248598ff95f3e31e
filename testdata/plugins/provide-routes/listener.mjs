export const name = 'p6';
export function apply(ctx) { ctx.on('tools/post-execute', () => {}); }
