export const inject = ['tools'];
export function apply(ctx) {}
