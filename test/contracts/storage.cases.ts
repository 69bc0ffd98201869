/**
 * The `MemoryStorage` contract, written once and run against every implementation: in Node by
 * test/storage.contract.test.ts (Dexie over fake-indexeddb, the in-memory storage, SQLite through
 * better-sqlite3) and in Chromium by e2e/contracts.spec.ts (Dexie over the real IndexedDB, SQLite
 * on OPFS). Two halves:
 * - the port itself: labels and generations, tombstones, keyset paging, lexical statistics and
 *   candidates, journal reads and compaction, trash, imports with their leases and rollback, the
 *   refusals (BUSY, lease lost, NOT_FOUND), all-or-nothing writes;
 * - the store over it: one scripted life of a store (remember, recall in every mode, edit, links,
 *   supersede and restore, conflicts, forget and undo, trash, import and rollback, reindex,
 *   journal compaction, time travel) must give the same answers on each.
 */
import { MemoryError } from '../../src/core/errors.ts';
import { roundToHalf } from '../../src/core/domain/half-float.ts';
import { lexicalTerms } from '../../src/core/domain/tokenize.ts';
import type { JournalContext, MemoryStorage } from '../../src/core/ports.ts';
import { memoryStorages } from '../../src/adapters/storage-memory.ts';
import { createMemory, type LocalMemory } from '../../src/local.ts';
import { archiveBytes, headerFor, row } from '../helpers/archive.ts';
import { createHashEmbedder } from '../helpers/fake-embedder.ts';
import { makeMemory, NOW } from '../helpers/memory.ts';
import { manualClock, uniqueName } from '../helpers/names.ts';
import type { TestApi } from './api.ts';

export interface StorageCase {
  name: string;
  open: () => Promise<MemoryStorage>;
}

const DIM = 8;
export const META = { schemaVersion: 10, embedderId: 'test-embedder', dim: DIM, generation: 0, nextLabel: 0, createdAt: NOW };

/**
 * `backends`: the storages the port half runs on; `lifeStorages`: the storage factories (a store's
 * name → its storage) the scripted life runs on, the first the reference the others must match.
 */
