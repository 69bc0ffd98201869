/**
 * Sync through a real CouchDB-protocol server (pouchdb-server on loopback): two stores (two
 * IndexedDB databases) converge after writes, edits, links, supersedes and forgets on both
 * sides; one concurrent edit converges on one winner with the loser in review; refused
 * credentials and missing access write nothing; a server killed mid-sync loses and duplicates
 * nothing once it is back; a remote written by another model is re-embedded here; live mode
 * carries a write across.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalMemory } from '../src/local.ts';
import type { Memory } from '../src/core/types.ts';
import { encodeVector } from '../src/core/sync/document.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore } from './helpers/store.ts';
import { ADMIN, request, startCouchServer, type CouchServer } from './helpers/couch-server.ts';

const ALICE = { username: 'alice', password: 'alice-pw' };
const BOB = { username: 'bob', password: 'bob-pw' };

let server: CouchServer;
let dbCounter = 0;

beforeAll(async () => {
  server = await startCouchServer();
  await server.userDatabase('bob-db', [BOB]);
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

/** A fresh database only Alice may use. */
const aliceDb = (): Promise<string> => server.userDatabase(`alice-${++dbCounter}`, [ALICE]);

const synced = (m: Memory): Omit<Memory, 'lastAccessed' | 'accessCount'> => {
  const { lastAccessed: _l, accessCount: _c, ...rest } = m;
  return rest;
};

/** Every memory of a store without access tracking, by id (superseded ones too). */
async function state(store: LocalMemory): Promise<Record<string, unknown>> {
  const all = await store.listRecent({ limit: 100_000, includeSuperseded: true, includeExpired: true });
  return Object.fromEntries(all.map((m) => [m.id, synced(m)]).sort(([a], [b]) => String(a).localeCompare(String(b))));
}

