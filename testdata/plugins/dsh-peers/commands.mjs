import { something } from '@deepseek-ai/dsh-commands';
export const name = 'fixture-dsh-commands-main';
export function apply() { return something; }
