import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  checkReflectOptions,
  clusterMemories,
  EXTRACTIVE_SUMMARY_LIMIT,
  extractiveSummary,
  isReflectCandidate,
  memoryLevel,
  planReflection,
  pyMean,
  pyRound3,
  summarizeCluster,
  summaryMemoryFields,
  worstTrust,
  type ReflectItem,
} from '../src/core/domain/reflect.ts';
import { codePointLength } from '../src/core/domain/recall-pack.ts';
import type { Memory } from '../src/core/types.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';

/** A unit vector at `deg` degrees in the plane (cos between two = cos of the angle between them). */
const at = (deg: number): Float32Array => new Float32Array([Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180), 0]);

let clock = 0;
/** Episodic memory; creation order follows the call order unless overridden. */
function ep(id: string, importance: number, over: Partial<Memory> = {}): Memory {
  clock++;
  return makeMemory(id, `text ${id}`, { type: 'episodic', importance, createdAt: NOW - 1000 + clock, ...over });
}
const item = (memory: Memory, vector: Float32Array): ReflectItem => ({ memory, vector });
const ids = (clusters: Memory[][]): string[][] => clusters.map((c) => c.map((m) => m.id));

function expectCode(fn: () => unknown, code: string, field?: string): void {
  try {
    fn();
  } catch (e) {
    expect(MemoryError.isMemoryError(e)).toBe(true);
    expect((e as MemoryError).code).toBe(code);
    if (field) expect((e as MemoryError).details.field).toBe(field);
    return;
  }
  throw new Error(`expected ${code}`);
}

