import { afterEach, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { connectEndpoint, type MemoryClient } from '../src/client/connect.ts';
import { MemoryError, createMemory } from '../src/local.ts';
import { createHost, narrowScope, StoreRegistry, type ConnectionScope } from '../src/rpc/host.ts';
import { installErrorTransfer } from '../src/transport/error-transfer.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/store.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function registry(): StoreRegistry {
  return new StoreRegistry({
    open: (request) => createMemory({ name: request.name, embedder: createHashEmbedder(), index: 'exact', snapshotDelayMs: 10 }),
  });
}

/** A host on one end of a MessageChannel (optionally with an imposed scope), a client on the other. */
async function connect(reg: StoreRegistry, name: string, scope?: ConnectionScope, imposed?: ConnectionScope): Promise<MemoryClient> {
  installErrorTransfer();
  const { port1, port2 } = new MessageChannel();
  Comlink.expose(createHost(reg, imposed ? { scope: imposed } : {}), port1);
  cleanups.push(() => {
    port1.close();
    port2.close();
  });
  const client = await connectEndpoint(port2, { name, ...(scope ? { scope } : {}) });
  cleanups.push(() => client.close().catch(() => undefined));
  return client;
}

async function expectDenied(promise: Promise<unknown>): Promise<MemoryError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryError);
  expect((error as MemoryError).code).toBe('PERMISSION_DENIED');
  return error as MemoryError;
}

/** An owner (no scope) and a client scoped to the namespace `web`, on one store. */
async function setup(): Promise<{ owner: MemoryClient; web: MemoryClient; outside: string; name: string; reg: StoreRegistry }> {
  const reg = registry();
  const name = uniqueName();
  const owner = await connect(reg, name);
  const { memory } = await owner.remember('the staging cluster password rotates every monday', { tags: ['secrets'], onConflict: 'ignore' });
  const web = await connect(reg, name, { namespace: 'web' });
  return { owner, web, outside: memory.id, name, reg };
}

