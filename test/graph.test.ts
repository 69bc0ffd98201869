import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  addLink,
  checkDirection,
  checkLinkRequest,
  checkRel,
  createMemoryGraphReader,
  diffLinks,
  edgesOf,
  expandHits,
  findPath,
  LINK_VOCABULARY,
  MAX_REL_LENGTH,
  neighbors,
  planRestore,
  planSupersede,
  removeLinks,
  subgraph,
  type GraphReader,
} from '../src/core/domain/graph.ts';
import type { Link, Memory } from '../src/core/types.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid, expectInvalidAsync } from './helpers/expect.ts';

/** A memory with outgoing links given as `[to, rel]` pairs. */
function node(id: string, links: [string, string][] = [], over: Partial<Memory> = {}): Memory {
  return makeMemory(id, `memory ${id}`, { links: links.map(([to, rel]) => ({ to, rel })), ...over });
}

function graph(...memories: Memory[]): GraphReader {
  return createMemoryGraphReader(memories);
}

/** A reader that counts its calls. */
function counting(reader: GraphReader): GraphReader & { calls: { get: number; outgoing: number; incoming: number } } {
  const calls = { get: 0, outgoing: 0, incoming: 0 };
  return {
    calls,
    get: (ids) => (calls.get++, reader.get(ids)),
    outgoing: (id) => (calls.outgoing++, reader.outgoing(id)),
    incoming: (id) => (calls.incoming++, reader.incoming(id)),
  };
}



const ids = (hits: { memory: Memory }[]): string[] => hits.map((h) => h.memory.id);

describe('rel validation', () => {
  it('accepts the vocabulary and open custom relations', () => {
    for (const rel of LINK_VOCABULARY) expect(checkRel(rel)).toBe(rel);
    expect(LINK_VOCABULARY).toEqual(
      expect.arrayContaining(['supersedes', 'refines', 'derived_from', 'example_of', 'contradicts', 'related', 'causes', 'supports', 'promoted_from']),
    );
    expect(checkRel('blocked-by')).toBe('blocked-by');
    expect(checkRel('x'.repeat(MAX_REL_LENGTH))).toHaveLength(64);
  });

  it('rejects blank, control characters, overlong and non-strings with INVALID_ARGUMENT', () => {
    expectInvalid(() => checkRel(''), 'rel');
    expectInvalid(() => checkRel('   \t'), 'rel');
    expectInvalid(() => checkRel('refines\n'), 'rel');
    expectInvalid(() => checkRel('a\u0000b'), 'rel');
    expectInvalid(() => checkRel('a\u0085b'), 'rel');
    expectInvalid(() => checkRel('x'.repeat(MAX_REL_LENGTH + 1)), 'rel');
    expectInvalid(() => checkRel(42), 'rel');
    expectInvalid(() => checkRel(null), 'rel');
  });

  it('validates link requests: ids, rel, no self-link', () => {
    expect(checkLinkRequest('a', 'b')).toEqual({ from: 'a', to: 'b', rel: 'related' });
    expect(checkLinkRequest('a', 'b', 'causes')).toEqual({ from: 'a', to: 'b', rel: 'causes' });
    expectInvalid(() => checkLinkRequest('a', 'a'), 'dstId');
    expectInvalid(() => checkLinkRequest('', 'b'), 'srcId');
    expectInvalid(() => checkLinkRequest('a', 'b', ' '), 'rel');
  });

  it('rejects bad directions, depths and option keys in traversals', async () => {
    expectInvalid(() => checkDirection('sideways'), 'direction');
    const g = graph(node('a', [['b', 'related']]), node('b'));
    await expectInvalidAsync(neighbors(g, 'a', { rel: '' }), 'rel');
    await expectInvalidAsync(neighbors(g, 'a', { direction: 'up' as never }), 'direction');
    await expectInvalidAsync(neighbors(g, 'a', { depth: 1.5 }), 'depth');
    await expectInvalidAsync(neighbors(g, 'a', { dept: 2 } as never), 'options');
    await expectInvalidAsync(neighbors(g, ''), 'id');
    await expectInvalidAsync(subgraph(g, ['a'], { depth: Number.NaN }), 'depth');
    await expectInvalidAsync(findPath(g, 'a', 'b', { maxDepth: 'x' as never }), 'maxDepth');
    await expectInvalidAsync(expandHits(g, [], { rels: ['refines', '\u0007'] }), 'rels');
    await expectInvalidAsync(expandHits(g, [], { score: Number.POSITIVE_INFINITY }), 'score');
  });
});

