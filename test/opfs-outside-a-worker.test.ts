/**
 * #54: a store on OPFS outside a dedicated worker (Node here, a SharedWorker or a page alike) is
 * refused with a typed error that says why, before anything is created; one worker serves a name
 * on one storage at a time. (The OPFS store itself runs in Chromium: e2e/contracts.spec.ts.)
 */
import 'fake-indexeddb/auto';
import * as Comlink from 'comlink';
import { describe, expect, it } from 'vitest';
import { connectEndpoint } from '../src/client/connect.ts';
import { createMemory, deleteMemory, moveMemory } from '../src/local.ts';
import { createHost, StoreRegistry } from '../src/rpc/host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

describe('storage: opfs where there is no OPFS', () => {
  it('createMemory, deleteMemory and moveMemory answer STORAGE_FAILURE naming the dedicated worker', async () => {
    for (const attempt of [
      createMemory({ name: uniqueName(), storage: 'opfs', embedder: createHashEmbedder() }),
      deleteMemory(uniqueName(), { storage: 'opfs' }),
      moveMemory(uniqueName(), 'opfs'),
    ]) {
      await expect(attempt).rejects.toMatchObject({ code: 'STORAGE_FAILURE', message: expect.stringMatching(/dedicated worker/) });
    }
    await expect(moveMemory(uniqueName(), 'floppy' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'to' } });
    await expect(createMemory({ name: uniqueName(), storage: 'opfs', index: 'hnsw', embedder: createHashEmbedder() })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'index' } });
  });

  it('a worker serving a name on IndexedDB refuses the same name on OPFS with STORE_IN_USE', async () => {
    installErrorTransfer();
    const registry = new StoreRegistry({ open: (request) => createMemory({ name: request.name, embedder: createHashEmbedder(), index: 'exact' }) as never });
    const channel = () => {
      const { port1, port2 } = new MessageChannel();
      Comlink.expose(createHost(registry), port1);
      return port2;
    };
    const name = uniqueName();
    const first = await connectEndpoint(channel(), { name });
    const refused = await connectEndpoint(channel(), { name, storage: 'opfs' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'STORE_IN_USE', details: { storage: 'indexeddb' } });
    await first.close();
  });
});
