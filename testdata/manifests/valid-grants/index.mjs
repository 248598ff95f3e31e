export function apply() {}
