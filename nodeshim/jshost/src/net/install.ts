// installFetchProxy switches a sandboxed host to the fetch proxy (host/initialize with
// fetch_proxy: the core says the host has no network of its own): the global `fetch` (and Bun's
// `Bun.fetch` where that Bun lets it be replaced) become the proxied one (fetch.ts) and the other ways out refuse (refuse.ts). It
// runs once, before the first plugin is activated; a host without fetch_proxy never calls it and
// keeps the runtime's own network.
//
// The platform's Request, Response and Headers are read at the first fetch, not here: on Node
// reading any of them (even its property descriptor) loads Node's whole fetch implementation,
// ~45 ms of a sandboxed host's start that a plugin which never fetches should not pay. A plugin
// that replaces one of those globals before the first fetch of its host changes them for the
// proxy as it does for every other plugin there (ARCHITECTURE.md, “Trust model”).
import type { RpcPeer } from '../rpc.ts';
import { makeFetch, type Platform } from './fetch.ts';
import { refuseNetwork } from './refuse.ts';

let installed = false;

export function installFetchProxy(rpc: RpcPeer): void {
  if (installed) return;
  installed = true;
  const proxied = makeFetch(rpc, lazyPlatform());
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

/** lazyPlatform is the platform's fetch (read now: a plain function) and its classes, read once at first use. */
function lazyPlatform(): Platform {
  const fetch = globalThis.fetch;
  let classes: Omit<Platform, 'fetch'> | undefined;
  const read = (): Omit<Platform, 'fetch'> => (classes ??= { Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers });
  return {
    fetch,
    get Request() {
      return read().Request;
    },
    get Response() {
      return read().Response;
    },
    get Headers() {
      return read().Headers;
    },
  };
}
