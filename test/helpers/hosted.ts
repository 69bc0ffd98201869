/**
 * A client through the worker's RPC host without a worker: the host exposed on one end of a
 * MessageChannel (what the worker does), the client connected on the other, stores on the hash
 * embedder and the exact index. `cleanups` receives what closes them.
 */
import * as Comlink from 'comlink';
import { connectEndpoint, type MemoryClient } from '../../src/client/connect.ts';
import { createMemory } from '../../src/local.ts';
import { createHost, StoreRegistry } from '../../src/rpc/host.ts';
import { installErrorTransfer } from '../../src/transport/error-transfer.ts';
import { createHashEmbedder } from './fake-embedder.ts';
import { uniqueName } from './store.ts';

export async function hostedClient(prefix: string, cleanups: (() => unknown)[]): Promise<MemoryClient> {
  installErrorTransfer();
  const registry = new StoreRegistry({ open: (request) => createMemory({ name: request.name, embedder: createHashEmbedder(), index: 'exact', snapshotDelayMs: 10 }) });
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(createHost(registry), port1);
  cleanups.push(() => {
    port1.close();
    port2.close();
  });
  const client = await connectEndpoint(port2, { name: uniqueName(prefix) });
  cleanups.push(() => client.close());
  return client;
}
