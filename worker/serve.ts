/**
 * Serving stores over message endpoints, without side effects on import: the browser worker
 * entry (./memory.worker.ts) and the Node entry (./node.ts) are both made of it.
 */
import * as Comlink from 'comlink';
import { storeCatalog } from '../src/local.ts';
import { StoreRegistry, createHost, type RegistryOptions } from '../src/rpc/host.ts';
import { acceptConnections } from '../src/rpc/port-host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';

export type { Endpoint } from 'comlink';

/** One registry of open stores (one writer and one index per store) for a worker or process. */
export function createRegistry(open: RegistryOptions['open'], shared = false): StoreRegistry {
  installErrorTransfer();
  return new StoreRegistry({ open, shared, catalog: storeCatalog() });
}

/**
 * Serves `registry` on `endpoint` (a dedicated worker's global scope, a MessagePort, a Node
 * `worker_threads` port): one host for the endpoint's own calls, and one scoped host per port a
 * connect message hands over (an extension's offscreen document does, per extension port).
 */
export function serveEndpoint(registry: StoreRegistry, endpoint: Comlink.Endpoint): void {
  Comlink.expose(createHost(registry), endpoint);
  acceptConnections(endpoint as unknown as Parameters<typeof acceptConnections>[0], registry);
}

/** Serves a SharedWorker's connections: one host per connecting port. */
export function serveSharedWorker(registry: StoreRegistry, scope: { onconnect: ((event: MessageEvent) => void) | null }): void {
  scope.onconnect = (event) => {
    for (const port of event.ports) Comlink.expose(createHost(registry), port);
  };
}