async function remoteCount(url: string): Promise<number> {
  const res = await request(url, 'GET', undefined, ADMIN);
  return (res.body as { doc_count: number }).doc_count;
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('sync through pouchdb-server', () => {
  it('two stores converge after writes, edits, links, supersedes and forgets on both sides', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const [x, y, z] = (await a.rememberMany(['the office moved to Lyon', 'deploys run on Fridays', 'the cat is called Miso'])).map((r) => r.memory);
      const [w] = (await b.rememberMany(['standup is at 9:30'])).map((r) => r.memory);
      const first = await a.sync({ url, auth: ALICE });
      expect(first).toMatchObject({ pushed: 3, applied: 0 });
      const fromA = await b.sync({ url, auth: ALICE });
      expect(fromA).toMatchObject({ pushed: 1, applied: 3 });
      await a.sync({ url, auth: ALICE });
      expect(await a.count()).toBe(4);
      expect(await state(a)).toEqual(await state(b));

      // Both sides change things, then meet again.
      await a.edit(x!.id, { text: 'the office moved to Lyon in March', tags: ['office'] });
      await a.link(x!.id, y!.id, 'related');
      await b.forget(z!.id);
      const newer = (await b.remember('standup is at 10:00')).memory;
      await b.supersede(w!.id, newer.id);
      await a.sync({ url, auth: ALICE });
      await b.sync({ url, auth: ALICE });
      await a.sync({ url, auth: ALICE });
      const sa = await state(a);
      expect(sa).toEqual(await state(b));
      expect(Object.keys(sa)).toHaveLength(4);
      expect(await a.get(z!.id)).toBeNull();
      expect((await a.get(w!.id))!.supersededBy).toBe(newer.id);
      expect((await b.get(x!.id))!.links).toEqual([{ to: y!.id, rel: 'related' }]);
      // Applied through the store's own writes: journaled as the remote, searchable, undoable.
      expect((await b.history(x!.id)).at(-1)).toMatchObject({ op: 'sync', actor: `sync:${url}` });
      expect((await b.recall('office Lyon March', { k: 1 }))[0]!.memory.id).toBe(x!.id);
      // Undoing the forget brings the memory back on both sides (a replica's own deletion is not applied again).
      const forgot = (await b.history(z!.id)).find((e) => e.op === 'forget')!;
      expect((await b.undo(forgot.seq)).ok).toBe(true);
      await b.sync({ url, auth: ALICE });
      await a.sync({ url, auth: ALICE });
      expect((await a.get(z!.id))?.text).toBe('the cat is called Miso');
      expect(await state(a)).toEqual(await state(b));
      expect(await remoteCount(url)).toBe(5);
      // Nothing pending; the status tells the story.
      const status = await b.syncStatus();
      expect(status).toMatchObject({ state: 'off', remote: url, pending: 0, error: null });
      expect(status.lastSyncAt).not.toBeNull();
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('a forget right after a first pull reaches the device that wrote the memory (repro-forget-after-pull)', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const [x] = (await a.rememberMany(['alpha one note', 'beta two note', 'gamma three note'])).map((r) => r.memory);
      await a.sync({ url, auth: ALICE });
      expect(await b.sync({ url, auth: ALICE })).toMatchObject({ pushed: 0, applied: 3 });
      expect(await b.forget(x!.id)).toBe(true);
      expect(await b.sync({ url, auth: ALICE })).toMatchObject({ pushed: 1 });
      expect(await a.sync({ url, auth: ALICE })).toMatchObject({ deleted: 1 });
      expect(await a.get(x!.id)).toBeNull();
      expect([await a.count(), await b.count()]).toEqual([2, 2]);
      // And it stays forgotten: another round each way brings nothing back.
      await a.sync({ url, auth: ALICE });
      await b.sync({ url, auth: ALICE });
      expect(await a.get(x!.id)).toBeNull();
      expect(await b.get(x!.id)).toBeNull();
      expect(await state(a)).toEqual(await state(b));
      // The server's tombstone keeps nothing of what was forgotten (CouchDB keeps tombstones for good).
      const tomb = await request(`${url}/m:${x!.id}?revs=true&open_revs=all`, 'GET', undefined, ADMIN);
      expect(JSON.stringify(tomb.body)).not.toContain('alpha one note');
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('three devices: a forget wins over an edit with fewer revisions standing on a losing branch, everywhere and on the server (repro-divergence, repro-forget-losing-leaf)', async () => {
    const url = await aliceDb();
    const [a, b, c] = [await openTestStore(), await openTestStore(), await openTestStore()];
    try {
      const x = (await a.remember('the original text of X')).memory.id;
      for (const d of [a, b, c]) await d.sync({ url, auth: ALICE });
      await a.edit(x, { text: 'X as A edited it offline' });
      await c.edit(x, { text: 'X as C edited it, once' });
      await c.sync({ url, auth: ALICE });
      await c.edit(x, { text: 'X as C edited it, twice' });
      await c.sync({ url, auth: ALICE });
      await c.forget(x);
      await c.sync({ url, auth: ALICE });
      // A's edit, made before the forget and pushed after it, is a live leaf CouchDB alone would
      // prefer to C's forget: it answered fewer revisions, so the forget holds.
      await a.sync({ url, auth: ALICE });
      await c.sync({ url, auth: ALICE });
      expect(await c.get(x)).toBeNull();
      for (let i = 0; i < 2; i++) for (const d of [a, b, c]) await d.sync({ url, auth: ALICE });
      const remote = await request(`${url}/m:${x}`, 'GET', undefined, ADMIN);
      expect(remote.status).toBe(404);
      expect([await a.get(x), await b.get(x), await c.get(x)]).toEqual([null, null, null]);
      expect(await state(a)).toEqual(await state(c));
      // An undo of a forget still survives the next round (the reason own deletions are skipped).
      const y = (await a.remember('Y, forgotten and brought back')).memory.id;
      await a.sync({ url, auth: ALICE });
      await a.forget(y);
      await a.sync({ url, auth: ALICE });
      const entry = (await a.journalTail(1)).at(-1);
      await a.undo(entry!.seq!);
      await a.sync({ url, auth: ALICE });
      expect(await a.get(y)).not.toBeNull();
      await b.sync({ url, auth: ALICE });
      expect(await b.get(y)).not.toBeNull();
    } finally {
      for (const d of [a, b, c]) await d.close();
    }
  }, 90_000);

  it('two devices add 60 tags each: the fold keeps 100 (a revision every device reads), both converge, the losing version waits in review (repro-tag-union)', async () => {
    const url = await aliceDb();
    const [a, b] = [await openTestStore(), await openTestStore()];
    try {
      const x = (await a.remember('memory that gets many tags', { tags: ['base'] })).memory;
      await a.sync({ url, auth: ALICE });
      await b.sync({ url, auth: ALICE });
      await a.edit(x.id, { tags: ['base', ...Array.from({ length: 60 }, (_, i) => `a${i}`)] });
      await b.edit(x.id, { tags: ['base', ...Array.from({ length: 60 }, (_, i) => `b${i}`)] });
      for (let i = 0; i < 4; i++) for (const d of [a, b]) await d.sync({ url, auth: ALICE });
      const [ta, tb] = [(await a.get(x.id))!.tags, (await b.get(x.id))!.tags];
      expect(ta).toEqual(tb);
      expect(ta).toHaveLength(100);
      expect((await a.syncStatus()).totals.unreadable + (await b.syncStatus()).totals.unreadable).toBe(0);
      const remote = await request(`${url}/m:${x.id}?conflicts=true`, 'GET', undefined, ADMIN);
      expect((remote.body as { memory: { tags: string[] }; _conflicts?: string[] }).memory.tags).toHaveLength(100);
      expect((remote.body as { _conflicts?: string[] })._conflicts ?? []).toEqual([]);
      // The version whose tags did not all fit is offered back on the device that made it.
      const waiting = [...(await a.listPendingConflicts()), ...(await b.listPendingConflicts())];
      expect(waiting).toHaveLength(1);
      expect(waiting[0]!.new!.tags.length).toBe(61);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('the same memory edited offline on both sides converges on one winner; the losing text waits in review', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      const m = (await a.remember('the backup runs at midnight')).memory;
      await a.sync({ url, auth: ALICE });
      await b.sync({ url, auth: ALICE });
      await a.edit(m.id, { text: 'the backup runs at 02:00', tags: ['ops'] });
      await b.edit(m.id, { text: 'the backup runs at 03:00', tags: ['backup'] });
      const rounds = [];
      for (const store of [a, b, a, b, a]) rounds.push(await store.sync({ url, auth: ALICE }));
      // Folded once, by the device whose edit lost.
      expect(rounds.reduce((n, r) => n + r.conflicts, 0)).toBe(1);
      const winA = (await a.get(m.id))!;
      const winB = (await b.get(m.id))!;
      expect(synced(winA)).toEqual(synced(winB));
      expect(['the backup runs at 02:00', 'the backup runs at 03:00']).toContain(winA.text);
      expect(winA.tags.sort()).toEqual(['backup', 'ops']);
      // The losing text is a version the person can restore from the review queue.
      const loserText = winA.text.endsWith('02:00') ? 'the backup runs at 03:00' : 'the backup runs at 02:00';
      const pending = [...(await a.listPendingConflicts()), ...(await b.listPendingConflicts())];
      const review = pending.find((p) => p.reason === 'sync_conflict');
      expect(review).toBeDefined();
      expect(review!.new!.text).toBe(loserText);
      expect(review!.old!.id).toBe(m.id);
      expect((await b.syncStatus()).conflictsWaiting + (await a.syncStatus()).conflictsWaiting).toBe(1);
      // The device whose edit lost holds the review; restoring it (supersede) replicates like any other write.
      const owner = (await a.listPendingConflicts()).length ? a : b;
      expect((await owner.get(m.id))!.text).toBe(winA.text);
      // Waiting in review, the losing edit is not a memory: not stored, counted, listed or recalled.
      expect(review!.held).toBe(true);
      expect(await owner.get(review!.new!.id)).toBeNull();
      expect(await owner.count()).toBe(1);
      expect((await owner.listRecent({ limit: 10 })).map((x) => x.id)).toEqual([m.id]);
      expect((await owner.recall(loserText, { k: 5 })).map((h) => h.memory.id)).toEqual([m.id]);
      const other = owner === a ? b : a;
      await owner.resolveConflict(review!.id, 'supersede');
      await owner.sync({ url, auth: ALICE });
      await other.sync({ url, auth: ALICE });
      expect((await other.get(m.id))!.supersededBy).toBe(review!.new!.id);
      expect((await other.get(review!.new!.id))!.text).toBe(loserText);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('refused credentials, no access, a bad address and an unreachable server: typed errors, nothing written', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    try {
      await a.rememberMany(['one', 'two']);
      expect(await code(a.sync({ url, auth: BOB }))).toBe('SYNC_AUTH');
      expect(await code(a.sync({ url, auth: { username: 'alice', password: 'wrong' } }))).toBe('SYNC_AUTH');
      expect(await code(a.sync({ url }))).toBe('SYNC_AUTH');
      expect(await remoteCount(url)).toBe(0);
      expect((await a.syncStatus()).state).toBe('failed');
      expect((await a.syncStatus()).error).toMatchObject({ code: 'SYNC_AUTH' });
      expect(await code(a.sync({ url: 'ftp://example.com/db' }))).toBe('INVALID_ARGUMENT');
      expect(await code(a.sync({ url: `http://alice:pw@127.0.0.1:${server.port}/x` }))).toBe('INVALID_ARGUMENT');
      expect(await code(a.sync({ url: `${server.url}/` }))).toBe('INVALID_ARGUMENT');
      expect(await code(a.sync({ url: `${server.url}/no-such-db`, auth: ADMIN }))).toBe('NOT_FOUND');
      expect(await code(a.sync({ url: 'http://127.0.0.1:9/nothing', retries: 1 }))).toBe('SYNC_UNREACHABLE');
      expect((await a.syncStatus()).error).toMatchObject({ code: 'SYNC_UNREACHABLE' });
      expect(await a.count()).toBe(2);
    } finally {
      await a.close();
    }
  }, 60_000);

  it('a server killed mid-sync: the next sync finishes, nothing duplicated or lost', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.rememberMany(Array.from({ length: 1500 }, (_, i) => `note number ${i} about topic ${i % 37}`));
      let killed = false;
      const first = a.sync({
        url,
        auth: ALICE,
        retries: 0,
        onProgress: (e) => {
          if (e.kind === 'sync' && e.phase === 'replicate' && e.done > 0 && !killed) {
            killed = true;
            void server.stop(true);
          }
        },
      });
      expect(await code(first)).toBe('SYNC_UNREACHABLE');
      expect(killed).toBe(true);
      await server.restart();
      expect(await remoteCount(url)).toBeLessThan(1500);
      const resumed = await a.sync({ url, auth: ALICE });
      expect(resumed.pushed).toBe(0); // the replica already held every memory: only replication was left
      expect(await remoteCount(url)).toBe(1500);
      const pulled = await b.sync({ url, auth: ALICE });
      expect(pulled.applied).toBe(1500);
      expect(await b.count()).toBe(1500);
      expect(await state(b)).toEqual(await state(a));
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('memories replicated by a device on another model are re-embedded here; the same model reuses the vector', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const same = await openTestStore();
    const other = await openTestStore({ embedder: createHashEmbedder({ dim: 64, id: 'another-model' }) });
    try {
      await a.rememberMany(['the printer is on floor 3', 'lunch is at noon']);
      await a.sync({ url, auth: ALICE });
      expect(await same.sync({ url, auth: ALICE })).toMatchObject({ applied: 2, reembedded: 0 });
      expect(await other.sync({ url, auth: ALICE })).toMatchObject({ applied: 2, reembedded: 2 });
      expect((await other.recall('printer floor', { k: 1 }))[0]!.memory.text).toBe('the printer is on floor 3');
      // Its own vectors stay here: the replicated documents keep the first model's (no flip-flop of revisions).
      expect(await other.sync({ url, auth: ALICE })).toMatchObject({ pushed: 0, sent: 0 });
      expect(await same.sync({ url, auth: ALICE })).toMatchObject({ applied: 0, reembedded: 0 });
    } finally {
      await a.close();
      await same.close();
      await other.close();
    }
  }, 60_000);

  it('a first pull is not paced by the graph: new memories are searchable at once (exact scan of the pending set) and join the HNSW graph after the round', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore({ index: 'hnsw' });
    try {
      const texts = Array.from({ length: 300 }, (_, i) => `note ${i} about the ${['printer', 'garden', 'invoice', 'boiler'][i % 4]} number ${i * 7}`);
      await a.rememberMany(texts);
      await a.sync({ url, auth: ALICE });
      const pendingDuringApply: Promise<number>[] = [];
      const onProgress = (e: { kind: string; phase?: string }): void => {
        if (e.kind === 'sync' && e.phase === 'apply') pendingDuringApply.push(b.stats().then((s) => s.index.pending));
      };
      expect(await b.sync({ url, auth: ALICE, onProgress })).toMatchObject({ applied: 300 });
      expect(Math.max(...(await Promise.all(pendingDuringApply)))).toBeGreaterThanOrEqual(256); // a page applied, none of it in the graph yet
      expect((await b.recall('the boiler number 217', { k: 1, mode: 'semantic' }))[0]!.memory.text).toBe(texts[31]);
      // A whole-store conflict scan (a search per memory) waits for the graph instead of scanning the pending set n times.
      await b.findConflicts({});
      expect((await b.stats()).index).toMatchObject({ kind: 'hnsw', pending: 0, size: 300 });
      expect((await b.recall('the boiler number 217', { k: 1, mode: 'semantic' }))[0]!.memory.text).toBe(texts[31]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('documents a remote holds are checked like an import row: what this version cannot read is skipped and counted, nothing half-written', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    try {
      const good = { kind: 'houkai-memory', v: 1, memory: { id: 'ok-1', text: 'a well-formed memory', type: 'semantic', tags: [], importance: 0.5, createdAt: 1_760_000_000, source: null, links: [] } };
      const docs = [
        { _id: 'm:ok-1', ...good },
        { _id: 'm:bad-type', ...good, memory: { ...good.memory, id: 'bad-type', type: 'gossip' } },
        { _id: 'm:bad-id', ...good },
        { _id: 'm:future', ...good, v: 99, memory: { ...good.memory, id: 'future' } },
        { _id: 'm:blank', ...good, memory: { ...good.memory, id: 'blank', text: '   ' } },
        { _id: 'm:bad-vector', ...good, memory: { ...good.memory, id: 'bad-vector' }, vector: { model: 'hash-128', dim: 128, f32: 'not base64!' } },
        { _id: 'not-a-memory', hello: 'world' },
      ];
      const put = await request(`${url}/_bulk_docs`, 'POST', { docs }, ALICE);
      expect(put.status).toBe(201);
      const result = await a.sync({ url, auth: ALICE });
      expect(result.applied).toBe(1);
      expect((await a.get('ok-1'))?.text).toBe('a well-formed memory');
      expect(await a.count()).toBe(1);
      // Five memory documents were refused one by one; the unrelated document is not a memory at all.
      expect((await a.syncStatus()).totals.unreadable).toBe(5);
      // Passed over once: the next round does not read them again.
      expect(await a.sync({ url, auth: ALICE })).toMatchObject({ applied: 0 });
      expect((await a.syncStatus()).totals.unreadable).toBe(0);
    } finally {
      await a.close();
    }
  }, 60_000);

  it('hostile documents with the store\'s own model: unusable vectors are re-embedded, bad ids, self-links, self-supersession and empty validity are refused, and the store always reopens (repro-bad-vector, repro-bad-vector-brick, sync-malicious)', async () => {
    const url = await aliceDb();
    const name = `hostile-${Date.now()}`;
    const embedder = createHashEmbedder();
    let a = await openTestStore({ name, embedder, index: 'hnsw' });
    try {
      const memory = (id: string, extra: Record<string, unknown> = {}) => ({ id, text: `the ${id} memory about deploys`, type: 'semantic', tags: [], importance: 0.5, createdAt: 1_760_000_000, source: null, links: [], ...extra });
      const vector = (fill: (i: number) => number) => ({ model: embedder.id, dim: embedder.dim, f32: encodeVector(Float32Array.from({ length: embedder.dim }, (_, i) => fill(i))) });
      const docs = [
        { _id: 'm:huge', kind: 'houkai-memory', v: 1, memory: memory('huge'), vector: vector(() => 3e38) },
        { _id: 'm:zero', kind: 'houkai-memory', v: 1, memory: memory('zero'), vector: vector(() => 0) },
        { _id: 'm:subnormal', kind: 'houkai-memory', v: 1, memory: memory('subnormal'), vector: vector(() => 1e-40) },
        { _id: 'm:self-link', kind: 'houkai-memory', v: 1, memory: memory('self-link', { links: [{ to: 'self-link', rel: 'related' }] }) },
        { _id: 'm:self-superseded', kind: 'houkai-memory', v: 1, memory: memory('self-superseded', { supersededBy: 'self-superseded', supersededAt: 1_760_000_001 }) },
        { _id: 'm:empty-validity', kind: 'houkai-memory', v: 1, memory: memory('empty-validity', { validFrom: 1_760_000_100, validUntil: 1_760_000_000 }) },
        { _id: 'm:ctl\u0001id', kind: 'houkai-memory', v: 1, memory: memory('ctl\u0001id') },
        { _id: `m:${'x'.repeat(200_000)}`, kind: 'houkai-memory', v: 1, memory: memory('x'.repeat(200_000)) },
      ];
      expect((await request(`${url}/_bulk_docs`, 'POST', { docs }, ALICE)).status).toBe(201);
      const result = await a.sync({ url, auth: ALICE });
      expect(result).toMatchObject({ applied: 3, reembedded: 3 });
      expect((await a.syncStatus()).totals.unreadable).toBe(5);
      // Every applied memory has its index entry: each is found by meaning.
      for (const id of ['huge', 'zero', 'subnormal']) {
        const [hit] = await a.recall(`the ${id} memory about deploys`, { k: 1, mode: 'semantic', touch: false });
        expect(hit!.memory.id).toBe(id);
      }
      await a.close();
      for (const index of ['hnsw', 'hnsw-i8', 'exact'] as const) {
        a = await openTestStore({ name, embedder, index });
        expect(await a.count()).toBe(3);
        await a.close();
      }
      a = await openTestStore({ name, embedder, index: 'hnsw' });
    } finally {
      await a.close();
    }
  }, 60_000);

  it('a JWT goes to the server as a bearer token (CouchDB jwt_auth), never as basic auth', async () => {
    const seen: (string | undefined)[] = [];
    const http = await import('node:http');
    const fake = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized', reason: 'token expired' }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const a = await openTestStore();
    try {
      const port = (fake.address() as { port: number }).port;
      expect(await code(a.sync({ url: `http://127.0.0.1:${port}/team`, auth: { token: 'header.payload.signature' } }))).toBe('SYNC_AUTH');
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer header.payload.signature']));
    } finally {
      await a.close();
      fake.close();
    }
  }, 30_000);

  it('namespaces: only memories tagged with a synced namespace are sent and taken in', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.remember('the work laptop is a ThinkPad', { tags: ['ns:work'] });
      await a.remember('the house keys are in the blue bowl', { tags: ['ns:home'] });
      await a.remember('no namespace at all');
      expect(await a.sync({ url, auth: ALICE, namespaces: ['work'] })).toMatchObject({ pushed: 1 });
      expect(await remoteCount(url)).toBe(1);
      await b.sync({ url, auth: ALICE });
      await b.remember('the work VPN is WireGuard', { tags: ['ns:work'] });
      await b.remember('the cat eats at six', { tags: ['ns:home'] });
      await b.sync({ url, auth: ALICE });
      expect(await a.sync({ url, auth: ALICE, namespaces: ['work'] })).toMatchObject({ applied: 1 });
      expect((await a.listRecent({ limit: 10 })).map((m) => m.text).sort()).toEqual([
        'no namespace at all', 'the house keys are in the blue bowl', 'the work VPN is WireGuard', 'the work laptop is a ThinkPad',
      ]);
      // Widening to the whole store later sends and takes in the rest (compared once, nothing duplicated).
      expect(await a.sync({ url, auth: ALICE })).toMatchObject({ pushed: 2, applied: 1 });
      expect(await remoteCount(url)).toBe(5);
      expect(await code(a.sync({ url, auth: ALICE, namespaces: ['not a name!'] }))).toBe('INVALID_ARGUMENT');
      expect(await code(a.sync({ url, auth: ALICE, namespaces: [] }))).toBe('INVALID_ARGUMENT');
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  it('namespaces keep what is outside them: no remote tombstone or same-id document reaches it, a whole-store device\'s forget of it stays away, a forget made before a namespace change is still sent (sync-namespaces)', async () => {
    const url = await aliceDb();
    const w = await openTestStore();
    const f = await openTestStore();
    try {
      const work = (await w.remember('work: the release train leaves on Tuesday', { tags: ['ns:work'] })).memory;
      const personal = (await w.remember('personal: my dentist appointment is on Friday', { tags: ['ns:personal'] })).memory;
      const plain = (await w.remember('untagged: the cat likes tuna')).memory;
      await w.sync({ url, auth: ALICE, namespaces: ['work'] });
      // Crafted on the server: a tombstone of the untagged memory's id, an ns:work document with the personal memory's id.
      const doc = (id: string, text: string, tags: string[]) => ({ _id: `m:${id}`, kind: 'houkai-memory', v: 1, memory: { id, text, type: 'semantic', tags, importance: 0.5, createdAt: 1_760_000_000, source: null, links: [] } });
      const made = (await request(`${url}/_bulk_docs`, 'POST', { docs: [doc(plain.id, 'to be deleted', [])] }, ALICE)).body as { rev: string }[];
      await request(`${url}/m:${plain.id}?rev=${made[0]!.rev}`, 'DELETE', undefined, ALICE);
      await request(`${url}/_bulk_docs`, 'POST', { docs: [doc(personal.id, 'REMOTE overwrite, tagged ns:work', ['ns:work']), doc('legit', 'a remote work memory', ['ns:work'])] }, ALICE);
      await w.sync({ url, auth: ALICE, namespaces: ['work'] });
      expect((await w.get(personal.id))!.text).toBe(personal.text);
      expect(await w.get(plain.id)).not.toBeNull();
      expect(await w.get('legit')).not.toBeNull();

      // A whole-store device forgets the personal memory: the namespaced device keeps its copy.
      const url2 = await aliceDb();
      const mine = (await f.remember('personal: passport number is in the drawer', { tags: ['ns:personal'] })).memory;
      const shared = (await f.remember('work: standup at 9:30', { tags: ['ns:work'] })).memory;
      await f.sync({ url: url2, auth: ALICE });
      await w.sync({ url: url2, auth: ALICE });
      await w.sync({ url: url2, auth: ALICE, namespaces: ['work'] });
      await f.forget(mine.id);
      await f.edit(shared.id, { text: 'work: standup moved to 10:00' });
      await f.sync({ url: url2, auth: ALICE });
      await w.sync({ url: url2, auth: ALICE, namespaces: ['work'] });
      expect(await w.get(mine.id)).not.toBeNull();
      expect((await w.get(shared.id))!.text).toBe('work: standup moved to 10:00');

      // A forget on the namespaced device, then a sync with another namespace set: still sent.
      await w.forget(shared.id);
      await w.sync({ url: url2, auth: ALICE, namespaces: ['work', 'personal'] });
      await f.sync({ url: url2, auth: ALICE });
      expect(await f.get(shared.id)).toBeNull();
      expect(work.id).toBeTruthy();
    } finally {
      await w.close();
      await f.close();
    }
  }, 90_000);

  it('live mode carries a write across within seconds and stops on stopSync', async () => {
    const url = await aliceDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.sync({ url, auth: ALICE, live: true });
      await b.sync({ url, auth: ALICE, live: true });
      expect((await a.syncStatus()).live).toBe(true);
      const m = (await a.remember('the wifi password changed')).memory;
      const deadline = Date.now() + 15_000;
      while (!(await b.get(m.id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((await b.get(m.id))?.text).toBe('the wifi password changed');
      const heard: string[] = [];
      a.watch((op, ids) => void (op === 'sync' && heard.push(...ids)));
      await b.edit(m.id, { tags: ['wifi'] });
      const back = Date.now() + 15_000;
      while ((await a.get(m.id))?.tags[0] !== 'wifi' && Date.now() < back) await new Promise((r) => setTimeout(r, 50));
      expect((await a.get(m.id))!.tags).toEqual(['wifi']);
      // The background round announced what it changed (the worker turns this into change events):
      // the announcement follows the round's write, so it may come a moment after the tag shows.
      while (!heard.includes(m.id) && Date.now() < back) await new Promise((r) => setTimeout(r, 50));
      expect(heard).toContain(m.id);
      expect(await a.stopSync()).toEqual({ stopped: true });
      expect((await a.syncStatus()).state).toBe('off');
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
