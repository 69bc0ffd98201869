/**
 * The memory worker: the composition root that wires the adapters into the core and exposes
 * one RPC host per connection. As a SharedWorker it is the single owner of every store for all
 * tabs of the origin (one writer, one HNSW index in memory); as a dedicated Worker it serves
 * the page (or extension document) that started it, and any connection that document hands it.
 *
 * Model files are served from the app's own origin, beside this script's folder:
 * `../models/use-lite/` (Universal Sentence Encoder lite), `../wasm/tfjs/` (TF.js WASM
 * binaries) and `../models/` for MiniLM files a site chooses to host itself.
 */
import * as Comlink from 'comlink';
import { createMemory, type CreateMemoryOptions } from '../src/local.ts';
import { StoreRegistry, createHost, type OpenedStore } from '../src/rpc/host.ts';
import { acceptConnections } from '../src/rpc/port-host.ts';
import { openOptions, type OpenRequest } from '../src/rpc/protocol.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';

installErrorTransfer();

const asset = (path: string): string => new URL(path, import.meta.url).href;
const isShared = typeof (globalThis as { onconnect?: unknown }).onconnect !== 'undefined' || 'SharedWorkerGlobalScope' in globalThis;

/** Opens a store with asset URLs on this origin; request options override them. */
export function openWithOriginAssets(request: OpenRequest, onProgress?: CreateMemoryOptions['onProgress']): Promise<OpenedStore> {
  return createMemory({
    ...openOptions(request),
    // TTL purge, trash retention and journal compaction run in the worker while a tab holds the store.
    maintenance: { enabled: true },
    ...(onProgress ? { onProgress } : {}),
    useLite: { modelUrl: asset('../models/use-lite/'), wasmPaths: asset('../wasm/tfjs/'), ...request.useLite },
    minilm: { localModelPath: asset('../models/'), ...request.minilm },
  }) as Promise<OpenedStore>;
}

const registry = new StoreRegistry({ open: openWithOriginAssets, shared: isShared });

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
