/**
 * Sync with a team database, a stranger's input (#31): `maxTrust` caps what the remote says about
 * trust and pins, as `importArchive({ maxTrust })` does; a document crafted with many conflicting
 * revisions costs a bounded fold, and its losing texts wait in review without being memories.
 */
import { describe, expect, it } from 'vitest';
import { openTestStore } from './helpers/store.ts';
import { request } from './helpers/couch-server.ts';
import { ALICE, useCouchServer } from './helpers/couch-suite.ts';
import { MAX_FOLDED_LEAVES } from '../src/core/sync/leaves.ts';


const couch = useCouchServer('team');

const teamDb = (): Promise<string> => couch.database();

const doc = (id: string, memory: Record<string, unknown>): Record<string, unknown> => ({
  _id: `m:${id}`,
  kind: 'houkai-memory',
  v: 1,
  memory: { id, text: `memory ${id}`, type: 'semantic', tags: [], importance: 0.5, createdAt: 1_760_000_000, source: null, links: [], ...memory },
});

describe('sync({ maxTrust })', () => {
  it('stores what a team database says is trusted and pinned at the ceiling, unpinned; without it the remote is taken at its word', async () => {
    const url = await teamDb();
    const put = await request(`${url}/_bulk_docs`, 'POST', {
      docs: [
        doc('claims-trust', { trust: 'trusted', pinned: true }),
        doc('already-low', { trust: 'untrusted' }),
        doc('reported', { trust: 'reported', pinned: true }),
      ],
    }, ALICE);
    expect(put.status).toBe(201);

    const capped = await openTestStore();
    const open = await openTestStore();
    try {
      await capped.sync({ url, auth: ALICE, maxTrust: 'reported' });
      expect(await capped.get('claims-trust')).toMatchObject({ trust: 'reported', pinned: false });
      expect(await capped.get('already-low')).toMatchObject({ trust: 'untrusted', pinned: false });
      expect(await capped.get('reported')).toMatchObject({ trust: 'reported', pinned: false });
      // A later edit on the server comes in capped too.
      const current = (await request(`${url}/m:claims-trust`, 'GET', undefined, ALICE)).body as Record<string, unknown>;
      const memory = current.memory as Record<string, unknown>;
      await request(`${url}/m:claims-trust`, 'PUT', { ...current, memory: { ...memory, text: 'memory claims-trust, edited', pinned: true } }, ALICE);
      await capped.sync({ url, auth: ALICE, maxTrust: 'untrusted' });
      expect(await capped.get('claims-trust')).toMatchObject({ text: 'memory claims-trust, edited', trust: 'untrusted', pinned: false });

      await open.sync({ url, auth: ALICE });
      expect(await open.get('claims-trust')).toMatchObject({ trust: 'trusted', pinned: true });

      const refused = await capped.sync({ url, auth: ALICE, maxTrust: 'sort of' as never }).catch((e: { code?: string }) => e.code);
      expect(refused).toBe('INVALID_ARGUMENT');
    } finally {
      await capped.close();
      await open.close();
    }
  }, 60_000);
});

describe('conflicting revisions from a remote', () => {
  /** `n` leaves of one document, each a distinct text and tag, none written by a known device. */
  const leaves = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const h = (i + 1).toString(16).padStart(32, '0');
      return { ...doc('conf', { text: `conflicting text number ${i}`, tags: [`c${i}`] }), _rev: `2-${h}`, _revisions: { start: 2, ids: [h, `${'0'.repeat(29)}abc`] } };
    });

  it(`a document with 60 crafted leaves: at most ${MAX_FOLDED_LEAVES} are folded, the rest removed and counted; the queue and the status agree; nothing held is a memory (repro-conflicts)`, async () => {
    const url = await teamDb();
    const a = await openTestStore();
    const b = await openTestStore();
    try {
      await a.remember('an ordinary local memory');
      await a.sync({ url, auth: ALICE });
      const put = await request(`${url}/_bulk_docs`, 'POST', { docs: leaves(60), new_edits: false }, ALICE);
      expect(put.status).toBe(201);
      const result = await a.sync({ url, auth: ALICE });
      expect(result.conflicts).toBe(1);
      const status = await a.syncStatus();
      expect(status.totals.unreadable).toBe(60 - 1 - MAX_FOLDED_LEAVES);
      const queue = await a.listPendingConflicts({ limit: 1000 });
      expect(queue.length).toBeGreaterThan(0);
      expect(queue.length).toBeLessThanOrEqual(MAX_FOLDED_LEAVES);
      expect(status.conflictsWaiting).toBe(queue.length);
      expect(queue.every((q) => q.held === true && q.old?.id === 'conf')).toBe(true);
      // Only the winner and the ordinary memory are memories.
      expect(await a.count()).toBe(2);
      // The server's document is one readable revision with no conflicts left.
      const remote = (await request(`${url}/m:conf?conflicts=true`, 'GET', undefined, ALICE)).body as { memory: { tags: string[] }; _conflicts?: string[] };
      expect(remote._conflicts ?? []).toEqual([]);
      expect(remote.memory.tags.length).toBeLessThanOrEqual(100);
      await b.sync({ url, auth: ALICE });
      expect((await b.get('conf'))?.tags).toEqual((await a.get('conf'))?.tags);
      expect((await b.syncStatus()).totals.unreadable).toBe(0);

      // keep_both stores the held text as a memory (contradicting the winner); drop_new lets it go.
      const [keep, drop] = queue as [typeof queue[0], typeof queue[0]];
      await a.resolveConflict(keep.id, 'keep_both');
      expect((await a.get(keep.newId))?.text).toBe(keep.new!.text);
      expect((await a.get(keep.newId))?.links).toEqual([{ to: 'conf', rel: 'contradicts' }]);
      await a.resolveConflict(drop.id, 'drop_new');
      expect(await a.get(drop.newId)).toBeNull();
      expect(await a.count()).toBe(3);
      expect((await a.syncStatus()).conflictsWaiting).toBe(queue.length - 2);
      // What was kept goes out like any other write.
      await a.sync({ url, auth: ALICE });
      await b.sync({ url, auth: ALICE });
      expect((await b.get(keep.newId))?.text).toBe(keep.new!.text);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);
});
