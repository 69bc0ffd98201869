/**
 * `houkai-web/worker` in Node: serves stores over a message endpoint, as the browser worker
 * does, with `createMemory`'s Node defaults (models from `./public/models` or `./models`, or the
 * paths the open request names). Importing it starts nothing.
 *
 * @example
 * ```ts
 * // store-thread.mjs, started with new Worker('./store-thread.mjs')
 * import { parentPort } from 'node:worker_threads';
 * import { serveMemory, nodeEndpoint } from 'houkai-web/worker';
 * serveMemory(nodeEndpoint(parentPort));
 * // main thread: import { connectEndpoint } from 'houkai-web';
 * //              const memory = await connectEndpoint(nodeEndpoint(worker), { name: 'agent' });
 * ```
 */
import { createMemory } from '../src/local.ts';
import type { OpenedStore, StoreRegistry } from '../src/rpc/host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import comlinkNodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createRegistry, serveEndpoint, type Endpoint } from './serve.ts';

export type { Endpoint };

/** What a Node Worker, MessagePort or parentPort offers. */
export interface NodeMessagePort {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  off(event: 'message', listener: (data: unknown) => void): unknown;
}

/** A Node `worker_threads` Worker or port as a comlink endpoint, on both ends: comlink's own Node adapter. */
export const nodeEndpoint: (port: NodeMessagePort) => Endpoint = comlinkNodeEndpoint;

let registry: StoreRegistry | null = null;

function openInNode(request: OpenRequest, onProgress?: (event: import('../src/core/types.ts').ProgressEvent) => void): Promise<OpenedStore> {
  return createMemory({
    ...openOptions(request),
    maintenance: { enabled: true },
    ...(onProgress ? { onProgress } : {}),
  }) as Promise<OpenedStore>;
}

/** Serves this process's stores on `endpoint`; every endpoint served shares one registry. */
export function serveMemory(endpoint: Endpoint): void {
  registry ??= createRegistry(openInNode);
  serveEndpoint(registry, endpoint);
}
