import { agent } from '@deepseek-ai/dsh-agent';
export const name = 'fixture-dsh-agent';
export function apply() { return agent; }
