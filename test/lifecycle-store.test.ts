import { describe, expect, it } from 'vitest';
import { manualClock, openTestStore } from './helpers/store.ts';

const DAY = 86_400;

describe('decay, trash and TTL in the store', () => {
  it('prune is a dry run by default, never touches protected types or pinned memories, and trashes the rest', async () => {
    const clock = manualClock(1_700_000_000);
    const store = await openTestStore({ clock, conflicts: { policy: 'ignore' } });
    const faded = (await store.remember('an old passing remark', { importance: 0.2 })).memory;
    const proc = (await store.remember('how to rotate the api keys', { type: 'procedural', importance: 0.2 })).memory;
    const pinned = (await store.remember('always answer in english', { importance: 0.2, pinned: true })).memory;
    const strong = (await store.remember('the production database is postgres', { importance: 1 })).memory;
    clock.advance(30 * DAY); // 0.2 · e^(−3) ≈ 0.00996 < 0.05; 1 · e^(−3) ≈ 0.0498 < 0.05 too
    const scores = await store.decayScores();
    expect(scores.find((s) => s.memory.id === faded.id)!.score).toBeCloseTo(0.2 * Math.exp(-3), 10);

    const preview = await store.prune();
    expect(preview.dryRun).toBe(true);
    expect(preview.candidates.map((c) => c.memory.id).sort()).toEqual([faded.id, strong.id].sort());
    expect(await store.count()).toBe(4);

    const done = await store.prune({ dryRun: false });
    expect(done.trashed).toBe(2);
    expect((await store.listRecent()).map((m) => m.id).sort()).toEqual([proc.id, pinned.id].sort());
    expect((await store.trashList()).map((t) => [t.id, t.actor])).toEqual(expect.arrayContaining([[faded.id, 'decay']]));
    expect((await store.journalTail(2)).every((e) => e.op === 'trash' && e.actor === 'decay')).toBe(true);

    const back = await store.trashRestore(faded.id);
    expect(back!.text).toBe('an old passing remark');
    expect((await store.recall('old passing remark', { k: 1, touch: false }))[0]!.memory.id).toBe(faded.id);
    expect(await store.trashRestore(faded.id)).toBeNull();
    expect(await store.trashPurge({ olderThanDays: 1 })).toBe(0);
    expect(await store.trashPurge()).toBe(1);
    expect(await store.trashList()).toEqual([]);
    await expect(store.prune({ decayRate: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store.trashPurge({ id: 'x', olderThanDays: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });

  it('expired memories are hidden and purged', async () => {
    const clock = manualClock(1_700_000_000);
    const store = await openTestStore({ clock });
    await store.remember('temporary door code 4411', { expiresAt: clock.now() + 60 });
    await store.remember('permanent fact');
    clock.advance(61);
    expect((await store.purgeExpired({ dryRun: true })).ids.length).toBe(1);
    expect(await store.count()).toBe(2);
    expect((await store.purgeExpired()).purged).toBe(1);
    expect((await store.listRecent({ includeExpired: true })).map((m) => m.text)).toEqual(['permanent fact']);
    await store.close();
  });
});