describe('link editing', () => {
  it('round-trips link / neighbors / unlink, idempotent per (dst, rel)', async () => {
    const a = node('a');
    const b = node('b');
    let links: Link[] = a.links;
    let r = addLink(links, 'b', 'refines');
    expect(r.added).toBe(true);
    links = r.links;
    r = addLink(links, 'b', 'refines');
    expect(r.added).toBe(false);
    expect(r.links).toEqual([{ to: 'b', rel: 'refines' }]);
    links = addLink(links, 'b', 'example_of').links;
    expect(a.links).toEqual([]); // input not mutated

    const linked = graph({ ...a, links }, b);
    const out = await neighbors(linked, 'a');
    expect(out.results.map((h) => [h.memory.id, h.rel])).toEqual([
      ['b', 'refines'],
      ['b', 'example_of'],
    ]);

    const one = removeLinks(links, 'b', 'refines');
    expect(one.removedRels).toEqual(['refines']);
    expect(one.links).toEqual([{ to: 'b', rel: 'example_of' }]);
    const all = removeLinks(links, 'b');
    expect(all.removedRels).toEqual(['refines', 'example_of']);
    expect(all.links).toEqual([]);
    expect(removeLinks(links, 'zzz').removedRels).toEqual([]);
    const unlinked = graph({ ...a, links: all.links }, b);
    expect((await neighbors(unlinked, 'a')).results).toEqual([]);
  });

  it('diffs links into edge-index changes', () => {
    expect(edgesOf(node('a', [['b', 'refines']]))).toEqual([{ from: 'a', to: 'b', rel: 'refines' }]);
    const before = [
      { to: 'b', rel: 'refines' },
      { to: 'c', rel: 'related' },
    ];
    const after = [
      { to: 'c', rel: 'related' },
      { to: 'b', rel: 'supports' },
    ];
    expect(diffLinks('a', before, after)).toEqual({
      added: [{ from: 'a', to: 'b', rel: 'supports' }],
      removed: [{ from: 'a', to: 'b', rel: 'refines' }],
    });
    expect(diffLinks('a', null, before).added).toHaveLength(2);
    expect(diffLinks('a', before, undefined).removed).toHaveLength(2);
  });
});

