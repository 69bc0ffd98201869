import { describe, expect, it } from 'vitest';
import { healthLists } from '../src/core/domain/attention.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

describe('what needs attention', () => {
  it('does not flag unlinked memories: 10,000 fresh imported memories need nothing', () => {
    const memories = Array.from({ length: 10_000 }, (_, i) => makeMemory(`m${i}`, `imported fact ${i}`, { importance: 0.5, createdAt: NOW - 60, lastAccessed: NOW - 60 }));
    const { lists, needsAttention } = healthLists(memories, { now: NOW, staleDays: 90, pending: new Set(), potential: new Set() });
    expect(needsAttention).toBe(0);
    expect(lists.unlinked).toHaveLength(10_000);
    expect(lists.never_recalled).toHaveLength(10_000);
  });

  it('lists each problem with the ids it counts, newest first', () => {
    const memories = [
      makeMemory('old', 'old version', { supersededBy: 'new', createdAt: NOW - 10 * DAY }),
      makeMemory('new', 'new version', { links: [{ to: 'old', rel: 'supersedes' }], createdAt: NOW - DAY, accessCount: 3 }),
      makeMemory('gone-link', 'points nowhere', { links: [{ to: 'missing', rel: 'related' }], createdAt: NOW - 2 * DAY, accessCount: 1 }),
      makeMemory('ttl', 'expired note', { expiresAt: NOW - 5, createdAt: NOW - 3 * DAY }),
      makeMemory('faded', 'faint memory', { importance: 0.01, lastAccessed: NOW - 400 * DAY, createdAt: NOW - 400 * DAY }),
      makeMemory('queued', 'in review', { createdAt: NOW - 4 * DAY, accessCount: 1 }),
      makeMemory('pinned-faded', 'pinned faint', { importance: 0.01, pinned: true, lastAccessed: NOW - 400 * DAY, createdAt: NOW - 401 * DAY }),
    ];
    const { lists, needsAttention } = healthLists(memories, { now: NOW, staleDays: 90, pending: new Map([['queued', 1]]), potential: new Set(['new']) });
    expect(lists.review).toEqual(['queued']);
    expect(lists.possible_conflicts).toEqual(['new']);
    expect(lists.fading).toEqual(['faded']);
    expect(lists.expired).toEqual(['ttl']);
    expect(lists.broken_links).toEqual(['gone-link']);
    expect(lists.stale).toEqual(['faded', 'pinned-faded']);
    expect(lists.superseded).toEqual(['old']);
    expect(lists.unlinked).toEqual(['queued', 'faded', 'pinned-faded']);
    expect(needsAttention).toBe(5);
    // With decay pruning off, fading is information, not a flag.
    const off = healthLists(memories, { now: NOW, staleDays: 90, pending: new Map([['queued', 1]]), potential: new Set(['new']), pruning: false });
    expect(off.attention).not.toContain('fading');
    expect(off.needsAttention).toBe(4);
  });

  it('the store reports the lists, and aggregate counts expired memories on request', async () => {
    const clock = manualClock(NOW);
    const store = await openTestStore({ clock, conflicts: { policy: 'ignore' } });
    await store.remember('short lived', { expiresAt: NOW + 60 });
    await store.remember('kept');
    clock.advance(120);
    const health = await store.health();
    expect(health.lists.expired).toHaveLength(1);
    expect(health.needsAttention).toBe(1);
    expect((await store.aggregate({ countExpired: true })).expired).toBe(1);
    expect((await store.aggregate()).expired).toBeUndefined();
    await expect(store.aggregate({ countExpired: 1 } as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await store.close();
  });
});
