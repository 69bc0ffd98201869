/**
 * The memory worker: the composition root that wires the adapters into the core and exposes
 * one RPC host per connection. As a SharedWorker it is the single owner of every store for all
 * tabs of the origin (one writer, one HNSW index in memory); as a dedicated Worker it serves
 * the page (or extension document) that started it, and any connection that document hands it.
 *
 * Models and runtimes come from the worker's own origin only (./origin-assets.ts). This file is
 * the entry of this repository's Vite builds and of the package's prebuilt worker
 * (scripts/build-worker.mjs → `houkai-web/worker.js`); it starts serving when loaded in a worker.
 */
import { createMemory, type CreateMemoryOptions } from '../src/local.ts';
import type { OpenedStore } from '../src/rpc/host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import { originModelOptions } from './origin-assets.ts';
import { createRegistry, serveEndpoint, serveSharedWorker } from './serve.ts';

/** Opens a store with asset URLs on this origin; request options override them. */
export function openWithOriginAssets(request: OpenRequest, onProgress?: CreateMemoryOptions['onProgress']): Promise<OpenedStore> {
  return createMemory({
    ...openOptions(request),
    // TTL purge, trash retention and journal compaction run in the worker while a tab holds the store.
    maintenance: { enabled: true },
    ...(onProgress ? { onProgress } : {}),
    ...originModelOptions(request),
  }) as Promise<OpenedStore>;
}

const scope = globalThis as unknown as { onconnect?: unknown; WorkerGlobalScope?: unknown };
const isShared = 'SharedWorkerGlobalScope' in globalThis || typeof scope.onconnect !== 'undefined';
const isWorker = typeof scope.WorkerGlobalScope !== 'undefined';

if (isShared) {
  serveSharedWorker(createRegistry(openWithOriginAssets, true), globalThis as unknown as Parameters<typeof serveSharedWorker>[1]);
} else if (isWorker) {
  serveEndpoint(createRegistry(openWithOriginAssets), globalThis as unknown as Parameters<typeof serveEndpoint>[1]);
}
