/**
 * A creation is journaled without its memory (#30: the copy was a quarter of a bulk-written
 * memory's bytes on disk). What it made is recovered exactly on read — from the memory's next
 * entry, or the memory itself — so history, the journal's tail and calls, undo, time travel,
 * sync's effects and compaction read it as before, on both storage backends.
 */
import { describe, expect, it } from 'vitest';
import { compactEntry, createdState, entryEffect, linksPatch } from '../src/core/domain/journal-patch.ts';
import type { MemoryStorage } from '../src/core/ports.ts';
import type { Memory } from '../src/core/types.ts';
import { openDexieStorage } from '../src/adapters/storage-dexie.ts';
import { memoryStorages } from '../src/adapters/storage-memory.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

const memory = (text: string, extra: Partial<Memory> = {}): Memory => ({
  id: 'm', text, type: 'semantic', tags: [], importance: 0.5, createdAt: 1, lastAccessed: 1, accessCount: 0,
  source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0,
  pinned: false, trust: 'trusted', contentHash: 'x', validFrom: 0, validUntil: 0, surfacesWhen: [], ...extra,
});

/** What a memory is, access tracking aside (recall and undo compare it so). */
const content = ({ lastAccessed: _l, accessCount: _c, ...rest }: Memory) => rest;

describe('creations without their memory, pure', () => {
  it('stores a creation as its id and mark only; every other entry as before', () => {
    const created = compactEntry({ id: 'm', before: null, after: memory('one'), op: 'remember' });
    expect(created).toEqual({ id: 'm', before: null, after: null, created: true, op: 'remember' });
    expect(entryEffect(created)).toBe('created');
    expect(compactEntry({ id: 'm', before: memory('one'), after: null })).toMatchObject({ before: { text: 'one' }, after: null });
    expect(compactEntry({ id: '*', before: null, after: null })).toEqual({ id: '*', before: null, after: null });
    expect(entryEffect({ id: 'm', before: memory('one'), after: null })).toBe('removed');
  });

  it('recovers what a creation made back through later edits, link patches, a forget and a second creation', () => {
    const made = memory('made');
    const linked = { ...made, links: [{ to: 'x', rel: 'r' }] };
    const patch = linksPatch(made, linked)!;
    const edited = memory('edited', { links: linked.links });
    // Nothing after: the memory as it is.
    expect(createdState([], made)).toBe(made);
    // A link patch, then an edit, the memory now edited.
    expect(createdState([{ seq: 5, before: linked }, { seq: 3, before: null, links: patch }], edited)).toEqual(made);
    // Only a patch after it: reverted from the memory now.
    expect(createdState([{ seq: 3, before: null, links: patch }], linked)).toEqual(made);
    // Forgotten, then made again under the same id.
    expect(createdState([{ seq: 4, before: made }, { seq: 6, before: null }], memory('again'))).toEqual(made);
    // Gone, nothing said after: unknown.
    expect(createdState([], null)).toBeNull();
  });
});

