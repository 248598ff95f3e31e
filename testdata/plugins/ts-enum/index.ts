// Fixture: one tool, `ts_color`, whose answer comes from an enum in lib/color.ts.
import { Color } from './lib/color.ts';

export const name = 'fixture-ts-enum';
export const inject = ['tools'];

export function apply(ctx: any): void {
  ctx.tools.register({
    name: 'ts_color',
    description: 'Name the first color.',
    parameters: { type: 'object', properties: {} },
    async execute(): Promise<string> {
      return Color.Red;
    },
  });
}
