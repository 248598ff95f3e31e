// Fixture: a guard. Its one pre-execute hook denies read_file of a path that names `secret`
// or `.env`, and abstains on everything else.
export const name = 'fixture-guard';

export function apply(ctx) {
  ctx.on('tools/pre-execute', (exec) => {
    const path = exec.arguments?.file_path;
    if (exec.name === 'read_file' && typeof path === 'string' && (path.includes('secret') || path.includes('.env'))) {
      return { deny: `fixture-guard keeps ${path} unread` };
    }
    return undefined;
  });
}
