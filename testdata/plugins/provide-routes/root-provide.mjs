export const name = 'p2';
export function apply(ctx) { ctx.root.provide('sessions', {}); }
