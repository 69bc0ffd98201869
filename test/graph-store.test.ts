import { describe, expect, it } from 'vitest';
import type { Embedder } from '../src/core/ports.ts';
import { createMemory, MemoryError, type LocalMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { openTestStore, uniqueName } from './helpers/store.ts';

/** Bag-of-words vectors that ignore negation words, so "X" and "never X" are near-identical (cos ≥ 0.8). */
function negationBlindEmbedder(): Embedder {
  const inner = createHashEmbedder({ dim: 256, id: 'negation-blind' });
  const strip = (t: string): string => t.replace(/\b(not|never|no|don't|dont|doesn't)\b/gi, ' ');
  return { id: inner.id, dim: inner.dim, embed: (texts, o) => inner.embed(texts.map(strip), o) };
}

async function store(options: Parameters<typeof createMemory>[0] = {}): Promise<LocalMemory> {
  return openTestStore({ embedder: negationBlindEmbedder(), ...options });
}

describe('links', () => {
  it('links, walks both directions by index, reports dangling targets, and unlinks', async () => {
    const s = await store();
    const [a, b, c] = (await s.rememberMany(['alpha note', 'beta note', 'gamma note'])).map((r) => r.memory.id) as [string, string, string];
    expect(await s.link(a, b, 'refines')).toEqual({ added: true });
    expect(await s.link(a, b, 'refines')).toEqual({ added: false });
    await s.link(b, c);
    const out = await s.neighbors(a, { direction: 'out', depth: 2 });
    expect(out.results.map((r) => [r.memory.id, r.rel, r.hop])).toEqual([[b, 'refines', 1], [c, 'related', 2]]);
    const incoming = await s.neighbors(c, { direction: 'in' });
    expect(incoming.results.map((r) => [r.memory.id, r.rel, r.direction])).toEqual([[b, 'related', 'in']]);
    await s.link(c, a, 'causes'); // a cycle terminates
    expect((await s.neighbors(a, { depth: 5 })).results.length).toBeGreaterThan(0);
    const graph = await s.subgraph([a], { depth: 2 });
    expect(graph.edges).toEqual(expect.arrayContaining([[a, b, 'refines'], [b, c, 'related']]));
    expect((await s.findPath(a, c)).found).toBe(true);
    await s.forget(b);
    expect((await s.neighbors(a, { direction: 'out' })).dangling).toEqual([{ from: a, to: b, rel: 'refines' }]);
    expect(await s.unlink(a, b)).toBe(1);
    await expect(s.link(a, a)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.link(a, 'missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.link(a, c, '  ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await s.close();
  });

  it('recall expansion appends linked examples after the top k', async () => {
    const s = await store();
    const [rule, example] = (await s.rememberMany(['deploy rule always tag releases', 'unrelated words entirely elsewhere'])).map((r) => r.memory.id) as [string, string];
    await s.link(rule, example, 'example_of');
    const hits = await s.recall('deploy rule always tag releases', { k: 1, expand: true, touch: false });
    expect(hits.map((h) => h.memory.id)).toEqual([rule, example]);
    expect(hits[1]).toMatchObject({ score: 0.7, expandedFrom: { id: rule, rel: 'example_of', hop: 1 } });
    await s.close();
  });
});

describe('supersede and restore', () => {
  it('chains show only the head by default; cycles and self are rejected; the pin follows and comes back', async () => {
    const s = await store();
    const [a, b, c] = (await s.rememberMany(['config v1 port 80', 'config v2 port 8080', 'config v3 port 9090'])).map((r) => r.memory.id) as [string, string, string];
    await s.edit(a, { pinned: true });
    await s.supersede(a, b);
    expect((await s.get(b))!.pinned).toBe(true);
    expect((await s.get(a))!.pinned).toBe(false);
    expect((await s.get(b))!.links).toEqual([{ to: a, rel: 'supersedes' }]);
    await s.supersede(b, c);
    await expect(s.supersede(c, a)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.supersede(b, a)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.supersede(a, a)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await s.listRecent()).map((m) => m.id)).toEqual([c]);
    expect((await s.recall('config port', { k: 5 })).map((h) => h.memory.id)).toEqual([c]);
    expect((await s.recall('config port', { k: 5, includeSuperseded: true })).length).toBe(3);
    expect(await s.restore(b)).toEqual({ restored: true, wasSupersededBy: c });
    expect((await s.get(b))!.supersededBy).toBe('');
    expect((await s.get(c))!.links).toEqual([]);
    expect(await s.restore(b)).toEqual({ restored: false, wasSupersededBy: '' });
    await s.close();
  });
});

describe('conflicts at write time', () => {
  it("'warn' (the default) reports duplicate vs contradiction and changes nothing", async () => {
    const s = await store();
    const old = (await s.remember('we deploy on fridays')).memory;
    const dup = await s.remember('we deploy on fridays!');
    expect(dup.conflicts).toMatchObject([{ kind: 'duplicate', reason: 'similarity', b: { id: old.id } }]);
    const contra = await s.remember('we never deploy on fridays', { type: 'semantic' });
    expect(contra.conflicts.map((c) => [c.kind, c.reason])).toContainEqual(['contradiction', 'negation_diff']);
    expect(contra.action).toBe('stored');
    expect(await s.count()).toBe(3);
    await s.close();
  });

  it("'raise' rejects before writing, 'supersede' supersedes contradictions and merges duplicates", async () => {
    const s = await store();
    const old = (await s.remember('the api uses port 8080', { importance: 0.4 })).memory;
    const err = await s.remember('the api never uses port 8080', { onConflict: 'raise' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MemoryError);
    expect(err).toMatchObject({ code: 'CONFLICT', details: { conflicts: [{ kind: 'contradiction', otherId: old.id }] } });
    expect(await s.count()).toBe(1);

    const merged = await s.remember('the api uses port 8080.', { onConflict: 'supersede', importance: 0.9 });
    expect(merged.action).toBe('merged');
    expect(merged.memory.id).toBe(old.id);
    expect((await s.get(old.id))!.importance).toBe(0.9);
    expect(await s.count()).toBe(1);

    const replaced = await s.remember('the api never uses port 8080', { onConflict: 'supersede' });
    expect(replaced.action).toBe('superseded');
    expect((await s.get(old.id))!.supersededBy).toBe(replaced.memory.id);
    await s.close();
  });

  it('the custom contradiction function is consulted only when polarity and negation did not decide', async () => {
    const calls: string[] = [];
    const s = await store({ conflicts: { contradictionFn: async (a, b) => (calls.push(`${a.text}|${b.text}`), a.text.includes('tea')) } });
    await s.remember('the team drinks coffee daily');
    await s.remember('the team never drinks coffee daily');
    expect(calls).toEqual([]);
    const r = await s.remember('the team drinks coffee daily tea');
    expect(calls.length).toBe(1);
    expect(r.conflicts.map((c) => c.reason)).toContain('custom_fn');
    await s.close();
  });

  it("the classifier hook under 'supersede' supersedes on UPDATE, inherits importance, and pins on CONTRADICTION of a pinned memory", async () => {
    const s = await store({ conflicts: { policy: 'supersede', classifier: (existing, incoming) => (incoming.text.includes('now') ? 'UPDATE' : 'CONTRADICTION') } });
    const old = (await s.remember('the office is in berlin', { importance: 0.8, pinned: true })).memory;
    const update = await s.remember('the office is in berlin now', { importance: 0.3 });
    expect(update.action).toBe('superseded');
    expect(update.memory).toMatchObject({ importance: 0.8, pinned: false });
    expect((await s.get(old.id))).toMatchObject({ supersededBy: update.memory.id, pinned: false });
    await s.close();

    const t = await store({ conflicts: { classifier: () => 'CONTRADICTION' } });
    await t.remember('the office is in paris', { importance: 0.9, pinned: true });
    const c = await t.remember('the office is in paris', { importance: 0.2, onConflict: 'supersede' });
    expect(c.memory).toMatchObject({ importance: 0.9, pinned: true });
    await t.close();
  });
});

describe('the review queue', () => {
  it('stores the new memory, queues the pair, survives a reopen, and applies each decision', async () => {
    const name = uniqueName('review');
    let s = await store({ name, conflicts: { policy: 'review' } });
    const old = (await s.remember('standup is at nine')).memory;
    const fresh = await s.remember('standup is not at nine');
    expect(fresh.action).toBe('queued');
    const dup = await s.remember('standup is at nine.');
    expect(dup.action).toBe('queued');
    await s.close();

    s = await store({ name, conflicts: { policy: 'review' } });
    const all = await s.listPendingConflicts();
    const find = (newId: string, oldId: string) => all.find((p) => p.newId === newId && p.oldId === oldId)!;
    const pending = [find(fresh.memory.id, old.id), find(dup.memory.id, old.id)];
    expect(pending.map((p) => p.kind)).toEqual(['contradiction', 'duplicate']);
    // The duplicate also contradicts the queued "not at nine" memory: a third question.
    expect(find(dup.memory.id, fresh.memory.id).kind).toBe('contradiction');
    expect(pending[0]).toMatchObject({ reason: 'negation_diff', new: { text: 'standup is not at nine' }, old: { text: 'standup is at nine' } });
    expect((await s.get(old.id))!.supersededBy).toBe('');

    await s.resolveConflict(pending[0]!.id, 'keep_both');
    expect((await s.get(fresh.memory.id))!.links).toEqual([{ to: old.id, rel: 'contradicts' }]);
    await s.resolveConflict(pending[1]!.id, 'drop_new');
    expect(await s.get(dup.memory.id)).toBeNull();
    await expect(s.resolveConflict(pending[0]!.id, 'supersede')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(s.resolveConflict('nope', 'supersede')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.resolveConflict(pending[0]!.id, 'maybe' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await s.listPendingConflicts()).toEqual([]);

    const again = await s.remember('standup is never at nine');
    const [record] = (await s.listPendingConflicts()).filter((p) => p.newId === again.memory.id);
    await s.resolveConflict(record!.id, 'supersede');
    expect((await s.get(record!.oldId))!.supersededBy).toBe(again.memory.id);
    await s.close();
  });

  it('findConflicts scans the whole store through the index', async () => {
    const s = await store({ conflicts: { policy: 'ignore' } });
    await s.rememberMany(['cats are friendly pets', 'cats are not friendly pets', 'dogs bark at night']);
    const all = await s.findConflicts();
    expect(all.map((c) => c.kind)).toEqual(['contradiction']);
    const one = await s.findConflicts({ memoryId: all[0]!.a.id });
    expect(one.length).toBe(1);
    await expect(s.findConflicts({ memoryId: 'missing' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await s.close();
  });
});
