// Fixture: connect to 127.0.0.1:<port> or to a unix socket <path>; report connected or the error
// code (in a host behind the fetch proxy node:net refuses at once: code NetworkRefused, message).
import net from 'node:net';
export const name = 'fixture-net-probe';
export const inject = ['tools'];
export function apply(ctx) {
  ctx.tools.register({
    name: 'net_probe', description: 'Connect somewhere.',
    parameters: { type: 'object', properties: { port: { type: 'integer' }, path: { type: 'string' } } },
    execute(args) {
      return new Promise((resolve) => {
        let s;
        try {
          s = args.path ? net.connect({ path: args.path }) : net.connect({ host: '127.0.0.1', port: args.port });
        } catch (e) {
          return resolve({ ok: false, code: e.name, text: e.message });
        }
        const t = setTimeout(() => { s.destroy(); resolve({ ok: false, code: 'TIMEOUT' }); }, 5000);
        s.on('connect', () => { clearTimeout(t); s.destroy(); resolve({ ok: true }); });
        s.on('error', (e) => { clearTimeout(t); resolve({ ok: false, code: e.code }); });
      });
    },
  });
}