describe('namespace scopes: writes', () => {
  it('tags everything the connection writes with ns:<namespace>, and keeps the tag through edits', async () => {
    const { owner, web } = await setup();
    const { memory } = await web.remember('a recipe read on a cooking site', { tags: ['food'] });
    expect(memory.tags).toEqual(['food', 'ns:web']);
    const many = await web.rememberMany(['plain string item', { text: 'object item', tags: ['x'] }]);
    expect(many.map((r) => r.memory.tags)).toEqual([['ns:web'], ['x', 'ns:web']]);
    const edited = await web.edit(memory.id, { tags: ['dessert'] });
    expect(edited.tags).toEqual(['dessert', 'ns:web']);
    expect((await owner.get(memory.id))!.tags).toEqual(['dessert', 'ns:web']);
  });

  it('refuses changes to memories outside the namespace, and to ids it cannot see, writing nothing', async () => {
    const { owner, web, outside } = await setup();
    const { memory: inside } = await web.remember('a page about sourdough starters');
    const before = await owner.get(outside);
    await expectDenied(web.edit(outside, { text: 'overwritten by a page' }));
    await expectDenied(web.edit(outside, { importance: 1 }));
    await expectDenied(web.forget(outside));
    await expectDenied(web.link(inside.id, outside));
    await expectDenied(web.link(outside, inside.id));
    await expectDenied(web.unlink(outside, inside.id));
    await expectDenied(web.supersede(outside, inside.id));
    await expectDenied(web.restore(outside));
    await expectDenied(web.history(outside));
    const missing = await expectDenied(web.forget('no-such-id')); // the same answer as for an existing one
    expect(missing.details).toMatchObject({ method: 'forget', id: 'no-such-id' });
    expect(await owner.get(outside)).toEqual(before);
    expect((await owner.get(inside.id))!.links).toEqual([]);
    // Inside the namespace the same calls work.
    const { memory: other } = await web.remember('a page about rye flour');
    expect(await web.link(inside.id, other.id)).toEqual({ added: true });
    expect((await web.supersede(inside.id, other.id)).ok).toBe(true);
    expect((await web.history(other.id)).length).toBeGreaterThan(0);
    expect(await web.forget(other.id)).toBe(true);
  });

  it('refuses conflict policies that would change or reveal memories outside, and reports only conflicts inside', async () => {
    const { owner, web, outside } = await setup();
    await expectDenied(web.remember('the staging cluster password rotates every monday', { onConflict: 'supersede' }));
    await expectDenied(web.remember('the staging cluster password rotates every monday', { onConflict: 'raise' }));
    await expectDenied(web.rememberMany([{ text: 'x', onConflict: 'review' }]));
    await expectDenied(web.rememberMany(['x'], { onConflict: 'supersede' }));
    expect(await owner.count()).toBe(1);
    // A duplicate of the outside memory is stored without a word about it…
    const { conflicts, action } = await web.remember('the staging cluster password rotates every monday');
    expect(action).toBe('stored');
    expect(conflicts).toEqual([]);
    expect((await owner.get(outside))!.supersededBy).toBeFalsy();
    // …while a duplicate inside is reported.
    const again = await web.remember('the staging cluster password rotates every monday');
    expect(again.conflicts.map((c) => c.kind)).toContain('duplicate');
  });

  it('refuses whole-store methods', async () => {
    const { web } = await setup();
    const calls: [string, () => Promise<unknown>][] = [
      ['count', () => web.count()],
      ['stats', () => web.stats()],
      ['exportArchive', () => web.exportArchive()],
      ['importArchive', () => web.importArchive(new Blob([new Uint8Array([1, 2, 3])]))],
      ['contextPack', () => web.contextPack('anything at all')],
      ['journalTail', () => web.journalTail(5)],
      ['undo', () => web.undo()],
      ['stateAt', () => web.stateAt(0)],
      ['trashList', () => web.trashList()],
      ['health', () => web.health()],
      ['decayScores', () => web.decayScores()],
      ['prune', () => web.prune({ dryRun: true })],
      ['reflect', () => web.reflect({ dryRun: true })],
      ['listPendingConflicts', () => web.listPendingConflicts()],
      ['reindex', () => web.reindex()],
    ];
    for (const [method, call] of calls) {
      const error = await expectDenied(call());
      expect(error.details.method).toBe(method);
    }
    expect(await web.maintenanceStatus()).toBeTruthy();
  });
});