describe('neighbors', () => {
  it('respects direction', async () => {
    const g = graph(node('a', [['b', 'refines']]), node('b'));
    expect(ids((await neighbors(g, 'a', { direction: 'out' })).results)).toEqual(['b']);
    expect((await neighbors(g, 'b', { direction: 'out' })).results).toEqual([]);
    const incoming = await neighbors(g, 'b', { direction: 'in' });
    expect(incoming.results.map((h) => [h.memory.id, h.rel, h.direction, h.hop])).toEqual([['a', 'refines', 'in', 1]]);
    expect((await neighbors(g, 'a', { direction: 'in' })).results).toEqual([]);
    expect(ids((await neighbors(g, 'b')).results)).toEqual(['a']);
    expect((await neighbors(g, 'a')).results[0]).toMatchObject({ rel: 'refines', direction: 'out', hop: 1 });
  });

  it('walks up to depth hops, one result per node, and depth ≤ 0 is empty', async () => {
    const g = graph(node('a', [['b', 'related']]), node('b', [['c', 'related']]), node('c', [['d', 'related']]), node('d'));
    const d1 = await neighbors(g, 'a', { direction: 'out' });
    expect(d1.results.map((h) => [h.memory.id, h.hop])).toEqual([['b', 1]]);
    const d2 = await neighbors(g, 'a', { direction: 'out', depth: 2 });
    expect(d2.results.map((h) => [h.memory.id, h.hop])).toEqual([
      ['b', 1],
      ['c', 2],
    ]);
    const d9 = await neighbors(g, 'a', { direction: 'out', depth: 9 });
    expect(ids(d9.results)).toEqual(['b', 'c', 'd']);
    expect((await neighbors(g, 'a', { depth: 0 })).results).toEqual([]);
    expect((await neighbors(g, 'a', { depth: -3 })).results).toEqual([]);
    // both directions from the middle
    const mid = await neighbors(g, 'c', { depth: 2 });
    expect(mid.results.map((h) => [h.memory.id, h.hop, h.direction])).toEqual([
      ['d', 1, 'out'],
      ['b', 1, 'in'],
      ['a', 2, 'in'],
    ]);
  });

  it('terminates on cycles and visits each node once', async () => {
    const two = graph(node('a', [['b', 'related']]), node('b', [['a', 'related']]));
    const r = await neighbors(two, 'a', { depth: 5 });
    expect(ids(r.results)).toEqual(['b']);

    const tri = counting(graph(node('a', [['b', 'causes']]), node('b', [['c', 'causes']]), node('c', [['a', 'causes']])));
    const t = await neighbors(tri, 'a', { depth: 50 });
    expect(ids(t.results).sort()).toEqual(['b', 'c']);
    expect(new Set(ids(t.results)).size).toBe(t.results.length);
    // each node is expanded at most once per direction
    expect(tri.calls.outgoing).toBeLessThanOrEqual(3);
  });

  it('reports dangling targets instead of throwing', async () => {
    const g = graph(node('a', [['ghost', 'refines'], ['b', 'refines'], ['ghost', 'related']]), node('b', [['ghost', 'refines']]));
    const r = await neighbors(g, 'a', { direction: 'out', depth: 2 });
    expect(ids(r.results)).toEqual(['b']);
    expect(r.dangling).toEqual([
      { from: 'a', to: 'ghost', rel: 'refines' },
      { from: 'a', to: 'ghost', rel: 'related' },
      { from: 'b', to: 'ghost', rel: 'refines' },
    ]);
    const filtered = await neighbors(g, 'a', { rel: 'related', direction: 'out' });
    expect(filtered.results).toEqual([]);
    expect(filtered.dangling).toEqual([{ from: 'a', to: 'ghost', rel: 'related' }]);
  });

  it('reports one result per parallel edge, and filters by rel', async () => {
    const g = graph(node('a', [['b', 'refines'], ['c', 'related'], ['b', 'supports']]), node('b'), node('c'), node('x', [['a', 'causes'], ['a', 'supports']]));
    const out = await neighbors(g, 'a', { direction: 'out' });
    expect(out.results.map((h) => [h.memory.id, h.rel])).toEqual([
      ['b', 'refines'],
      ['b', 'supports'],
      ['c', 'related'],
    ]);
    const inc = await neighbors(g, 'a', { direction: 'in' });
    expect(inc.results.map((h) => [h.memory.id, h.rel])).toEqual([
      ['x', 'causes'],
      ['x', 'supports'],
    ]);
    const supports = await neighbors(g, 'a', { rel: 'supports' });
    expect(supports.results.map((h) => [h.memory.id, h.rel, h.direction])).toEqual([
      ['b', 'supports', 'out'],
      ['x', 'supports', 'in'],
    ]);
  });

  it('a node reached out-going is not reported again in-coming', async () => {
    const g = graph(node('a', [['b', 'related']]), node('b', [['a', 'contradicts']]));
    const r = await neighbors(g, 'a');
    expect(r.results.map((h) => [h.memory.id, h.rel, h.direction])).toEqual([['b', 'related', 'out']]);
  });
});

