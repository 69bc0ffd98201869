/**
 * `aggregate`: exact tag counts and created-at bucket counts over every memory, from the indexes.
 * Checked against counts computed from the rows themselves (the app's Stats tab used to sample
 * only the newest 5,000), with superseded memories left out unless asked for.
 */
import { describe, expect, it } from 'vitest';
import { openTestStore, manualClock } from './helpers/store.ts';
import { expectInvalidAsync } from './helpers/expect.ts';
import { mulberry32 } from './helpers/prng.ts';

const DAY = 86_400;
const START = 1_760_000_000;
const TAGS = ['deploy', 'db', 'ui', 'ci', 'auth', 'billing'];

describe('aggregate', () => {
  it('counts tags and memories per day exactly, without the superseded ones', async () => {
    const clock = manualClock(START);
    const store = await openTestStore({ clock });
    const random = mulberry32(11);
    const items = Array.from({ length: 600 }, (_, i) => {
      const tags = TAGS.filter(() => random() < 0.3);
      return { text: `note ${i}`, tags, createdDay: Math.floor(random() * 10) };
    });
    // rememberMany stamps one time per call: write one call per day.
    const ids: string[] = [];
    const rows: { id: string; tags: string[]; day: number }[] = [];
    for (let day = 0; day < 10; day++) {
      clock.set(START + day * DAY + 3600);
      const batch = items.filter((it) => it.createdDay === day);
      const results = await store.rememberMany(batch.map((b) => ({ text: b.text, tags: b.tags })));
      results.forEach((r, k) => {
        ids.push(r.memory.id);
        rows.push({ id: r.memory.id, tags: batch[k]!.tags, day });
      });
    }
    // Supersede a few: they leave the default counts.
    const superseded = new Set<string>();
    for (let k = 0; k < 40; k += 2) {
      await store.supersede(rows[k]!.id, rows[k + 1]!.id);
      superseded.add(rows[k]!.id);
    }
    const edges = Array.from({ length: 11 }, (_, d) => START + d * DAY);
    const live = rows.filter((r) => !superseded.has(r.id));

    const expectedTags = (list: typeof rows) => {
      const m = new Map<string, number>();
      for (const r of list) for (const t of r.tags) m.set(t, (m.get(t) ?? 0) + 1);
      return [...m].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
    };
    const expectedDays = (list: typeof rows) => edges.slice(0, -1).map((_, d) => list.filter((r) => r.day === d).length);

    const active = await store.aggregate({ createdEdges: edges, topTags: 100 });
    expect(active.counted).toBe(live.length);
    expect(active.counted).toBe((await store.stats()).active);
    expect(active.tags).toEqual(expectedTags(live));
    expect(active.distinctTags).toBe(TAGS.length);
    expect(active.created).toEqual(expectedDays(live));
    expect(active.created.reduce((a, b) => a + b, 0)).toBe(live.length);

    const all = await store.aggregate({ createdEdges: edges, topTags: 3, includeSuperseded: true });
    expect(all.counted).toBe(rows.length);
    expect(all.tags).toEqual(expectedTags(rows).slice(0, 3));
    expect(all.created).toEqual(expectedDays(rows));
    await store.close();
  });

  it('buckets are half-open, edges outside the data count nothing, and the defaults are 12 tags and no buckets', async () => {
    const clock = manualClock(START);
    const store = await openTestStore({ clock });
    for (let i = 0; i < 15; i++) {
      clock.set(START + i * 100);
      await store.remember(`memory ${i}`, { tags: [`t${String(i).padStart(2, '0')}`, 'common'] });
    }
    const counts = await store.aggregate({ createdEdges: [START - 1000, START, START + 100, START + 1400, START + 1500, START + 9000] });
    // [START-1000, START) none; [START, START+100) the first; [START+100, START+1400) 13; [START+1400, START+1500) the last.
    expect(counts.created).toEqual([0, 1, 13, 1, 0]);
    const defaults = await store.aggregate();
    expect(defaults.created).toEqual([]);
    expect(defaults.tags).toHaveLength(12);
    expect(defaults.tags[0]).toEqual({ tag: 'common', count: 15 });
    expect(defaults.tags.slice(1).map((t) => t.tag)).toEqual(['t00', 't01', 't02', 't03', 't04', 't05', 't06', 't07', 't08', 't09', 't10']);
    expect(defaults.distinctTags).toBe(16);
    expect((await store.aggregate({ topTags: 0 })).tags).toEqual([]);
    await store.close();
  });

  it('an empty store counts nothing', async () => {
    const store = await openTestStore();
    expect(await store.aggregate({ createdEdges: [0, 10, 20] })).toEqual({ tags: [], distinctTags: 0, created: [0, 0], counted: 0 });
    await store.close();
  });

  it('refuses bad options with INVALID_ARGUMENT', async () => {
    const store = await openTestStore();
    await expectInvalidAsync(store.aggregate({ topTags: -1 }), 'topTags');
    await expectInvalidAsync(store.aggregate({ topTags: 1.5 }), 'topTags');
    await expectInvalidAsync(store.aggregate({ createdEdges: [2, 1] }), 'createdEdges');
    await expectInvalidAsync(store.aggregate({ createdEdges: [1, 1] }), 'createdEdges');
    await expectInvalidAsync(store.aggregate({ createdEdges: [0, Number.NaN] }), 'createdEdges');
    await expectInvalidAsync(store.aggregate({ createdEdges: 'today' as unknown as number[] }), 'createdEdges');
    await expectInvalidAsync(store.aggregate({ createdEdges: Array.from({ length: 1002 }, (_, i) => i) }), 'createdEdges');
    await expectInvalidAsync(store.aggregate({ includeSuperseded: 'yes' as unknown as boolean }), 'includeSuperseded');
    await expectInvalidAsync(store.aggregate({ tags: 3 } as unknown as { topTags: number }));
    await store.close();
  });
});
