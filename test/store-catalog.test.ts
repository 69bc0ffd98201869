import { afterEach, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { connectEndpoint, type MemoryClient } from '../src/client/connect.ts';
import { checkStoreName } from '../src/core/catalog.ts';
import { createMemory, deleteMemory, listMemories, renameMemory, storeCatalog } from '../src/local.ts';
import { createHost, StoreRegistry } from '../src/rpc/host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await Promise.resolve(cleanups.pop()!()).catch(() => undefined);
});

const open = (name: string) => createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });

async function seeded(name: string, texts: string[]): Promise<void> {
  const store = await open(name);
  for (const text of texts) await store.remember(text);
  await store.close();
}

describe('the store catalog, in process', () => {
  it('lists every store with its memory count and model, names with colons and slashes included', async () => {
    const base = uniqueName('cat');
    const names = [`${base}-plain`, `${base}:a:b`, `${base}/with slash`];
    await seeded(names[0]!, ['one']);
    await seeded(names[1]!, ['one', 'two']);
    await seeded(names[2]!, []);
    const listed = (await listMemories()).filter((s) => s.name.startsWith(base));
    expect(listed.map((s) => [s.name, s.memories, s.embedder])).toEqual(
      expect.arrayContaining([
        [names[0], 1, { id: 'hash-128', dim: 128 }],
        [names[1], 2, { id: 'hash-128', dim: 128 }],
        [names[2], 0, { id: 'hash-128', dim: 128 }],
      ]),
    );
    expect(listed).toHaveLength(3);
  });

  it('renames a store with everything in it: memories, vectors, journal (undo still works), canary', async () => {
    const from = uniqueName('from');
    const to = `${from}:renamed`;
    const store = await open(from);
    const { memory } = await store.remember('the staging cluster is deploy-stg-2');
    await store.remember('we lint with eslint');
    await store.close();

    await renameMemory(from, to);
    const names = (await listMemories()).map((s) => s.name);
    expect(names).toContain(to);
    expect(names).not.toContain(from);

    const renamed = await open(to);
    expect(await renamed.count()).toBe(2);
    expect((await renamed.recall('staging cluster', { k: 1, touch: false }))[0]!.memory.id).toBe(memory.id);
    expect((await renamed.journalCalls(5)).map((c) => c.op)).toEqual(['remember', 'remember']);
    expect((await renamed.undo()).ok).toBe(true);
    expect(await renamed.count()).toBe(1);
    // Its registry record moved with it: no false alarm about a lost store.
    expect((await renamed.durability()).loss).toBeNull();
    await renamed.close();
  });

  it('refuses with typed errors: a missing store, a taken name, a bad name', async () => {
    const a = uniqueName('a');
    const b = uniqueName('b');
    await seeded(a, ['x']);
    await seeded(b, ['y']);
    await expect(renameMemory(a, b)).rejects.toMatchObject({ code: 'STORE_EXISTS', details: { name: b } });
    await expect(renameMemory(`${a}-missing`, `${a}-new`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(renameMemory(a, '   ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'to' } });
    await expect(renameMemory(a, a)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(storeCatalog().delete(`${a}-missing`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(() => checkStoreName('x'.repeat(201))).toThrow(/at most 200/);
    // Nothing changed.
    const store = await open(a);
    expect(await store.count()).toBe(1);
    await store.close();
  });

  it('starts over a rename that a closed tab cut short (a copy without its metadata row)', async () => {
    const from = uniqueName('cut');
    const to = `${from}-to`;
    await seeded(from, ['kept']);
    // What an interrupted copy leaves: the target database with some rows and no metadata row.
    const { default: Dexie } = await import('dexie');
    const partial = new Dexie(`houkai-web:${to}`);
    partial.version(1).stores({ memories: 'id', meta: 'key' });
    await partial.open();
    await partial.table('memories').put({ id: 'half', text: 'half' });
    partial.close();
    await renameMemory(from, to);
    const store = await open(to);
    expect((await store.listRecent()).map((m) => m.text)).toEqual(['kept']);
    await store.close();
    await deleteMemory(to);
  });
});

describe('the store catalog through the worker', () => {
  function startHost(): { port(): MessagePort; registry: StoreRegistry } {
    installErrorTransfer();
    const registry = new StoreRegistry({ open: (request) => open(request.name), catalog: storeCatalog({ index: 'exact' }) });
    return {
      registry,
      port() {
        const { port1, port2 } = new MessageChannel();
        Comlink.expose(createHost(registry), port1);
        cleanups.push(() => {
          port1.close();
          port2.close();
        });
        return port2;
      },
    };
  }

  async function connect(port: MessagePort, name: string): Promise<MemoryClient> {
    const client = await connectEndpoint(port, { name });
    cleanups.push(() => client.close());
    return client;
  }

  it('lists stores with whether they are open, refuses one open elsewhere, deletes and renames one closed', async () => {
    const host = startHost();
    const mine = uniqueName('mine');
    const theirs = uniqueName('theirs');
    const closed = uniqueName('closed');
    await seeded(closed, ['a', 'b', 'c']);
    const me = await connect(host.port(), mine);
    await me.remember('mine');
    const other = await connect(host.port(), theirs);
    await other.remember('theirs');

    const listed = (await me.stores()).filter((s) => [mine, theirs, closed].includes(s.name));
    expect(listed.map((s) => [s.name, s.open, s.memories])).toEqual(
      expect.arrayContaining([
        [mine, true, 1],
        [theirs, true, 1],
        [closed, false, 3],
      ]),
    );

    // Open in another connection: refused, with a code that says why; nothing is touched.
    await expect(me.deleteStore(theirs)).rejects.toMatchObject({ code: 'STORE_IN_USE', details: { name: theirs, action: 'delete' } });
    // Renaming onto a name in use: taken, whether or not it is open.
    await expect(me.renameStore(closed, theirs)).rejects.toMatchObject({ code: 'STORE_EXISTS' });
    await expect(me.renameStore(theirs, `${theirs}-2`)).rejects.toMatchObject({ code: 'STORE_IN_USE' });
    expect(await other.count()).toBe(1);

    await me.renameStore(closed, `${closed}:b`);
    expect((await me.stores()).find((s) => s.name === `${closed}:b`)).toMatchObject({ memories: 3, open: false });
    await me.deleteStore(`${closed}:b`);
    expect((await me.stores()).some((s) => s.name.startsWith(closed))).toBe(false);
    await expect(me.deleteStore(`${closed}:b`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('deleting the store a client has open closes that client; the name can be used again afresh', async () => {
    const host = startHost();
    const name = uniqueName('own');
    const client = await connectEndpoint(host.port(), { name });
    await client.remember('soon gone');
    await client.deleteStore(name);
    await expect(client.count()).rejects.toMatchObject({ code: 'CLOSED' });
    const again = await connect(host.port(), name);
    expect(await again.count()).toBe(0);
    expect((await again.durability()).loss).toBeNull();
  });

  it('a connection whose owner imposed a scope cannot list, delete or rename stores', async () => {
    installErrorTransfer();
    const registry = new StoreRegistry({ open: (request) => open(request.name), catalog: storeCatalog({ index: 'exact' }) });
    const { port1, port2 } = new MessageChannel();
    Comlink.expose(createHost(registry, { scope: { readOnly: true } }), port1);
    cleanups.push(() => {
      port1.close();
      port2.close();
    });
    const client = await connect(port2, uniqueName('scoped'));
    await expect(client.stores()).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(client.deleteStore('x')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