describe('clusterMemories', () => {
  it('groups by cosine to the seed, seeds by descending importance, seed first', () => {
    const a = ep('a', 0.9);
    const b = ep('b', 0.5);
    const c = ep('c', 0.7);
    const d = ep('d', 0.3);
    const items = [item(a, at(0)), item(b, at(10)), item(c, at(90)), item(d, at(95))];
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['a', 'b'], ['c', 'd']]);
  });

  it('absorbs by similarity to the seed only (no chaining), so the seed choice matters', () => {
    // cos(a,b) = cos 36.87° = 0.8, cos(b,c) = 0.8, cos(a,c) = cos 73.74° = 0.28
    const angleB = (Math.acos(0.8) * 180) / Math.PI;
    const a = ep('a', 0.9);
    const b = ep('b', 0.5);
    const c = ep('c', 0.4);
    const items = [item(a, at(0)), item(b, at(angleB)), item(c, at(2 * angleB))];
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['a', 'b']]); // c is left alone, then dropped
    // With b the most important, it seeds and takes both neighbours (after it, in creation order).
    const b2 = { ...b, importance: 0.95 };
    const items2 = [item(a, at(0)), item(b2, at(angleB)), item(c, at(2 * angleB))];
    expect(ids(clusterMemories(items2, { now: NOW }))).toEqual([['b', 'a', 'c']]);
  });

  it('uses cos ≥ threshold (inclusive) and honours a custom threshold', () => {
    const a = ep('a', 0.9);
    const b = ep('b', 0.5);
    const exact = new Float32Array([0.75, Math.sqrt(1 - 0.75 * 0.75), 0]);
    const items = [item(a, new Float32Array([1, 0, 0])), item(b, exact)];
    expect(ids(clusterMemories(items, { now: NOW, threshold: 0.74 }))).toEqual([['a', 'b']]);
    expect(clusterMemories(items, { now: NOW, threshold: 0.76 })).toEqual([]);
  });

  it('polarity guard: skips members whose non-zero polarity opposes the cluster polarity', () => {
    // Seed neutral; the first non-zero polarity absorbed (x, +1, created first) sets the cluster's.
    const s = ep('s', 0.9, { polarity: 0 });
    const x = ep('x', 0.5, { polarity: 1 });
    const y = ep('y', 0.6, { polarity: -1 });
    const z = ep('z', 0.4, { polarity: 0 });
    const w = ep('w', 0.3, { polarity: -1 });
    const items = [item(s, at(0)), item(x, at(2)), item(y, at(4)), item(z, at(6)), item(w, at(8))];
    // Seeds: s (0.9) takes x (+1), skips y (−1), takes z (0), skips w (−1). Then y (0.6) seeds and takes w.
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['s', 'x', 'z'], ['y', 'w']]);
  });

  it('polarity guard: a polar seed sets the cluster polarity', () => {
    const s = ep('s', 0.9, { polarity: -1 });
    const x = ep('x', 0.5, { polarity: 1 });
    const y = ep('y', 0.4, { polarity: -1 });
    const items = [item(s, at(0)), item(x, at(1)), item(y, at(2))];
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['s', 'y']]);
  });

  it('drops clusters smaller than minClusterSize, and their members stay used', () => {
    const a = ep('a', 0.9);
    const b = ep('b', 0.8);
    const c = ep('c', 0.7);
    const d = ep('d', 0.6);
    const e = ep('e', 0.5);
    // a takes b (cos 10° = 0.985) but not c, d, e (cos 45° = 0.707 < 0.75); c then takes d and e.
    const items = [item(a, at(0)), item(b, at(10)), item(c, at(45)), item(d, at(50)), item(e, at(55))];
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    expect(ids(clusterMemories(items, { now: NOW, minClusterSize: 3 }))).toEqual([['c', 'd', 'e']]);
    expect(clusterMemories(items, { now: NOW, minClusterSize: 4 })).toEqual([]);
    // minClusterSize 1 keeps singletons.
    expect(ids(clusterMemories([item(a, at(0)), item(c, at(90))], { now: NOW, minClusterSize: 1 }))).toEqual([['a'], ['c']]);
  });

  it('filters candidates: type, superseded, expired, level tag below maxLevel', () => {
    const live = ep('live', 0.9);
    const sup = ep('sup', 0.8, { supersededBy: 'x' });
    const exp = ep('exp', 0.8, { expiresAt: NOW });
    const notYet = ep('notyet', 0.7, { expiresAt: NOW + 10 });
    const sem = ep('sem', 0.8, { type: 'semantic' });
    const lvl1 = ep('lvl1', 0.8, { tags: ['level:1'] });
    const items = [live, sup, exp, notYet, sem, lvl1].map((m, i) => item(m, at(i)));
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['live', 'notyet']]);
    expect(ids(clusterMemories(items, { now: NOW, maxLevel: 2 }))).toEqual([['live', 'notyet', 'lvl1']]);
    expect(ids(clusterMemories(items, { now: NOW, types: ['episodic', 'semantic'] }))).toEqual([['live', 'notyet', 'sem']]);
    expect(isReflectCandidate(lvl1, NOW, { maxLevel: 2 })).toBe(true);
    expect(isReflectCandidate(exp, NOW - 1)).toBe(true);
  });

  it('does not depend on the order of the input', () => {
    const ms = [ep('a', 0.5), ep('b', 0.5), ep('c', 0.9, { polarity: 1 }), ep('d', 0.5, { polarity: -1 }), ep('e', 0.2)];
    const items = ms.map((m, i) => item(m, at(i * 3)));
    const expected = ids(clusterMemories(items, { now: NOW }));
    expect(expected).toEqual([['c', 'a', 'b', 'e']]); // d opposes c's +1 and is left alone
    expect(ids(clusterMemories([...items].reverse(), { now: NOW }))).toEqual(expected);
    expect(ids(clusterMemories([items[2]!, items[4]!, items[0]!, items[3]!, items[1]!], { now: NOW }))).toEqual(expected);
  });

  it('breaks importance ties by createdAt, then id', () => {
    const old = ep('z-old', 0.5, { createdAt: NOW - 10 * DAY });
    const young = ep('a-young', 0.5, { createdAt: NOW - DAY });
    const same1 = ep('m2', 0.5, { createdAt: NOW - 5 * DAY });
    const same2 = ep('m1', 0.5, { createdAt: NOW - 5 * DAY });
    const items = [item(young, at(0)), item(old, at(1)), item(same1, at(2)), item(same2, at(3))];
    expect(ids(clusterMemories(items, { now: NOW }))).toEqual([['z-old', 'm1', 'm2', 'a-young']]);
  });

  it('treats a zero vector as dissimilar and rejects mixed dimensions and duplicate ids', () => {
    const a = ep('a', 0.9);
    const b = ep('b', 0.5);
    expect(clusterMemories([item(a, at(0)), item(b, new Float32Array(3))], { now: NOW })).toEqual([]);
    expectCode(() => clusterMemories([item(a, at(0)), item(b, new Float32Array(4))], { now: NOW }), 'DIMENSION_MISMATCH');
    expectCode(() => clusterMemories([item(a, at(0)), item(a, at(1))], { now: NOW }), 'INVALID_ARGUMENT', 'items');
    expectCode(() => clusterMemories([{ memory: a, vector: [1, 0, 0] as never }], { now: NOW }), 'INVALID_ARGUMENT', 'vector');
  });

  it('validates options, naming the field', () => {
    expectCode(() => clusterMemories([], { now: NOW, threshold: 1.5 }), 'INVALID_ARGUMENT', 'threshold');
    expectCode(() => clusterMemories([], { now: NOW, minClusterSize: 0 }), 'INVALID_ARGUMENT', 'minClusterSize');
    expectCode(() => clusterMemories([], { now: NOW, maxLevel: 0 }), 'INVALID_ARGUMENT', 'maxLevel');
    expectCode(() => clusterMemories([], { now: NOW, types: [] }), 'INVALID_ARGUMENT', 'types');
    expectCode(() => clusterMemories([], { now: NOW, types: ['dream' as never] }), 'INVALID_ARGUMENT', 'types');
    expectCode(() => clusterMemories([], {} as never), 'INVALID_ARGUMENT', 'now');
    expectCode(() => clusterMemories([], { now: NOW, similarity_threshold: 0.8 } as never), 'INVALID_ARGUMENT', 'options');
    expect(checkReflectOptions(undefined)).toEqual({ threshold: 0.75, minClusterSize: 2, types: ['episodic'], maxLevel: 1 });
  });
});

