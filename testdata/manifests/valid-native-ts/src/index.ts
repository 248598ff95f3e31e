export const name: string = 'typed';
export function apply(): void {}
