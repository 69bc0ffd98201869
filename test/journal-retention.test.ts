import { describe, expect, it } from 'vitest';
import type { LocalMemory } from '../src/local.ts';
import { pythonArchive, sampleMemories } from './fixtures/make-archives.ts';
import { expectInvalidAsync } from './helpers/expect.ts';
import { mulberry32 } from './helpers/prng.ts';
import Dexie from 'dexie';
import { databaseName } from '../src/adapters/storage-dexie.ts';
import { manualClock, openTestStore, uniqueName } from './helpers/store.ts';

const DAY = 86_400;

const texts = async (store: LocalMemory, ts: number): Promise<string[]> => (await store.stateAt(ts)).map((m) => m.text).sort();

describe('journal compaction', () => {
  it('drops entries older than keepDays, keeps stateAt exact from the horizon on, and refuses earlier moments with JOURNAL_COMPACTED', async () => {
    const clock = manualClock(1_000_000);
    const store = await openTestStore({ clock, conflicts: { policy: 'ignore' } });
    const a = (await store.remember('alpha')).memory; // day 0
    clock.advance(10 * DAY);
    const b = (await store.remember('beta')).memory; // day 10
    await store.edit(a.id, { text: 'alpha, edited' });
    clock.advance(10 * DAY);
    await store.forget(b.id); // day 20
    const c = (await store.remember('gamma')).memory;
    const before = await Promise.all([5, 10.5, 15, 20.5].map((d) => texts(store, 1_000_000 + d * DAY)));
    expect(before).toEqual([['alpha'], ['alpha, edited', 'beta'], ['alpha, edited', 'beta'], ['alpha, edited', 'gamma']]);

    // Keep 15 days: the entries of day 0 go, those of days 10 and 20 stay.
    const result = await store.compactJournal({ keepDays: 15, keepLast: 0 });
    expect(result.removed).toBe(1);
    expect(result.horizon).toMatchObject({ ts: 1_000_000, compactedAt: clock.now() });
    const ops = (await store.journalTail(100)).map((e) => e.op).reverse();
    expect(ops).toEqual(['remember', 'edit', 'forget', 'remember', 'compact']);

    // Every moment from the horizon on answers exactly as before compaction.
    expect(await Promise.all([5, 10.5, 15, 20.5].map((d) => texts(store, 1_000_000 + d * DAY)))).toEqual(before);
    expect(await texts(store, 1_000_000)).toEqual(['alpha']);
    // A moment before the horizon is refused, not answered with a partial state.
    await expect(store.stateAt(1_000_000 - 1)).rejects.toMatchObject({ code: 'JOURNAL_COMPACTED', details: { horizonTs: 1_000_000 } });

    // Undo inside the window still works; the compacted entry cannot be undone and says why.
    expect((await store.undo()).op).toBe('remember');
    expect(await store.get(c.id)).toBeNull();
    const forget = (await store.history(b.id)).find((e) => e.op === 'forget')!;
    expect((await store.undo(forget.seq)).ok).toBe(true);
    expect((await store.get(b.id))!.text).toBe('beta');
    await expect(store.undo(1)).rejects.toMatchObject({ code: 'JOURNAL_COMPACTED', details: { seq: 1 } });
    await expect(store.undo(999)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const compactEntry = (await store.journalTail(100)).find((e) => e.op === 'compact')!;
    await expect(store.undo(compactEntry.seq)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });

  it('always keeps the newest keepLast entries, whatever their age', async () => {
    const clock = manualClock(2_000_000);
    const store = await openTestStore({ clock, conflicts: { policy: 'ignore' }, journalRetention: { keepDays: 1, keepLast: 3 } });
    for (let i = 0; i < 6; i++) await store.remember(`memory ${i}`);
    clock.advance(30 * DAY);
    const result = await store.compactJournal(); // the store's retention: 1 day, newest 3
    expect(result.removed).toBe(3);
    const kept = (await store.journalTail(100)).reverse();
    expect(kept.map((e) => e.after?.text ?? e.op)).toEqual(['memory 3', 'memory 4', 'memory 5', 'compact']);
    // Nothing more to drop: a second run removes nothing and writes no entry.
    expect((await store.compactJournal()).removed).toBe(0);
    expect((await store.journalTail(100)).length).toBe(4);
    // The call's options override the store's retention.
    expect((await store.compactJournal({ keepLast: 1 })).removed).toBe(2);
    expect((await store.journalTail(100)).map((e) => e.after?.text ?? e.op)).toEqual(['compact', 'compact', 'memory 5']);
    await store.close();
  });

  it('never splits a call: an import straddling the cut keeps all its entries and can still be undone', async () => {
    const clock = manualClock(3_000_000);
    const store = await openTestStore({ clock, conflicts: { policy: 'ignore' } });
    await store.remember('old and alone');
    clock.advance(DAY);
    const memories = sampleMemories();
    await store.importArchive(pythonArchive({ memories }));
    const importEntries = (await store.journalTail(100)).filter((e) => e.op === 'import');
    expect(importEntries.length).toBe(memories.length);
    clock.advance(DAY);
    // keepLast 1 cuts inside the import's entries; the import stays whole, only the old remember goes.
    const result = await store.compactJournal({ keepDays: 0, keepLast: 1 });
    expect(result.removed).toBe(1);
    expect((await store.journalTail(100)).filter((e) => e.op === 'import').length).toBe(memories.length);
    const undone = await store.undo(importEntries[importEntries.length - 1]!.seq);
    expect(undone).toMatchObject({ ok: true, op: 'import' });
    expect((await store.listRecent({ limit: 50 })).map((m) => m.text)).toEqual(['old and alone']);
    await store.close();
  });

  it('stateAt after compaction agrees with stateAt before it at every moment from the horizon on (seeded random histories)', async () => {
    for (const seed of [1, 2, 3]) {
      const random = mulberry32(seed);
      const start = 5_000_000;
      const clock = manualClock(start);
      const store = await openTestStore({ clock, conflicts: { policy: 'ignore' } });
      const moments: number[] = [];
      for (let step = 0; step < 60; step++) {
        clock.advance(Math.floor(random() * 2 * DAY) + 1);
        const live = (await store.listRecent({ limit: 1000 })).map((m) => m.id);
        const r = random();
        if (live.length === 0 || r < 0.4) await store.remember(`note ${seed}-${step}`, { tags: [`t${step % 3}`] });
        else if (r < 0.6) await store.edit(live[Math.floor(random() * live.length)]!, { text: `note ${seed}-${step} rewritten` });
        else if (r < 0.75) await store.forget(live[Math.floor(random() * live.length)]!);
        else if (r < 0.85 && live.length > 1) await store.link(live[0]!, live[live.length - 1]!, 'related');
        else if (r < 0.95) await store.edit(live[Math.floor(random() * live.length)]!, { importance: Math.round(random() * 100) / 100 });
        else await store.undo();
        moments.push(clock.now() + 0.5);
      }
      const current = (await store.listRecent({ limit: 1000 })).map((m) => m.id).sort();
      const answers = new Map<number, string[]>();
      for (const t of moments) answers.set(t, await texts(store, t));
      const { horizon } = await store.compactJournal({ keepDays: 30, keepLast: 10 });
      expect(horizon).not.toBeNull();
      for (const t of moments) {
        if (t >= horizon!.ts) expect(await texts(store, t), `seed ${seed} at ${t - start}`).toEqual(answers.get(t));
        else await expect(store.stateAt(t)).rejects.toMatchObject({ code: 'JOURNAL_COMPACTED' });
      }
      // The current state is untouched by compaction.
      expect((await store.listRecent({ limit: 1000 })).map((m) => m.id).sort()).toEqual(current);
      await store.close();
    }
  });

  it('rejects bad retention settings before writing anything', async () => {
    const name = uniqueName('retention');
    await expectInvalidAsync(openTestStore({ name, journalRetention: { keepDays: -1 } }), 'journalRetention.keepDays');
    const db = new Dexie(databaseName(name));
    await db.open();
    expect(await db.table('meta').count()).toBe(0); // not even the metadata row
    db.close();
    await expectInvalidAsync(openTestStore({ journalRetention: { keepLast: 1.5 } }), 'journalRetention.keepLast');
    await expectInvalidAsync(openTestStore({ journalRetention: { keep: 3 } as never }), 'journalRetention');
    const store = await openTestStore();
    await store.remember('one');
    await expectInvalidAsync(store.compactJournal({ keepDays: Number.NaN }), 'options.keepDays');
    await expectInvalidAsync(store.compactJournal({ nope: true } as never), 'options');
    expect((await store.journalTail(10)).map((e) => e.op)).toEqual(['remember']);
    // An option left undefined keeps the store's setting.
    expect((await store.compactJournal({ keepDays: undefined, keepLast: 5 })).removed).toBe(0);
    await store.close();
  });

  it('runs as a maintenance job on its interval, keeping the journal bounded', async () => {
    const clock = manualClock(7_000_000);
    const store = await openTestStore({ clock, journalRetention: { keepDays: 2, keepLast: 5 }, maintenance: { enabled: true, tickEvery: 3600 } });
    for (let day = 0; day < 10; day++) {
      // 'ignore': "day 1 note 0" updating "day 0 note 0" would journal its link too (#50).
      for (let i = 0; i < 4; i++) await store.remember(`day ${day} note ${i}`, { onConflict: 'ignore' });
      clock.advance(DAY + 1);
      const runs = await store.runMaintenance();
      expect(runs.map((r) => r.job)).toEqual(['purge', 'trash', 'journal']);
      // Never more than the window (2 days of 4 entries, plus the compact entries) stays.
      expect((await store.journalTail(1000)).length).toBeLessThanOrEqual(12);
    }
    const history = (await store.maintenanceStatus()).history.filter((r) => r.job === 'journal');
    expect(history.length).toBe(10);
    expect(history.every((r) => r.ok)).toBe(true);
    expect(history.slice(2).every((r) => (r.result['removed'] as number) > 0)).toBe(true);
    // Turned off, the job is not due.
    const off = await openTestStore({ clock, maintenance: { enabled: true, journal: false } });
    expect((await off.runMaintenance()).map((r) => r.job)).toEqual(['purge', 'trash']);
    await off.close();
    await store.close();
  });
});
