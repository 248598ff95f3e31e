// installFetchProxy switches a sandboxed host to the fetch proxy (host/initialize with
// fetch_proxy: the core says the host has no network of its own): the global `fetch` (and Bun's
// `Bun.fetch` where that Bun lets it be replaced) become the proxied one (fetch.ts) and the other ways out refuse (refuse.ts). It
// runs once, before the first plugin is activated; a host without fetch_proxy never calls it and
// keeps the runtime's own network.
import type { RpcPeer } from '../rpc.ts';
import { makeFetch } from './fetch.ts';
import { refuseNetwork } from './refuse.ts';

let installed = false;

export function installFetchProxy(rpc: RpcPeer): void {
  if (installed) return;
  installed = true;
  const proxied = makeFetch(rpc, { fetch: globalThis.fetch, Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers });
  const own = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  Object.defineProperty(globalThis, 'fetch', { value: proxied, writable: true, configurable: true, enumerable: own?.enumerable ?? true });
  const bun = globalThis.Bun;
  if (bun !== undefined) {
    try {
      Object.defineProperty(bun, 'fetch', { value: proxied, writable: true, configurable: true, enumerable: true });
    } catch {
      // Bun 1.4 makes Bun.fetch non-writable and non-configurable: it stays, and fails as any
      // connect from inside the sandbox does
    }
  }
  refuseNetwork();
}
