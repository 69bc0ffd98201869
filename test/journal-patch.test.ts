/**
 * Links journaled as patches (#31, repro-link-journal): a change of links only is written as the
 * links that changed, so N links out of one memory cost O(N) journal bytes; undo, redo and time
 * travel read the patches back exactly, on both storage backends.
 */
import { describe, expect, it } from 'vitest';
import { applyPatch, compactEntry, entryEffect, linksPatch, revertPatch } from '../src/core/domain/journal-patch.ts';
import type { Memory } from '../src/core/types.ts';
import { memoryStorages } from '../src/adapters/storage-memory.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

const memory = (links: [string, string][], extra: Partial<Memory> = {}): Memory => ({
  id: 'hub', text: 'the hub memory', type: 'semantic', tags: [], importance: 0.5, createdAt: 1, lastAccessed: 1, accessCount: 0,
  source: null, links: links.map(([to, rel]) => ({ to, rel })), supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0,
  pinned: false, trust: 'trusted', contentHash: 'x', validFrom: 0, validUntil: 0, surfacesWhen: [], ...extra,
});

describe('links patches, pure', () => {
  it('round-trips any change of links that keeps the order of the links both sides hold', () => {
    const cases: [[string, string][], [string, string][]][] = [
      [[], [['a', 'r']]],
      [[['a', 'r'], ['b', 'r'], ['c', 'r']], [['a', 'r'], ['c', 'r']]],
      [[['a', 'r'], ['b', 'r']], [['x', 'r'], ['a', 'r'], ['y', 's'], ['b', 'r'], ['z', 'r']]],
      [[['a', 'r'], ['b', 'r'], ['c', 's']], [['b', 'r'], ['d', 'r']]],
    ];
    for (const [from, to] of cases) {
      const before = memory(from);
      const after = memory(to);
      const patch = linksPatch(before, after)!;
      expect(patch).not.toBeNull();
      expect(applyPatch(before, patch).links).toEqual(after.links);
      expect(revertPatch(after, patch).links).toEqual(before.links);
    }
  });

  it('keeps snapshots when anything but links changed, the kept links moved, or nothing changed', () => {
    expect(linksPatch(memory([]), memory([['a', 'r']], { text: 'other' }))).toBeNull();
    expect(linksPatch(memory([['a', 'r'], ['b', 'r']]), memory([['b', 'r'], ['a', 'r']]))).toBeNull();
    expect(linksPatch(memory([['a', 'r']]), memory([['a', 'r']]))).toBeNull();
    // Access tracking is not what the journal records.
    expect(linksPatch(memory([]), memory([['a', 'r']], { accessCount: 3 }))).not.toBeNull();
    const entry = compactEntry({ id: 'hub', before: memory([]), after: memory([['a', 'r']]) });
    expect(entry).toMatchObject({ before: null, after: null, links: { added: [{ at: 0, link: { to: 'a', rel: 'r' } }], removed: [] } });
    expect(entryEffect({ ...entry, id: 'hub' })).toBe('changed');
    expect(entryEffect({ id: 'hub', before: memory([]), after: null })).toBe('removed');
    expect(entryEffect({ id: 'hub', before: null, after: memory([]) })).toBe('created');
    expect(entryEffect({ id: '*', before: null, after: null })).toBe('store');
  });
});

for (const backend of ['dexie', 'memory'] as const) {
  describe(`links journaled as patches (${backend})`, () => {
    const open = (clock = manualClock()) => openTestStore({ clock, ...(backend === 'memory' ? { storage: memoryStorages() } : {}) });

    it('N links out of one memory cost O(N) journal bytes (repro-link-journal)', async () => {
      const s = await open();
      try {
        const hub = (await s.remember('hub memory')).memory.id;
        const target = (await s.remember('target memory')).memory.id;
        const sizes: number[] = [];
        for (let i = 0; i < 400; i++) {
          await s.link(hub, target, `rel${i}`);
          const [entry] = await s.journalTail(1);
          sizes.push(JSON.stringify(entry).length);
        }
        // Each entry is about one link, not the memory with all its links.
        expect(Math.max(...sizes)).toBeLessThan(2 * sizes[0]! + 200);
        expect((await s.get(hub))!.links).toHaveLength(400);
      } finally {
        await s.close();
      }
    }, 60_000);

    it('undo, redo and time travel read patches back exactly; an undo after a later change is refused', async () => {
      const clock = manualClock();
      const s = await open(clock);
      try {
        const [hub, a, b, c] = (await s.rememberMany(['hub note', 'alpha note', 'beta note', 'gamma note'])).map((r) => r.memory.id) as [string, string, string, string];
        const created = clock.now();
        clock.advance(5);
        await s.link(hub, a, 'x');
        await s.link(hub, b, 'x');
        await s.link(hub, c, 'x');
        await s.link(hub, b, 'y');
        clock.advance(10);
        const t1 = clock.now();
        clock.advance(10);
        expect(await s.unlink(hub, b)).toBe(2);
        const order = (m: Memory | null) => m!.links.map((l) => `${l.to === a ? 'a' : l.to === b ? 'b' : 'c'}:${l.rel}`);
        expect(order(await s.get(hub))).toEqual(['a:x', 'c:x']);
        // Undo puts both links back where they were.
        expect((await s.undo()).ok).toBe(true);
        expect(order(await s.get(hub))).toEqual(['a:x', 'b:x', 'c:x', 'b:y']);
        // The undo's own entry is a patch too: undoing it redoes the unlink.
        const [undoEntry] = await s.journalTail(1);
        expect(undoEntry!.links).toBeDefined();
        expect((await s.undo(undoEntry!.seq!)).ok).toBe(true);
        expect(order(await s.get(hub))).toEqual(['a:x', 'c:x']);
        // Time travel walks back through the patches.
        const then = (await s.stateAt(t1)).find((m) => m.id === hub)!;
        expect(order(then)).toEqual(['a:x', 'b:x', 'c:x', 'b:y']);
        expect(order((await s.stateAt(created + 1)).find((m) => m.id === hub)!)).toEqual([]);
        // A link call followed by an edit of the same memory: the link can no longer be undone alone.
        await s.link(hub, b, 'z');
        const [linkEntry] = await s.journalTail(1);
        await s.edit(hub, { importance: 0.9 });
        const refused = await s.undo(linkEntry!.seq!);
        expect(refused.ok).toBe(false);
        expect(order(await s.get(hub))).toEqual(['a:x', 'c:x', 'b:z']);
      } finally {
        await s.close();
      }
    }, 60_000);
  });
}
