// Fixture: injects a service the host does not provide.
export const name = 'fixture-injects-secrets';
export const inject = ['tools', 'secrets'];
export function apply() {}
