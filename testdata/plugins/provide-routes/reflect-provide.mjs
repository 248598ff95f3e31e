export const name = 'p3';
export function apply(ctx) { ctx.reflect.provide('credentials', {}); }