for (const backend of ['dexie', 'memory'] as const) {
  describe(`creations without their memory (${backend})`, () => {
    const open = (clock = manualClock()) => {
      let storage: MemoryStorage | undefined;
      const base = backend === 'memory' ? memoryStorages() : (name: string) => openDexieStorage(name);
      return openTestStore({ clock, conflicts: { policy: 'ignore' }, storage: async (name) => (storage = await base(name)) }).then((store) => ({ store, storage: () => storage! }));
    };

    it('stores a bulk write without copies and reads every creation back whole: history, tail, calls, a later edit and forget', async () => {
      const clock = manualClock();
      const { store, storage } = await open(clock);
      try {
        const made = (await store.rememberMany(['the standup is at 9:30', 'deploys happen on Fridays', 'the office is in Berlin'])).map((r) => r.memory);
        // As stored: no memory in the entry, and a few hundred bytes instead of a copy.
        const stored = await storage().journalAfter(0, 100);
        expect(stored.map((e) => [e.after, e.created])).toEqual(made.map(() => [null, true]));
        expect(Math.max(...stored.map((e) => JSON.stringify(e).length))).toBeLessThan(JSON.stringify(made[0]).length);
        // As read: whole.
        for (const m of made) expect(content((await store.history(m.id))[0]!.after!)).toEqual(content(m));
        expect((await store.journalTail(3)).map((e) => e.after?.text).reverse()).toEqual(made.map((m) => m.text));
        expect((await store.journalCalls())[0]!.subject).toEqual({ id: made[0]!.id, text: made[0]!.text });
        expect((await store.journalTail(3)).some((e) => 'created' in e)).toBe(false);

        clock.advance(10);
        await store.edit(made[0]!.id, { text: 'the standup moved to 10:00' });
        await store.link(made[1]!.id, made[2]!.id, 'related');
        await store.forget(made[2]!.id);
        // What each creation made, not what the memory became.
        const firstOf = async (id: string) => (await store.history(id))[0]!.after!;
        expect((await firstOf(made[0]!.id)).text).toBe('the standup is at 9:30');
        expect((await firstOf(made[1]!.id)).links).toEqual([]);
        expect(content(await firstOf(made[2]!.id))).toEqual(content(made[2]!));
        // The same through every read: the newest n, one call, one entry.
        const tail = await store.journalTail(100);
        expect(tail.filter((e) => e.op === 'remember').map((e) => e.after?.text).reverse()).toEqual(made.map((m) => m.text));
        const seq = tail.find((e) => e.id === made[0]!.id && e.op === 'remember')!.seq!;
        const storageReads = storage();
        expect((await storageReads.journalRead({ seq }))[0]!.after!.text).toBe('the standup is at 9:30');
        expect((await storageReads.journalRead({ group: tail[tail.length - 1]!.group })).map((e) => e.after?.text)).toEqual(made.map((m) => m.text));
        expect((await storageReads.journalRead({ untilTs: clock.now() - 5 })).map((e) => e.after?.text)).toEqual(made.map((m) => m.text));
      } finally {
        await store.close();
      }
    }, 60_000);

    it('undo of a bulk write: refused while one of its memories changed after it, whole once that change is undone; redo and time travel as before', async () => {
      const clock = manualClock();
      const { store } = await open(clock);
      try {
        const made = (await store.rememberMany(['alpha note', 'beta note', 'gamma note'])).map((r) => r.memory);
        const bulkSeq = (await store.journalTail(1))[0]!.seq!;
        const t0 = clock.now() + 1;
        clock.advance(10);
        await store.edit(made[1]!.id, { importance: 0.9 });
        const refused = await store.undo(bulkSeq);
        expect(refused).toMatchObject({ ok: false, changed: { id: made[1]!.id } });
        expect((await store.undo()).ok).toBe(true); // the edit
        const undone = await store.undo(bulkSeq);
        expect(undone).toMatchObject({ ok: true, effect: { removed: 3 } });
        expect(await store.get(made[0]!.id)).toBeNull();
        // Redo: the undo's entries hold what it removed.
        expect((await store.undo((await store.journalTail(1))[0]!.seq!)).ok).toBe(true);
        expect((await store.get(made[0]!.id))!.text).toBe('alpha note');
        expect((await store.stateAt(t0)).map((m) => m.text).sort()).toEqual(['alpha note', 'beta note', 'gamma note']);
        expect(await store.stateAt(t0 - 2)).toEqual([]);
      } finally {
        await store.close();
      }
    }, 60_000);

    it('compaction that keeps a call but drops a later change of one of its memories writes that creation whole first', async () => {
      const clock = manualClock(3_000_000);
      const { store, storage } = await open(clock);
      try {
        const [a] = (await store.rememberMany(['the office is in Berlin', 'a second note'])).map((r) => r.memory);
        const group = (await store.journalTail(1))[0]!.group;
        clock.advance(10);
        await store.edit(a!.id, { text: 'the office moved to Munich' });
        // The first call writes once more after the edit (a long import's next batch does this).
        await storage().journalAppend({ ts: clock.now(), op: 'remember', actor: 'lib', group, meta: {} }, [{ id: '*', before: null, after: null }]);
        clock.advance(86_400);
        // The cut falls inside the first call: it stays whole; the edit below the cut goes.
        expect((await store.compactJournal({ keepDays: 0, keepLast: 1 })).removed).toBe(1);
        const history = await store.history(a!.id);
        expect(history.map((e) => e.op)).toEqual(['remember']);
        expect(history[0]!.after!.text).toBe('the office is in Berlin');
        expect((await storage().journalAfter(0, 100)).find((e) => e.id === a!.id)!.after!.text).toBe('the office is in Berlin');
      } finally {
        await store.close();
      }
    }, 60_000);
  });
}
