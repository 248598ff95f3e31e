export const name = 'p1';
export function apply(ctx) { ctx.provide('llm', {}); }