describe('memoryLevel', () => {
  it('reads the largest well-formed level:N tag, 0 without one', () => {
    expect(memoryLevel(makeMemory('m', 't'))).toBe(0);
    expect(memoryLevel(makeMemory('m', 't', { tags: ['x', 'level:2', 'level:1'] }))).toBe(2);
    expect(memoryLevel(makeMemory('m', 't', { tags: ['level:x', 'Level:3', 'level:'] }))).toBe(0);
  });
});

describe('extractiveSummary', () => {
  it('prefixes [Reflection ×N] and joins texts by importance descending', () => {
    const ms = [
      makeMemory('a', 'alpha', { importance: 0.5 }),
      makeMemory('b', 'beta', { importance: 0.9 }),
      makeMemory('c', 'gamma', { importance: 0.5 }),
    ];
    expect(extractiveSummary(ms)).toBe('[Reflection ×3] beta | alpha | gamma'); // ties keep cluster order
  });

  it('truncates to 512 code points', () => {
    const long = [makeMemory('a', 'x'.repeat(400), { importance: 0.9 }), makeMemory('b', 'y'.repeat(400), { importance: 0.1 })];
    const text = extractiveSummary(long);
    expect(text.length).toBe(EXTRACTIVE_SUMMARY_LIMIT);
    expect(text.startsWith(`[Reflection ×2] ${'x'.repeat(400)} | y`)).toBe(true);
    // Astral characters count once each (Python slices code points) and are never split.
    const emoji = [makeMemory('a', '😀'.repeat(600))];
    const cut = extractiveSummary(emoji);
    expect(codePointLength(cut)).toBe(512);
    expect(cut.endsWith('😀')).toBe(true);
    expect(cut).toBe(`[Reflection ×1] ${'😀'.repeat(512 - 16)}`);
  });

  it('leaves short summaries alone', () => {
    expect(extractiveSummary([makeMemory('a', 'é'.repeat(10))])).toBe(`[Reflection ×1] ${'é'.repeat(10)}`);
  });
});

