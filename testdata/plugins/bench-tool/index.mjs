// Fixture for core's call benchmarks. `bench_text` answers a small input {"bytes": N}
// with N bytes of text (a result of a chosen size for a tiny request); `bench_echo`
// returns its input text (the same size both ways).
export const name = 'fixture-bench-tool';
export const inject = ['tools'];

const MAX_BYTES = 16 << 20;

export function apply(ctx) {
  const made = new Map(); // size -> text, so the benchmark measures the call, not String.repeat
  ctx.tools.register({
    name: 'bench_text',
    description: 'Return `bytes` bytes of text.',
    parameters: {
      type: 'object',
      properties: { bytes: { type: 'integer', minimum: 0, maximum: MAX_BYTES } },
      required: ['bytes'],
      additionalProperties: false,
    },
    async execute(args) {
      let text = made.get(args.bytes);
      if (text === undefined) {
        text = 'x'.repeat(args.bytes);
        if (made.size < 8) made.set(args.bytes, text);
      }
      return text;
    },
  });
  ctx.tools.register({
    name: 'bench_echo',
    description: 'Return the input text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    async execute(args) {
      return args.text;
    },
  });
}