export function storageContract({ describe, it, expect }: TestApi, backends: readonly StorageCase[], lifeStorages: readonly ((name: string) => MemoryStorage | Promise<MemoryStorage>)[]): void {
  /** A test vector whose values binary16 holds exactly (storage keeps vectors at that precision). */
  function vec(seed: number): Float32Array {
    return roundToHalf(Float32Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7 + i)));
  }

  let groups = 0;
  function ctx(op = 'remember', ts = NOW): JournalContext {
    groups += 1;
    return { ts, op, actor: 'lib', group: `g${groups}`, meta: {} };
  }

  async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe(code);
  }

  async function opened(open: () => Promise<MemoryStorage>): Promise<MemoryStorage> {
    const storage = await open();
    await storage.initMeta(META);
    return storage;
  }

  for (const { name, open } of backends) {
    describe(`MemoryStorage contract: ${name}`, () => {
      it('keeps vectors at binary16 precision, and every read and index delta hands back the same values', async () => {
        const s = await opened(open);
        const precise = Float32Array.from({ length: DIM }, (_, i) => 0.1 + i / 3);
        const { labels, added } = await s.insert([makeMemory('a', 'precise')], [precise], ctx());
        const stored = roundToHalf(precise);
        expect(Array.from(stored)).not.toEqual(Array.from(precise));
        expect(Array.from(added[0]!.vector)).toEqual(Array.from(stored));
        expect(Array.from((await s.vectorsOf(labels)).get(labels[0]!)!)).toEqual(Array.from(stored));
        const scanned: Float32Array[] = [];
        await s.scanVectors((_, vectors) => void scanned.push(...vectors));
        expect(Array.from(scanned[0]!)).toEqual(Array.from(stored));
        for await (const page of s.pagesByCreated()) expect(Array.from(page[0]!.vector!)).toEqual(Array.from(stored));
        const replaced = await s.replace((await s.get('a'))!, { ...(await s.get('a'))!, text: 'precise again' }, vec(9), ctx('edit'));
        expect(Array.from(replaced!.added[0]!.vector)).toEqual(Array.from(vec(9)));
        s.close();
      });

      it('keeps the first metadata row; inserts allocate labels and bump the generation, with journal entries', async () => {
        const s = await open();
        expect(await s.readMeta()).toBeUndefined();
        expect(await s.initMeta(META)).toEqual(META);
        expect(await s.initMeta({ ...META, embedderId: 'other' })).toEqual(META);
        const a = makeMemory('a', 'Deploys go through the staging cluster first');
        const b = makeMemory('b', 'The staging cluster is deploy-stg-2', { createdAt: NOW + 1 });
        const { labels, generation, added, removedLabels } = await s.insert([a, b], [vec(1), vec(2)], ctx());
        expect(labels).toEqual([0, 1]);
        // Every write answers with its index delta.
        expect(added.map((x) => [x.label, [...x.vector]])).toEqual([
          [0, [...vec(1)]],
          [1, [...vec(2)]],
        ]);
        expect(removedLabels).toEqual([]);
        expect(generation).toBe(1);
        expect(await s.readMeta()).toMatchObject({ generation: 1, nextLabel: 2, lexicalDocs: 2 });
        expect(await s.count()).toBe(2);
        expect(await s.get('a')).toEqual(a);
        expect([...(await s.getByLabels([1, 0, 7])).keys()]).toEqual([1, 0]);
        expect(await s.labelsOf(['b', 'zz'])).toEqual([1, undefined]);
        expect(await s.exists(['a', 'zz'])).toEqual([true, false]);
        expect(await s.textsOf(['b'])).toEqual([b.text]);
        expect([...(await s.vectorsOf([0])).get(0)!]).toEqual([...vec(1)]);
        const journal = await s.journalRead({});
        expect(journal.map((e) => [e.op, e.id, e.before, e.after?.id])).toEqual([
          ['remember', 'a', null, 'a'],
          ['remember', 'b', null, 'b'],
        ]);
        // A duplicate id is refused whole.
        await expect(s.insert([makeMemory('c', 'new'), makeMemory('a', 'again')], [vec(3), vec(4)], ctx())).rejects.toBeInstanceOf(MemoryError);
        expect(await s.count()).toBe(2);
        expect(await s.exists(['c'])).toEqual([false]);
        s.close();
      });

      it('a returned memory is a copy: changing it changes nothing stored', async () => {
        const s = await opened(open);
        await s.insert([makeMemory('a', 'original text')], [vec(1)], ctx());
        const got = (await s.get('a'))!;
        got.tags.push('mutated');
        expect((await s.get('a'))!.tags).toEqual([]);
      });

      it('replace checks the expected state, moves the label when the vector changes, and tombstones the old one', async () => {
        const s = await opened(open);
        const a = makeMemory('a', 'We lint with ESLint');
        await s.insert([a], [vec(1)], ctx());
        expect(await s.replace({ ...a, text: 'stale' }, { ...a, text: 'x' }, vec(2), ctx('edit'))).toBeNull();
        const tagged = { ...a, tags: ['tools'] };
        expect(await s.replace(a, tagged, undefined, ctx('edit'))).toEqual({ label: 0, added: [], removedLabels: [], generation: 1 });
        const next = { ...tagged, text: 'We lint with Biome' };
        expect(await s.replace(tagged, next, vec(3), ctx('edit'))).toEqual({ label: 1, removedLabel: 0, added: [{ label: 1, vector: vec(3) }], removedLabels: [0], generation: 2 });
        expect(await s.tombstonesAfter(1)).toEqual([0]);
        expect(await s.vectorsOf([0, 1])).toEqual(new Map([[1, vec(3)]]));
        expect((await s.lexicalCandidates(lexicalTerms('biome'), 10)).candidates.map((c) => c.memory.id)).toEqual(['a']);
        expect((await s.lexicalCandidates(lexicalTerms('eslint'), 10)).candidates).toEqual([]);
        await s.pruneTombstones(2);
        expect(await s.tombstonesAfter(0)).toEqual([]);
      });

      it('remove, touch, counts, aggregates and expiry', async () => {
        const s = await opened(open);
        await s.insert(
          [
            makeMemory('a', 'alpha one', { tags: ['x', 'y'], type: 'episodic', createdAt: NOW }),
            makeMemory('b', 'beta two', { tags: ['x'], supersededBy: 'c', createdAt: NOW + 10 }),
            makeMemory('c', 'gamma three', { tags: ['y'], expiresAt: NOW + 5, createdAt: NOW + 20 }),
          ],
          [vec(1), vec(2), vec(3)],
          ctx(),
        );
        expect(await s.counts()).toMatchObject({ total: 3, superseded: 1, byType: { episodic: 1, semantic: 2 } });
        const agg = await s.aggregate({ includeSuperseded: false, createdEdges: [NOW, NOW + 15, NOW + 30] });
        expect([...agg.tagCounts]).toEqual([
          ['x', 1],
          ['y', 2],
        ]);
        expect(agg.created).toEqual([1, 1]);
        expect(agg.counted).toBe(2);
        expect(await s.countExpired(NOW + 6)).toBe(1);
        const touched = await s.touch(['a', 'missing'], NOW + 100);
        expect(touched.map((m) => [m.id, m.lastAccessed, m.accessCount])).toEqual([['a', NOW + 100, 1]]);
        const removed = await s.remove('a', ctx('forget'));
        expect(removed).toMatchObject({ label: 0, memory: { id: 'a', accessCount: 1 }, added: [], removedLabels: [0] });
        expect(await s.remove('a', ctx('forget'))).toBeUndefined();
        expect(await s.readMeta()).toMatchObject({ lexicalDocs: 2 });
        expect(await s.durabilitySnapshot()).toMatchObject({ count: 2, booked: 2, importPending: false });
      });

      it('lists newest first with a keyset cursor that never skips rows sharing a time', async () => {
        const s = await opened(open);
        const at = [NOW, NOW + 1, NOW + 1, NOW + 1, NOW + 2];
        await s.insert(
          at.map((t, i) => makeMemory(`m${i}`, `memory ${i}`, { createdAt: t })),
          at.map((_, i) => vec(i)),
          ctx(),
        );
        const first = await s.list({ limit: 2, includeSuperseded: true, includeExpired: true, now: NOW });
        expect(first.map((m) => m.id)).toEqual(['m4', 'm3']);
        const last = first[first.length - 1]!;
        const next = await s.list({ limit: 10, before: last.createdAt, beforeId: last.id, includeSuperseded: true, includeExpired: true, now: NOW });
        expect(next.map((m) => m.id)).toEqual(['m2', 'm1', 'm0']);
        expect((await s.list({ limit: 10, before: NOW + 1, includeSuperseded: true, includeExpired: true, now: NOW })).map((m) => m.id)).toEqual(['m0']);
        const pages: string[][] = [];
        for await (const page of s.pagesByCreated(2)) pages.push(page.map((p) => p.memory.id));
        expect(pages).toEqual([['m0', 'm1'], ['m2', 'm3'], ['m4']]);
      });

      it('lists memories created at one time in write order, and a cursor memory gone between pages skips none', async () => {
        const s = await opened(open);
        // Ids that sort against the write order: ties follow the write order, not the id.
        await s.insert(['z', 'y', 'x', 'w'].map((id) => makeMemory(id, `memory ${id}`, { createdAt: NOW })), [vec(1), vec(2), vec(3), vec(4)], ctx());
        const all = { includeSuperseded: true, includeExpired: true, now: NOW };
        const first = await s.list({ limit: 2, ...all });
        expect(first.map((m) => m.id)).toEqual(['w', 'x']);
        expect((await s.list({ limit: 10, before: NOW, beforeId: 'x', ...all })).map((m) => m.id)).toEqual(['y', 'z']);
        await s.remove('x', ctx('forget'));
        // Its place among the ties is unknown now: every memory of that time comes again.
        expect((await s.list({ limit: 10, before: NOW, beforeId: 'x', ...all })).map((m) => m.id)).toEqual(['w', 'y', 'z']);
      });

      it('scans vectors in label order, all or after a generation', async () => {
        const s = await opened(open);
        await s.insert([makeMemory('a', 'a'), makeMemory('b', 'b')], [vec(1), vec(2)], ctx());
        await s.insert([makeMemory('c', 'c')], [vec(3)], ctx());
        const seen: number[][] = [];
        await s.scanVectors((labels) => void seen.push(labels), { batchSize: 2 });
        expect(seen).toEqual([[0, 1], [2]]);
        const after: number[] = [];
        await s.scanVectors((labels) => void after.push(...labels), { afterGeneration: 1 });
        expect(after).toEqual([2]);
        expect(await s.vectorCount()).toBe(3);
      });

      it('lexical statistics and candidates: rarest terms nominate, stored term counts come along', async () => {
        const s = await opened(open);
        await s.insert(
          [makeMemory('a', 'the staging cluster is deploy-stg-2'), makeMemory('b', 'production cluster'), makeMemory('c', 'nothing in common')],
          [vec(1), vec(2), vec(3)],
          ctx(),
        );
        const stats = await s.lexicalStats();
        expect(stats.documents).toBe(3);
        const { candidates, documentFrequencies } = await s.lexicalCandidates(lexicalTerms('cluster staging absent'), 5);
        expect(candidates.map((c) => c.memory.id)).toEqual(['a', 'b']);
        expect(documentFrequencies.get('cluster')).toBe(2);
        expect(documentFrequencies.get('absent')).toBe(0);
        const terms = await s.lexicalTermsOf([candidates[0]!.label]);
        expect(terms.get(candidates[0]!.label)!.terms).toEqual(expect.arrayContaining(lexicalTerms('staging cluster')));
        expect(await s.hasPositivePolarity()).toBe(false);
      });

      it('graph changes: puts keep labels, forgets tombstone, conflicts are stored; a missing id changes nothing', async () => {
        const s = await opened(open);
        const a = makeMemory('a', 'alpha');
        const b = makeMemory('b', 'beta');
        await s.insert([a, b], [vec(1), vec(2)], ctx());
        await expectCode(s.applyGraphChanges({ put: [{ ...a, links: [{ to: 'b', rel: 'related' }] }, makeMemory('zz', 'none')] }, ctx('link')), 'NOT_FOUND');
        expect((await s.get('a'))!.links).toEqual([]);
        await expectCode(s.applyGraphChanges({ put: [{ ...a, text: 'changed' }] }, ctx('link')), 'INVALID_ARGUMENT');
        const conflict = { id: 'k1', newId: 'b', oldId: 'a', kind: 'contradiction', status: 'pending', createdAt: NOW, cosine: 0.9 } as never;
        await s.applyGraphChanges({ put: [{ ...a, links: [{ to: 'b', rel: 'related' }] }], pinMoved: { a: true }, conflicts: [conflict] }, ctx('link'));
        expect(await s.incoming('b')).toEqual([{ from: 'a', rel: 'related' }]);
        // The optional batched read agrees with incoming, where a backend offers it.
        if (s.incomingMany) {
          const many = await s.incomingMany(['b', 'a', 'nobody']);
          expect(many.get('b')).toEqual(await s.incoming('b'));
          expect(many.get('a') ?? []).toEqual(await s.incoming('a'));
          expect(many.get('nobody') ?? []).toEqual([]);
        }
        expect(await s.pinMoved('a')).toBe(true);
        expect((await s.listConflicts('pending')).map((c) => c.id)).toEqual(['k1']);
        expect(await s.getConflict('k1')).toMatchObject({ oldId: 'a' });
        const delta = await s.applyGraphChanges({ forget: ['b'] }, ctx('forget'));
        expect(delta.removedLabels).toEqual([1]);
        expect(await s.exists(['b'])).toEqual([false]);
        expect((await s.journalRead({ id: 'b' })).map((e) => e.op)).toEqual(['remember', 'forget']);
      });

      it('trash: moved with the vector, listed, restored whole, purged', async () => {
        const s = await opened(open);
        await s.insert([makeMemory('a', 'alpha'), makeMemory('b', 'beta')], [vec(1), vec(2)], ctx());
        const delta = await s.moveToTrash(['a', 'missing'], ctx('trash', NOW + 5));
        expect(delta.removedLabels).toEqual([0]);
        expect((await s.listTrash()).map((t) => [t.id, t.deletedAt])).toEqual([['a', NOW + 5]]);
        expect([...(await s.trashVectors(['a'])).keys()]).toEqual(['a']);
        const restored = await s.restoreFromTrash('a', ctx('restore'));
        expect(restored).toMatchObject({ memory: { id: 'a' }, delta: { added: [{ label: 2 }] } });
        expect(await s.listTrash()).toEqual([]);
        expect(await s.restoreFromTrash('a', ctx('restore'))).toBeNull();
        await s.moveToTrash(['a'], ctx('trash', NOW + 10));
        await s.moveToTrash(['b'], ctx('trash', NOW + 20));
        expect(await s.purgeTrash({ before: NOW + 15 })).toBe(1);
        expect(await s.purgeTrash({})).toBe(1);
      });

      it('imports: a lease, an undo log, BUSY for other writers, rollback puts everything back', async () => {
        const s = await opened(open);
        const a = makeMemory('a', 'the original a');
        await s.insert([a], [vec(1)], ctx());
        await expectCode(s.importBatch('imp', [{ memory: makeMemory('x', 'x'), vector: vec(9) }], ctx('import')), 'ABORTED');
        await s.beginImport({ importId: 'imp', owner: 'me', startedAt: NOW, heartbeatAt: NOW, ttl: 30, lock: null });
        const delta = await s.importBatch(
          'imp',
          [
            { memory: makeMemory('x', 'imported x'), vector: vec(5) },
            { memory: makeMemory('a', 'imported over a'), vector: vec(6) },
            { memory: makeMemory('x', 'x again'), vector: vec(7) },
          ],
          { ...ctx('import'), group: 'imp' },
        );
        expect(delta.added.map((d) => d.label)).toEqual([2, 3]);
        expect(delta.removedLabels.sort()).toEqual([0, 1]);
        expect((await s.get('x'))!.text).toBe('x again');
        expect((await s.get('a'))!.text).toBe('imported over a');
        await expectCode(s.remove('a', ctx('forget')), 'BUSY');
        await expectCode(s.commitStaged('other', DIM, ctx('reindex')), 'BUSY');
        expect(await s.renewImport('imp', NOW + 10)).toBe(true);
        expect((await s.pendingImports()).map((p) => [p.importId, p.lease?.heartbeatAt])).toEqual([['imp', NOW + 10]]);
        expect((await s.durabilitySnapshot()).importPending).toBe(true);
        const back = await s.rollbackImport('imp');
        expect(back.added.map((d) => [...d.vector])).toEqual([[...vec(1)]]);
        expect(await s.get('x')).toBeUndefined();
        expect(await s.get('a')).toEqual(a);
        expect(await s.journalRead({ group: 'imp' })).toEqual([]);
        expect(await s.pendingImports()).toEqual([]);
        expect(await s.renewImport('imp', NOW + 20)).toBe(false);
        await expectCode(s.finishImport('imp'), 'ABORTED');
        expect(await s.readMeta()).toMatchObject({ lexicalDocs: 1 });
      });

      it('staged vectors replace every vector at once, or nothing when one is missing', async () => {
        const s = await opened(open);
        const a = makeMemory('a', 'alpha', { contentHash: 'ha' });
        const b = makeMemory('b', 'beta', { contentHash: 'hb' });
        await s.insert([a, b], [vec(1), vec(2)], ctx());
        await s.stageVectors([{ id: 'a', contentHash: 'ha', vector: vec(11) }], 'next');
        expect(await s.stagedIds('next')).toEqual(new Map([['a', 'ha']]));
        await expectCode(s.commitStaged('next', DIM, ctx('reindex')), 'EMBEDDER_MISMATCH');
        expect(await s.readMeta()).toMatchObject({ embedderId: 'test-embedder' });
        await s.stageVectors([{ id: 'b', contentHash: 'hb', vector: vec(12) }], 'next');
        const { generation } = await s.commitStaged('next', DIM, ctx('reindex'));
        expect(await s.readMeta()).toMatchObject({ embedderId: 'next', generation, nextLabel: 4 });
        expect(await s.labelsOf(['a', 'b'])).toEqual([2, 3]);
        expect([...(await s.vectorsOf([2])).get(2)!]).toEqual([...vec(11)]);
        expect(await s.stagedIds('next')).toEqual(new Map());
        expect((await s.ids()).map((i) => i.id)).toEqual(['a', 'b']);
      });

      it('journal: reads by every key, keys newest first, compaction keeps calls whole and records a horizon', async () => {
        const s = await opened(open);
        for (let i = 0; i < 6; i++) await s.insert([makeMemory(`m${i}`, `text ${i}`)], [vec(i)], ctx('remember', NOW + i * 100));
        const call = { ...ctx('tag', NOW + 150), group: 'shared' };
        await s.journalAppend(call, [{ id: 'm0', before: null, after: null }]);
        await s.journalAppend({ ...call, ts: NOW + 700 }, [{ id: 'm1', before: null, after: null }]);
        expect((await s.journalRead({ newest: 2 })).map((e) => e.id)).toEqual(['m0', 'm1']);
        expect((await s.journalRead({ untilTs: NOW + 100 })).length).toBe(2);
        expect((await s.journalRead({ afterTs: NOW + 400 })).map((e) => e.id)).toEqual(['m5', 'm1']);
        expect(await s.journalKeys({ group: 'shared' })).toEqual([8, 7]);
        expect(await s.journalKeys({ belowSeq: 5, limit: 2 })).toEqual([4, 3]);
        expect((await s.journalAfter(5, 2)).map((e) => [e.seq, e.id])).toEqual([[6, 'm5'], [7, 'm0']]);
        expect((await s.journalAfter(8, 10)).length).toBe(0);
        expect(await s.journalHorizon()).toBeNull();
        const result = await s.journalCompact({ olderThanTs: NOW + 350, keepLast: 2 }, ctx('compact', NOW + 800));
        // Entries 1–4 are old; entry 7 belongs to a call with an entry (8) that stays.
        expect(result.removed).toBe(4);
        expect(result.horizon).toMatchObject({ ts: NOW + 300, seq: 5, compactedAt: NOW + 800 });
        expect((await s.journalRead({})).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
        expect((await s.journalRead({ newest: 1 }))[0]).toMatchObject({ op: 'compact', meta: { removed: 4 } });
        expect(await s.journalHorizon()).toEqual(result.horizon);
      });

      it('settings and the canary', async () => {
        const s = await opened(open);
        expect(await s.getSetting('maintenance')).toBeUndefined();
        await s.putSetting('maintenance', { decay: 5 });
        expect(await s.getSetting('maintenance')).toEqual({ decay: 5 });
        expect(await s.plantCanary('c1')).toBe('c1');
        expect(await s.plantCanary('c2')).toBe('c1');
        expect((await s.durabilitySnapshot()).canary).toBe('c1');
      });
    });
  }

  /** One scripted life of a store: every answer it gives, as plain data. */
  async function life(memory: LocalMemory, clock: ReturnType<typeof manualClock>): Promise<unknown[]> {
    const out: unknown[] = [];
    const note = (label: string, value: unknown): void => void out.push([label, JSON.parse(JSON.stringify(value))]);
    const ids = (hits: { memory: { id: string } }[]): string[] => hits.map((h) => h.memory.id);
    // The first durability check (behind the open) draws an id for the canary: let it finish first.
    note('durability', (await memory.durability()).canary !== null);
    const a = await memory.remember('We lint with ESLint and format with Prettier', { type: 'procedural', tags: ['tools'] });
    clock.advance(60);
    const batch = await memory.rememberMany(['The staging cluster is deploy-stg-2', 'Team office moved to Leopoldstraße 8, München.', 'Use npm, not pnpm or yarn', 'PR #441 fixed the flaky upload test']);
    clock.advance(60);
    const conflict = await memory.remember('Use pnpm, not npm or yarn', { onConflict: 'review' } as never);
    note('remember', [a.memory.id, batch.map((r) => r.memory.id), conflict]);
    for (const [query, options] of [
      ['which linter do we use?', {}],
      ['where is the office', { mode: 'hybrid' }],
      ['PR #441', { mode: 'hybrid', lexicalIndex: 'corpus' }],
      ['package manager', { mode: 'hybrid', fusion: 'rrf', explain: true }],
    ] as const) {
      const hits = await memory.recall(query, { ...options, touch: false });
      note(`recall ${query}`, hits.map((h) => [h.memory.id, h.score, h.confidence ?? null]));
    }
    note('pack', await memory.recallPack('tools we use', { tokenBudget: 60 }));
    await memory.link(a.memory.id, batch[0]!.memory.id, 'related');
    note('neighbors', await memory.neighbors(a.memory.id));
    clock.advance(60);
    const edited = await memory.edit(batch[1]!.memory.id, { text: 'Team office is at Leopoldstraße 8, München.' });
    note('edit', edited);
    note('conflicts', (await memory.listPendingConflicts()).map((c) => [c.newId, c.oldId, c.kind]));
    const pending = await memory.listPendingConflicts();
    if (pending[0]) note('resolve', await memory.resolveConflict(pending[0].id, 'supersede'));
    note('forget', await memory.forget(batch[3]!.memory.id));
    note('undo', await memory.undo());
    clock.advance(60);
    note('prune', await memory.prune({ dryRun: false, minScore: 0.99 } as never));
    note('trash', (await memory.trashList()).map((t) => t.id));
    const archive = archiveBytes(
      [row('imp-1', 'Backups run nightly at 02:00'), row('imp-2', 'The CEO is Anna'), row(a.memory.id, 'We lint with Biome now')],
      headerFor(memory.embedder),
    );
    note('import', await memory.importArchive(new Blob([archive as BlobPart]), { onConflict: 'overwrite' }));
    note('after import', ids(await memory.recall('backups', { touch: false })));
    note('undo import', await memory.undo());
    note('journal', (await memory.journalCalls(50)).map((c) => [c.op, c.memories, c.undoable]));
    note('state', (await memory.stateAt(clock.now() - 100)).map((m) => m.id));
    note('compact', await memory.compactJournal({ keepDays: 0, keepLast: 3 }));
    note('count', [await memory.count(), (await memory.stats()).active, await memory.aggregate({ topTags: 5 })]);
    note('health', (await memory.health()).counts);
    note('list', (await memory.listRecent({ limit: 20, includeSuperseded: true })).map((m) => [m.id, m.text, m.supersededBy]));
    return out;
  }

  describe('the store over each storage gives the same answers', () => {
    it(`one scripted life on ${lifeStorages.length} storages: remember, recall in every mode, edit, links, conflicts, forget, undo, trash, import, journal`, async () => {
      const runs: unknown[][] = [];
      // Both through the storage seam (so the wiring is the same): only the storage differs.
      for (const storage of lifeStorages) {
        const clock = manualClock();
        let n = 0;
        let r = 0;
        const memory = await createMemory({
          name: uniqueName('life'),
          embedder: createHashEmbedder(),
          index: 'exact',
          clock,
          ids: { next: () => `id-${String(++n).padStart(4, '0')}` },
          random: { next: () => ((r = (r * 9301 + 49297) % 233280), r / 233280) },
          conflicts: { policy: 'review' },
          storage,
        });
        try {
          runs.push(await life(memory, clock));
        } finally {
          await memory.close();
        }
      }
      expect(runs[0]!.length).toBeGreaterThan(20);
      for (const run of runs.slice(1)) expect(run).toEqual(runs[0]);
    });
  });

  describe('memoryStorages(): a named store outlives its handle in this process', () => {
    it('reopens with its memories; a closed handle is refused', async () => {
      const storages = memoryStorages();
      const first = storages('one');
      await first.initMeta(META);
      await first.insert([makeMemory('a', 'kept')], [vec(1)], ctx());
      first.close();
      await expectCode(first.count(), 'STORAGE_FAILURE');
      expect(await storages('one').count()).toBe(1);
      expect(await storages('two').readMeta()).toBeUndefined();
    });
  });
}
