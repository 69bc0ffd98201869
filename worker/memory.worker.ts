/**
 * The memory worker: the composition root that wires the adapters into the core and exposes
 * one RPC host per connection. As a SharedWorker it is the single owner of every store for all
 * tabs of the origin (one writer, one HNSW index in memory); as a dedicated Worker it serves
 * the page (or extension document) that started it, and any connection that document hands it.
 *
 * Models and runtimes come from the app's own origin only (./origin-assets.ts).
 */
import * as Comlink from 'comlink';
import { createMemory, storeCatalog, type CreateMemoryOptions } from '../src/local.ts';
import { StoreRegistry, createHost, type OpenedStore } from '../src/rpc/host.ts';
import { acceptConnections } from '../src/rpc/port-host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { originModelOptions } from './origin-assets.ts';

installErrorTransfer();

const isShared = typeof (globalThis as { onconnect?: unknown }).onconnect !== 'undefined' || 'SharedWorkerGlobalScope' in globalThis;

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

const registry = new StoreRegistry({ open: openWithOriginAssets, shared: isShared, catalog: storeCatalog() });

if (isShared) {
  (globalThis as unknown as { onconnect: (event: MessageEvent) => void }).onconnect = (event) => {
    for (const port of event.ports) Comlink.expose(createHost(registry), port);
  };
} else {
  Comlink.expose(createHost(registry), globalThis as unknown as Comlink.Endpoint);
  // The document that started this worker may hand it one port per client of its own, each with
  // a scope the client cannot widen (an extension's offscreen document does, per extension port).
  acceptConnections(globalThis as unknown as Worker, registry);
}
