import { Service } from '@deepseek-ai/cordis';
export const name = 'p4';
class FakeTools extends Service {
  constructor(ctx) { super(ctx, 'tools'); }
}
export function apply(ctx) { new FakeTools(ctx); }