describe('subgraph', () => {
  it('expands diamonds with the best remaining budget', async () => {
    // a→b→c, a→c, c→d at depth 2: c is first reached via b with 0 hops left, then via a with 1.
    const g = graph(node('a', [['b', 'related'], ['c', 'related']]), node('b', [['c', 'related']]), node('c', [['d', 'related']]), node('d', [['e', 'related']]), node('e'));
    const r = await subgraph(g, ['a'], { depth: 2 });
    expect(r.nodes.map((m) => m.id).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(r.edges).toEqual([
      ['a', 'b', 'related'],
      ['b', 'c', 'related'],
      ['a', 'c', 'related'],
      ['c', 'd', 'related'],
    ]);
    expect(r.dangling).toEqual([]);
  });

  it('follows outgoing links only; depth 0 gives the seeds', async () => {
    const g = graph(node('a', [['b', 'refines']]), node('b'), node('z', [['a', 'refines']]));
    const r = await subgraph(g, ['a']);
    expect(r.nodes.map((m) => m.id)).toEqual(['a', 'b']);
    expect(r.edges).toEqual([['a', 'b', 'refines']]);
    const seeds = await subgraph(g, ['a', 'z'], { depth: 0 });
    expect(seeds.nodes.map((m) => m.id)).toEqual(['a', 'z']);
    expect(seeds.edges).toEqual([]);
  });

  it('keeps edges to unresolved targets and lists them; cycles terminate', async () => {
    const g = graph(node('a', [['ghost', 'related'], ['b', 'related']]), node('b', [['a', 'related']]));
    const r = await subgraph(g, ['a', 'nope'], { depth: 10 });
    expect(r.nodes.map((m) => m.id)).toEqual(['a', 'b']);
    expect(r.edges).toEqual([
      ['a', 'ghost', 'related'],
      ['a', 'b', 'related'],
      ['b', 'a', 'related'],
    ]);
    expect(r.dangling.sort()).toEqual(['ghost', 'nope']);
  });

  it('handles a long chain without recursion limits', async () => {
    const n = 5000;
    const chain = Array.from({ length: n }, (_, i) => node(`n${i}`, i + 1 < n ? [[`n${i + 1}`, 'causes']] : []));
    const r = await subgraph(graph(...chain), ['n0'], { depth: n });
    expect(r.nodes).toHaveLength(n);
    expect(r.edges).toHaveLength(n - 1);
  });
});

describe('findPath', () => {
  const g = graph(
    node('a', [['b', 'refines']]),
    node('b'),
    node('c', [['b', 'example_of'], ['d', 'causes']]),
    node('d'),
    node('lonely'),
  );

  it('finds the shortest undirected path with the rel and direction used', async () => {
    const r = await findPath(g, 'a', 'd');
    expect(r.found).toBe(true);
    expect(r.length).toBe(3);
    expect(r.path).toEqual([
      { id: 'a', rel: '', direction: '' },
      { id: 'b', rel: 'refines', direction: 'out' },
      { id: 'c', rel: 'example_of', direction: 'in' },
      { id: 'd', rel: 'causes', direction: 'out' },
    ]);
    const back = await findPath(g, 'd', 'a');
    expect(back.path.map((s) => s.id)).toEqual(['d', 'c', 'b', 'a']);
  });

  it('same id → length 0; unknown or unreachable → not found', async () => {
    expect(await findPath(g, 'a', 'a')).toEqual({ found: true, length: 0, path: [{ id: 'a', rel: '', direction: '' }] });
    expect(await findPath(g, 'a', 'ghost')).toEqual({ found: false, length: -1, path: [] });
    expect(await findPath(g, 'ghost', 'ghost')).toMatchObject({ found: false });
    expect(await findPath(g, 'a', 'lonely')).toMatchObject({ found: false, path: [] });
  });

  it('honours maxDepth', async () => {
    expect((await findPath(g, 'a', 'd', { maxDepth: 2 })).found).toBe(false);
    expect((await findPath(g, 'a', 'd', { maxDepth: 3 })).length).toBe(3);
    expect((await findPath(g, 'a', 'b', { maxDepth: 0 })).found).toBe(false);
  });

  it('prefers the shortest path and does not pass through forgotten ids', async () => {
    const h = graph(node('s', [['m1', 'related'], ['t', 'supports']]), node('m1', [['t', 'related']]), node('t'));
    expect((await findPath(h, 's', 't')).path.map((p) => p.id)).toEqual(['s', 't']);
    // x and y both link to a forgotten id: that is not a connection.
    const k = graph(node('x', [['gone', 'related']]), node('y', [['gone', 'related']]));
    expect((await findPath(k, 'x', 'y')).found).toBe(false);
  });
});

describe('expandHits', () => {
  it('appends unseen outgoing neighbours of the chosen rels with the configured score', async () => {
    const g = graph(
      node('h1', [['r1', 'refines'], ['x', 'related'], ['h2', 'refines']]),
      node('h2', [['e1', 'example_of']]),
      node('r1'),
      node('x'),
      node('e1'),
      node('in', [['h1', 'refines']]),
    );
    const hits = [{ memory: node('h1') }, { memory: node('h2') }];
    const out = await expandHits(g, hits);
    expect(out.map((h) => [h.memory.id, h.score, h.rel, h.hop, h.from])).toEqual([
      ['r1', 0.7, 'refines', 1, 'h1'],
      ['e1', 0.7, 'example_of', 1, 'h2'],
    ]);
    const custom = await expandHits(g, hits, { rels: ['related'], score: 0.4 });
    expect(custom.map((h) => [h.memory.id, h.score])).toEqual([['x', 0.4]]);
  });

  it('caps the number of added nodes', async () => {
    const g = graph(node('h', [['a', 'refines'], ['b', 'refines'], ['c', 'refines']]), node('a'), node('b'), node('c'));
    expect(ids(await expandHits(g, [{ memory: node('h') }], { cap: 2 }))).toEqual(['a', 'b']);
    expect(await expandHits(g, [{ memory: node('h') }], { cap: 0 })).toEqual([]);
    expect(ids(await expandHits(g, [{ memory: node('h') }]))).toEqual(['a', 'b', 'c']);
  });

  it('decays the score per hop beyond the first', async () => {
    const g = graph(node('h', [['a', 'refines']]), node('a', [['b', 'refines']]), node('b', [['c', 'refines']]), node('c'));
    const out = await expandHits(g, [{ memory: node('h') }], { depth: 3, decay: 0.5, score: 0.8 });
    expect(out.map((h) => [h.memory.id, h.hop, h.score])).toEqual([
      ['a', 1, 0.8],
      ['b', 2, 0.4],
      ['c', 3, 0.2],
    ]);
    expect(ids(await expandHits(g, [{ memory: node('h') }], { depth: 1 }))).toEqual(['a']);
  });

  it('skips superseded targets unless asked, and honours accept', async () => {
    const g = graph(node('h', [['old', 'refines'], ['new', 'refines'], ['exp', 'refines']]), node('old', [], { supersededBy: 'new', supersededAt: NOW }), node('new'), node('exp', [], { expiresAt: 1 }));
    expect(ids(await expandHits(g, [{ memory: node('h') }]))).toEqual(['new', 'exp']);
    expect(ids(await expandHits(g, [{ memory: node('h') }], { includeSuperseded: true }))).toEqual(['old', 'new', 'exp']);
    expect(ids(await expandHits(g, [{ memory: node('h') }], { accept: (m) => m.expiresAt === 0 }))).toEqual(['new']);
  });

  it('never re-adds a hit or a dangling target', async () => {
    const g = graph(node('h1', [['h2', 'refines'], ['ghost', 'refines']]), node('h2', [['h1', 'example_of']]));
    expect(await expandHits(g, [{ memory: node('h1') }, { memory: node('h2') }], { depth: 3 })).toEqual([]);
  });
});

describe('supersede / restore plans', () => {
  it('marks the old row, links new → old supersedes, and the pin follows', () => {
    const old = node('old', [], { pinned: true });
    const next = node('new');
    const plan = planSupersede(old, next, NOW + 5);
    expect(plan.noop).toBe(false);
    expect(plan.pinMoved).toBe(true);
    expect(plan.old).toMatchObject({ supersededBy: 'new', supersededAt: NOW + 5, pinned: false });
    expect(plan.new).toMatchObject({ pinned: true, links: [{ to: 'old', rel: 'supersedes' }] });
    expect(old.supersededBy).toBe(''); // not mutated
    const kept = planSupersede(old, next, NOW, { movePin: false });
    expect(kept.pinMoved).toBe(false);
    expect(kept.old.pinned).toBe(true);
    expect(kept.new.pinned).toBe(false);
  });

  it('rejects self and cycles; repeating is a no-op', () => {
    const a = node('a');
    expectInvalid(() => planSupersede(a, a, NOW), 'newId');
    const b = node('b', [], { supersededBy: 'a' });
    expectInvalid(() => planSupersede(a, b, NOW), 'newId');
    const done = node('x', [], { supersededBy: 'y', supersededAt: NOW });
    expect(planSupersede(done, node('y'), NOW + 1).noop).toBe(true);
  });

  it('restore clears the state, removes the supersedes link and hands the pin back', () => {
    const plan = planSupersede(node('old', [], { pinned: true }), node('new', [['z', 'related']]), NOW);
    const restored = planRestore(plan.old, plan.new, { pinnedFrom: plan.pinMoved })!;
    expect(restored.supersederId).toBe('new');
    expect(restored.pinReturned).toBe(true);
    expect(restored.memory).toMatchObject({ supersededBy: '', supersededAt: 0, pinned: true });
    expect(restored.superseder).toMatchObject({ pinned: false, links: [{ to: 'z', rel: 'related' }] });
    expect(planRestore(node('active'), null)).toBeNull();
    const orphan = planRestore(plan.old, null)!;
    expect(orphan.superseder).toBeNull();
    expect(orphan.memory.supersededBy).toBe('');
  });
});

describe('createMemoryGraphReader', () => {
  it('indexes incoming edges and ignores unknown ids', async () => {
    const g = graph(node('a', [['b', 'refines'], ['ghost', 'related']]), node('b'));
    expect(await g.incoming('b')).toEqual([{ from: 'a', rel: 'refines' }]);
    expect(await g.incoming('ghost')).toEqual([{ from: 'a', rel: 'related' }]);
    expect(await g.outgoing('nope')).toEqual([]);
    expect([...(await g.get(['a', 'nope'])).keys()]).toEqual(['a']);
  });
});