describe('summaryMemoryFields', () => {
  const cluster = (): Memory[] => [
    ep('s', 0.9, { tags: ['deploy', 'api'], trust: 'trusted', pinned: true }),
    ep('m1', 0.5, { tags: ['api', 'prod', 'reflection'], trust: 'reported' }),
    ep('m2', 0.6, { tags: ['Deploy'], trust: 'trusted' }),
  ];

  it("builds the reference's summary row", () => {
    const f = summaryMemoryFields(cluster(), '  [Reflection ×3] s | m2 | m1  ');
    expect(f).toEqual({
      text: '[Reflection ×3] s | m2 | m1',
      type: 'semantic',
      tags: ['reflection', 'level:1', 'deploy', 'api', 'prod', 'Deploy'],
      importance: 0.667, // round((0.9 + 0.5 + 0.6) / 3, 3)
      source: 'reflection',
      trust: 'reported',
      pinned: false, // no consolidation: the pinned source stays, so does its pin
      polarity: 0,
      links: [],
    });
  });

  it('soft consolidation: pin follows, supersedes then derived_from per source in cluster order', () => {
    const f = summaryMemoryFields(cluster(), 'summary', { consolidate: 'soft' });
    expect(f.pinned).toBe(true);
    expect(f.links).toEqual([
      { to: 's', rel: 'supersedes' }, { to: 's', rel: 'derived_from' },
      { to: 'm1', rel: 'supersedes' }, { to: 'm1', rel: 'derived_from' },
      { to: 'm2', rel: 'supersedes' }, { to: 'm2', rel: 'derived_from' },
    ]);
  });

  it('hard consolidation: pin follows, no links (the sources are deleted)', () => {
    const f = summaryMemoryFields(cluster(), 'summary', { consolidate: 'hard' });
    expect(f.pinned).toBe(true);
    expect(f.links).toEqual([]);
    const unpinned = cluster().map((m) => ({ ...m, pinned: false }));
    expect(summaryMemoryFields(unpinned, 'summary', { consolidate: 'hard' }).pinned).toBe(false);
  });

  it('dry run uses the source reflection/dry-run', () => {
    expect(summaryMemoryFields(cluster(), 'summary', { dryRun: true }).source).toBe('reflection/dry-run');
  });

  it('tags the next level and drops member level tags', () => {
    const ms = [ep('a', 0.4, { tags: ['level:1', 'topic', 'reflection'] }), ep('b', 0.4, { tags: ['topic', 'level:0'] })];
    expect(summaryMemoryFields(ms, 'x').tags).toEqual(['reflection', 'level:2', 'topic']);
  });

  it('trust is the worst of the members', () => {
    const ms = [ep('a', 0.4, { trust: 'trusted' }), ep('b', 0.4, { trust: 'untrusted' }), ep('c', 0.4, { trust: 'reported' })];
    expect(summaryMemoryFields(ms, 'x').trust).toBe('untrusted');
    expect(worstTrust([])).toBe('trusted');
    expect(worstTrust(['trusted', 'bogus'])).toBe('untrusted'); // unknown fails safe
    expect(worstTrust(['', 'reported'])).toBe('reported'); // absent ranks trusted
  });

  it('rounds the mean importance like Python round(x, 3), ties to even', () => {
    expect(summaryMemoryFields([ep('a', 0.125), ep('b', 0)], 'x').importance).toBe(0.062); // 0.0625 → 0.062
    expect(summaryMemoryFields([ep('a', 0.25), ep('b', 0.125)], 'x').importance).toBe(0.188); // 0.1875 → 0.188
    expect(pyRound3(0.0005)).toBe(0.001); // the double is slightly above the half
    expect(pyRound3(0.1235)).toBe(0.123); // the double 0.12349999… is below the half
    expect(pyRound3(0.4445)).toBe(0.445); // the double 0.44450000…06 is above it
    expect(pyRound3(1.0005)).toBe(1);
    expect(pyRound3(1)).toBe(1);
    expect(pyRound3(-0.0625)).toBe(-0.062);
    expect(pyMean([0.1, 0.2, 0.3])).toBeCloseTo(0.2, 15);
    expect(pyMean([])).toBe(0);
  });

  it('validates its input, naming the field', () => {
    expectCode(() => summaryMemoryFields([], 'x'), 'INVALID_ARGUMENT', 'cluster');
    expectCode(() => summaryMemoryFields(cluster(), '   '), 'INVALID_ARGUMENT', 'summaryText');
    expectCode(() => summaryMemoryFields(cluster(), 'x', { consolidate: true as never }), 'INVALID_ARGUMENT', 'consolidate');
    expectCode(() => summaryMemoryFields(cluster(), 'x', { dryRun: 'yes' as never }), 'INVALID_ARGUMENT', 'dryRun');
  });
});

