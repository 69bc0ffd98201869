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

describe('reflection and health in the store', () => {
  it('consolidates a cluster of episodes into a semantic summary (soft supersedes and links, hard forgets)', async () => {
    for (const consolidate of ['soft', 'hard'] as const) {
      const store = await openTestStore({ conflicts: { policy: 'ignore' } });
      const episodes = await store.rememberMany([
        { text: 'the nightly deploy failed on monday with a timeout', type: 'episodic', tags: ['deploy'], importance: 0.6 },
        { text: 'the nightly deploy failed on tuesday with a timeout', type: 'episodic', tags: ['ci'], importance: 0.4 },
        { text: 'lunch was pizza', type: 'episodic' },
      ]);
      const preview = await store.reflect({ consolidate });
      expect(preview.dryRun).toBe(true);
      expect(preview.clusters).toHaveLength(1);
      expect(await store.count()).toBe(3);
      const done = await store.reflect({ dryRun: false, consolidate });
      const summary = (await store.get(done.clusters[0]!.summaryId!))!;
      expect(summary).toMatchObject({ type: 'semantic', source: 'reflection', importance: 0.5 });
      expect(summary.tags).toEqual(['reflection', 'level:1', 'deploy', 'ci']);
      expect(summary.text.startsWith('[Reflection ×2] ')).toBe(true);
      const [a, b] = [episodes[0]!.memory.id, episodes[1]!.memory.id];
      if (consolidate === 'soft') {
        expect((await store.get(a))!.supersededBy).toBe(summary.id);
        expect(summary.links).toEqual([
          { to: a, rel: 'supersedes' }, { to: a, rel: 'derived_from' }, { to: b, rel: 'supersedes' }, { to: b, rel: 'derived_from' },
        ]);
      } else {
        expect(await store.get(a)).toBeNull();
        expect(await store.get(b)).toBeNull();
      }
      await store.close();
    }
  });

  it('gives each memory exactly one health status with reasons', async () => {
    const clock = manualClock(1_700_000_000);
    const store = await openTestStore({ clock, conflicts: { policy: 'review' } });
    const [a, b] = (await store.rememberMany(['alpha linked note', 'beta linked note'])).map((r) => r.memory.id) as [string, string];
    await store.link(a, b);
    const lonely = (await store.remember('a lonely fact about tea')).memory.id;
    const old = (await store.remember('standup is at nine')).memory.id;
    await store.remember('standup is not at nine');
    clock.advance(100 * 86_400);
    const fresh = (await store.remember('a fresh unrelated thought')).memory.id;
    const health = await store.health();
    expect(health.statuses[old]!.status).toBe('at_risk');
    expect(health.statuses[lonely]!.status).toBe('stale');
    expect(health.statuses[fresh]!.status).toBe('orphan');
    const total = Object.values(health.counts).reduce((x, y) => x + y, 0);
    expect(total).toBe(await store.count());
    expect(health.statuses[fresh]!.reasons.length).toBeGreaterThan(0);
    await store.close();
  });
});

describe('quota', () => {
  it('evicts the least recently used (never procedural or pinned), or rejects', async () => {
    const clock = manualClock(1_700_000_000);
    const store = await openTestStore({ clock, quota: { maxMemories: 3, policy: 'lru' }, conflicts: { policy: 'ignore' } });
    const oldest = (await store.remember('oldest note')).memory.id;
    clock.advance(10);
    await store.remember('procedure step', { type: 'procedural' });
    clock.advance(10);
    await store.remember('pinned rule', { pinned: true });
    clock.advance(10);
    await store.remember('newest note');
    expect(await store.count()).toBe(3);
    expect(await store.get(oldest)).toBeNull();
    expect((await store.trashList()).map((t) => [t.id, t.actor])).toEqual([[oldest, 'quota']]);
    await expect(store.rememberMany(['a', 'b', 'c'])).rejects.toMatchObject({ code: 'STORAGE_QUOTA' });
    await store.close();

    const strict = await openTestStore({ quota: { maxMemories: 1, policy: 'reject' } });
    await strict.remember('only one');
    await expect(strict.remember('one more')).rejects.toMatchObject({ code: 'STORAGE_QUOTA', details: { outcome: 'policy-reject' } });
    expect(await strict.count()).toBe(1);
    await strict.close();
  });
});
