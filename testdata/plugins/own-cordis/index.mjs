// Fixture: imports cordis by name while shipping its own copy; the host must serve its single copy.
import { Context } from '@deepseek-ai/cordis';

export const name = 'fixture-own-cordis';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'cordis_identity',
    description: 'Report whether ctx is an instance of the imported Context.',
    parameters: { type: 'object', properties: {} },
    execute: () => ({ sameContext: ctx instanceof Context, shippedMarker: Context.SHIPPED_COPY === true }),
  });
}