describe('summarizeCluster and planReflection', () => {
  const items = (): ReflectItem[] => [
    item(ep('a', 0.9, { tags: ['t1'] }), at(0)),
    item(ep('b', 0.5, { tags: ['t2'] }), at(5)),
    item(ep('c', 0.7), at(90)),
    item(ep('d', 0.3, { pinned: true }), at(92)),
  ];

  it('defaults to the extractive summary; a sync or async summarizer replaces it', async () => {
    const ms = items().map((i) => i.memory);
    expect(await summarizeCluster(ms)).toBe(extractiveSummary(ms));
    expect(await summarizeCluster(ms, (c) => `sync ${c.length}`)).toBe('sync 4');
    expect(await summarizeCluster(ms, async (c) => `async ${c[0]!.id}`)).toBe('async a');
  });

  it('rejects a summarizer result that is not a non-blank string, and propagates its errors', async () => {
    const ms = items().map((i) => i.memory);
    await expect(summarizeCluster(ms, () => '  ')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'summarizer' } });
    await expect(summarizeCluster(ms, () => 42 as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(summarizeCluster(ms, async () => { throw new Error('llm down'); })).rejects.toThrow('llm down');
  });

  it('plans one summary per cluster with the consolidation to apply', async () => {
    const none = await planReflection(items(), { now: NOW });
    expect(none.map((p) => p.cluster.map((m) => m.id))).toEqual([['a', 'b'], ['c', 'd']]);
    expect(none[0]!.summary.text).toBe('[Reflection ×2] text a | text b');
    expect(none[0]!.summary.tags).toEqual(['reflection', 'level:1', 't1', 't2']);
    expect(none[0]!.summary.importance).toBe(0.7);
    expect(none.every((p) => p.supersede.length === 0 && p.forget.length === 0)).toBe(true);
    expect(none[1]!.summary.pinned).toBe(false);

    const soft = await planReflection(items(), { now: NOW, consolidate: 'soft' });
    expect(soft.map((p) => p.supersede)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(soft[1]!.summary.pinned).toBe(true);
    expect(soft[1]!.summary.links.map((l) => `${l.rel}:${l.to}`)).toEqual(['supersedes:c', 'derived_from:c', 'supersedes:d', 'derived_from:d']);

    const hard = await planReflection(items(), { now: NOW, consolidate: 'hard', summarizer: async (c) => `S${c.length}` });
    expect(hard.map((p) => p.forget)).toEqual([['a', 'b'], ['c', 'd']]);
    expect(hard.map((p) => p.summary.text)).toEqual(['S2', 'S2']);

    const dry = await planReflection(items(), { now: NOW, consolidate: 'soft', dryRun: true });
    expect(dry.every((p) => p.supersede.length === 0 && p.summary.source === 'reflection/dry-run')).toBe(true);
  });

  it('validates plan options', async () => {
    await expect(planReflection(items(), { now: NOW, consolidate: 'medium' as never })).rejects.toMatchObject({ details: { field: 'consolidate' } });
    await expect(planReflection(items(), { now: NOW, summarizer: 'llm' as never })).rejects.toMatchObject({ details: { field: 'summarizer' } });
  });
});