describe('namespace scopes: reads', () => {
  it('recall, recallPack, get and suggest only see the namespace', async () => {
    const { owner, web, outside } = await setup();
    const { memory: inside } = await web.remember('a blog post says the cluster password is hunter2');
    const hits = await web.recall('staging cluster password rotates monday', { k: 5 });
    expect(hits.map((h) => h.memory.id)).toEqual([inside.id]);
    expect((await owner.recall('staging cluster password rotates monday', { k: 5 })).map((h) => h.memory.id)).toContain(outside);
    const pack = await web.recallPack('cluster password', { tokenBudget: 200 });
    expect(pack.text).toContain('hunter2');
    expect(pack.text).not.toContain('rotates every monday');
    expect(await web.get(outside)).toBeNull();
    expect((await web.get(inside.id))!.id).toBe(inside.id);
    await owner.edit(outside, { surfacesWhen: ['deploy.yaml'] });
    await web.edit(inside.id, { surfacesWhen: ['deploy.yaml'] });
    const suggestions = await web.suggest({ filePath: 'ops/deploy.yaml' });
    expect(suggestions.map((s) => s.memory.id)).toEqual([inside.id]);
    await expectDenied(web.recall('password', { tag: 'secrets' }));
    await expectDenied(web.recallPack('password', { expand: true }));
  });

  it('recall with expand drops linked neighbours from outside', async () => {
    const { owner, web, outside } = await setup();
    const { memory: inside } = await web.remember('notes on the cluster from a forum');
    await owner.link(inside.id, outside, 'refines');
    const expanded = await owner.recall('notes on the cluster from a forum', { k: 1, expand: { depth: 1 } });
    expect(expanded.map((h) => h.memory.id)).toContain(outside); // the owner sees the neighbour…
    const hits = await web.recall('notes on the cluster from a forum', { k: 1, expand: { depth: 1 } });
    expect(hits.map((h) => h.memory.id)).toEqual([inside.id]); // …the namespace does not
  });

  it('listRecent fills its page from the namespace even when newer memories outside crowd it', async () => {
    const { owner, web } = await setup();
    const inside: string[] = [];
    for (let i = 0; i < 5; i++) inside.push((await web.remember(`web clip number ${i}`)).memory.id);
    await owner.rememberMany(Array.from({ length: 150 }, (_, i) => ({ text: `private note ${i}`, onConflict: 'ignore' as const })));
    const recent = await web.listRecent({ limit: 4 });
    expect(recent).toHaveLength(4);
    expect(recent.every((m) => m.tags.includes('ns:web'))).toBe(true);
    expect(new Set(recent.map((m) => m.id))).toEqual(new Set(inside.slice(1)));
    const all = await web.listRecent({ limit: 50 });
    expect(new Set(all.map((m) => m.id))).toEqual(new Set(inside));
  });

  it('the graph reads stop at the namespace edge', async () => {
    const { owner, web, outside } = await setup();
    const a = (await web.remember('clip a')).memory.id;
    const b = (await web.remember('clip b')).memory.id;
    await web.link(a, b, 'related');
    await owner.link(a, outside, 'supports');
    await owner.link(outside, b, 'causes');
    const neighbors = await web.neighbors(a, { direction: 'both', depth: 2 });
    expect(neighbors.results.map((r) => r.memory.id)).toEqual([b]);
    const sub = await web.subgraph([a], { depth: 2 });
    expect(sub.nodes.map((m) => m.id).sort()).toEqual([a, b].sort());
    expect(sub.edges).toEqual([[a, b, 'related']]);
    await expectDenied(web.neighbors(outside));
    await expectDenied(web.subgraph([a, outside]));
    await expectDenied(web.findPath(a, outside));
    // The only path from b back to a that avoids the direct link runs outside: with it gone, none is visible.
    await web.unlink(a, b);
    expect((await owner.findPath(a, b)).found).toBe(true);
    expect(await web.findPath(a, b)).toEqual({ found: false, length: -1, path: [] });
    const conflicts = await web.findConflicts();
    expect(conflicts.every((c) => c.a.tags.includes('ns:web') && c.b.tags.includes('ns:web'))).toBe(true);
    await expectDenied(web.findConflicts({ memoryId: outside }));
  });
});

describe('namespace scopes: opening', () => {
  it('validates the name, and an imposed namespace cannot be swapped for another', async () => {
    const reg = registry();
    const name = uniqueName();
    for (const bad of ['', 'has space', 'comma,name', '-leading', 'x'.repeat(65)]) {
      const error = await connect(reg, name, { namespace: bad }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'scope.namespace' } });
    }
    expect(reg.names()).toEqual([]); // nothing was opened for a bad request
    await expectDenied(connect(reg, name, { namespace: 'other' }, { namespace: 'web' }));
    const same = await connect(reg, name, { namespace: 'web' }, { namespace: 'web' });
    expect((await same.remember('ok')).memory.tags).toEqual(['ns:web']);
    const imposed = await connect(reg, name, undefined, { namespace: 'web', trust: 'untrusted' });
    const { memory } = await imposed.remember('from a page', { trust: 'trusted' });
    expect(memory).toMatchObject({ tags: ['ns:web'], trust: 'untrusted' });
    expect(narrowScope({ namespace: 'web' }, { readOnly: true, trust: 'reported' })).toEqual({ namespace: 'web', readOnly: true, trust: 'reported' });
  });

  it('read-only and namespace together: reads inside, no writes at all', async () => {
    const { owner, name, reg } = await setup();
    const writer = await connect(reg, name, { namespace: 'web' });
    const { memory } = await writer.remember('a clip');
    const reader = await connect(reg, name, { namespace: 'web', readOnly: true });
    expect((await reader.recall('a clip', { k: 3 })).map((h) => h.memory.id)).toEqual([memory.id]);
    await expectDenied(reader.remember('another clip'));
    await expectDenied(reader.forget(memory.id));
    expect((await owner.listRecent({ limit: 10 })).length).toBe(2);
  });
});
