/**
 * Memory health: the Elefante V5 correctness properties (seed 004 §5) as property tests, plus unit
 * tests for the status rules, potential conflicts and the reference health report.
 *
 * - Property 3 (Health Exhaustiveness): every memory gets exactly one status of the four.
 * - Property 4 (Health Determinism): identical inputs give identical output (also across input order).
 * - Property 5 (Conflict Symmetry): detect(A, B) reports iff detect(B, A) does, with the same report.
 * - Property 6 (Conflict Soft-Flag): detected pairs are reported as potential conflicts only, never
 *   written as `contradicts` (nothing is mutated) and they do not change a status on their own.
 * - The brief's "superseded ⇒ at_risk", and the precedence at_risk > stale > orphan > healthy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  analyzeAll,
  DECAY_BANDS,
  detectPotentialConflict,
  HEALTH_STATUSES,
  healthOf,
  healthStats,
  memoryConcepts,
  sharedDomain,
  type HealthAnalysis,
  type HealthStatus,
} from '../src/core/domain/health.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { Link, Memory, MemoryType } from '../src/core/types.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';

const RUNS = { numRuns: 200 };

// A small vocabulary so that concept overlaps (and potential conflicts) are common.
const WORDS = ['always', 'never', 'run', 'ruff', 'before', 'committing', 'the', 'deploy', 'api'];
const TAGS = ['lint', 'Lint', 'db'];
// Near-paraphrases (one word swapped) overlap enough to be flagged.
const SENTENCES = [
  'always run ruff before committing', 'never run ruff before committing', 'run ruff before committing',
  'always deploy the api', 'never deploy the api', 'deploy the api before committing',
];
const RELS = ['related', 'refines', 'contradicts', 'supersedes'];

const spec = fc.record({
  text: fc.oneof(
    fc.constantFrom(...SENTENCES),
    fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
  ),
  type: fc.constantFrom<MemoryType>('episodic', 'semantic', 'semantic', 'procedural'),
  tags: fc.oneof(
    fc.constantFrom<string[]>([], ['lint'], ['Lint'], ['lint', 'db']),
    fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 2 }),
  ),
  superseded: fc.constantFrom(false, false, false, true),
  expired: fc.constantFrom(false, false, false, true),
  idleDays: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.double({ min: -5, max: 200, noNaN: true })),
  ageDays: fc.integer({ min: 0, max: 300 }),
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
  accessCount: fc.nat(30),
  links: fc.array(fc.tuple(fc.nat(), fc.constantFrom(...RELS)), { maxLength: 2 }),
  pending: fc.constantFrom(false, false, false, true),
  incoming: fc.constantFrom(0, 0, 1, 3),
});

interface World {
  memories: Memory[];
  pending: Set<string>;
  incoming: Map<string, number>;
}

const world = fc.array(spec, { maxLength: 24, size: 'medium' }).map((specs): World => {
  const n = specs.length;
  const memories = specs.map((s, i): Memory => {
    const links: Link[] = [];
    for (const [k, rel] of s.links) {
      const to = `m${k % n}`;
      if (to !== `m${i}` && !links.some((l) => l.to === to && l.rel === rel)) links.push({ to, rel });
    }
    return makeMemory(`m${i}`, s.text, {
      type: s.type,
      tags: s.tags,
      importance: s.importance,
      createdAt: NOW - s.ageDays * DAY,
      lastAccessed: NOW - s.idleDays * DAY,
      accessCount: s.accessCount,
      supersededBy: s.superseded ? 'someone' : '',
      supersededAt: s.superseded ? NOW - DAY : 0,
      expiresAt: s.expired ? NOW - 1 : 0,
      links,
    });
  });
  return {
    memories,
    pending: new Set(memories.filter((_, i) => specs[i]!.pending).map((m) => m.id)),
    incoming: new Map(memories.map((m, i) => [m.id, specs[i]!.incoming])),
  };
});

const shuffled = <T>(xs: readonly T[], seed: number): T[] => {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** Order-free view of an analysis, for comparing runs. */
const canonical = (a: HealthAnalysis) => ({
  statuses: [...a.statuses.entries()].sort(([x], [y]) => (x < y ? -1 : 1)),
  counts: a.counts,
  potentialConflicts: a.potentialConflicts,
  potentialConflictIds: [...a.potentialConflictIds.entries()].sort(([x], [y]) => (x < y ? -1 : 1)),
  report: a.report,
});

/** The seed's `compute_health` rules, restated independently: which status must hold. */
function expectedStatus(m: Memory, w: World, staleDays: number, incoming: number): HealthStatus {
  if (m.supersededBy || w.pending.has(m.id)) return 'at_risk';
  if (NOW - m.lastAccessed > staleDays * DAY) return 'stale';
  if (m.links.length + incoming === 0) return 'orphan';
  return 'healthy';
}

describe('health properties (seed 004 §5)', () => {
  it('property 3: every memory gets exactly one status from {healthy, stale, at_risk, orphan}', () => {
    fc.assert(
      fc.property(world, (w) => {
        const a = analyzeAll(w.memories, { now: NOW, incoming: w.incoming, pendingConflictIds: w.pending });
        expect(a.statuses.size).toBe(w.memories.length);
        for (const m of w.memories) {
          const r = a.statuses.get(m.id)!;
          expect(HEALTH_STATUSES).toContain(r.status);
          expect(r.reasons.length).toBeGreaterThan(0);
        }
        const total = HEALTH_STATUSES.reduce((n, s) => n + a.counts[s], 0);
        expect(total).toBe(w.memories.length);
        for (const s of HEALTH_STATUSES) expect(a.counts[s]).toBe([...a.statuses.values()].filter((r) => r.status === s).length);
      }),
      RUNS,
    );
  });

  it('property 4: identical inputs give identical output, whatever the input order', () => {
    fc.assert(
      fc.property(world, fc.integer(), (w, seed) => {
        for (const m of w.memories) {
          const opts = { now: NOW, incomingCount: w.incoming.get(m.id)!, pendingConflictIds: w.pending };
          expect(healthOf(m, opts)).toEqual(healthOf(m, opts));
        }
        const opts = { now: NOW, pendingConflictIds: w.pending };
        const first = canonical(analyzeAll(w.memories, opts));
        expect(canonical(analyzeAll(w.memories, opts))).toEqual(first);
        expect(canonical(analyzeAll(shuffled(w.memories, seed), opts))).toEqual(first);
      }),
      RUNS,
    );
  });

  it('superseded ⇒ at_risk, and the precedence at_risk > stale > orphan > healthy holds', () => {
    fc.assert(
      fc.property(world, fc.constantFrom(0, 30, 90), (w, staleDays) => {
        const a = analyzeAll(w.memories, { now: NOW, staleDays, incoming: w.incoming, pendingConflictIds: w.pending });
        for (const m of w.memories) {
          const status = a.statuses.get(m.id)!.status;
          if (m.supersededBy) {
            expect(status).toBe('at_risk');
            expect(a.statuses.get(m.id)!.reasons[0]).toBe('Superseded by newer memory');
          }
          expect(status).toBe(expectedStatus(m, w, staleDays, w.incoming.get(m.id)!));
        }
      }),
      RUNS,
    );
  });

  it('property 5: potential-conflict detection is symmetric', () => {
    fc.assert(
      fc.property(world, fc.constantFrom(0.3, 0.6, 0.8), fc.constantFrom(0, 3, 10), (w, conflictThreshold, maxPhrases) => {
        const ms = w.memories;
        for (let i = 0; i < ms.length; i++) {
          for (let j = i + 1; j < ms.length; j++) {
            const ab = detectPotentialConflict(ms[i]!, ms[j]!, { conflictThreshold, maxPhrases });
            const ba = detectPotentialConflict(ms[j]!, ms[i]!, { conflictThreshold, maxPhrases });
            expect(ba).toEqual(ab);
            if (ab) {
              expect(ab.jaccard).toBeGreaterThanOrEqual(conflictThreshold);
              expect(ab.a < ab.b).toBe(true);
            }
          }
        }
      }),
      RUNS,
    );
  });

  it('property 6: potential conflicts are soft flags: reported, never written, never deciding a status', () => {
    fc.assert(
      fc.property(world, (w) => {
        const before = JSON.stringify(w.memories);
        const a = analyzeAll(w.memories, { now: NOW, incoming: w.incoming, pendingConflictIds: w.pending });
        expect(JSON.stringify(w.memories)).toBe(before); // no contradicts link (or anything) written
        const byId = new Map(w.memories.map((m) => [m.id, m]));
        for (const c of a.potentialConflicts) {
          expect(a.potentialConflictIds.get(c.a)).toContain(c.b);
          expect(a.potentialConflictIds.get(c.b)).toContain(c.a);
          const [x, y] = [byId.get(c.a)!, byId.get(c.b)!];
          // A pair already confirmed as a contradiction (or resolved by supersession) is not re-flagged.
          expect([...x.links, ...y.links].some((l) => (l.to === x.id || l.to === y.id) && (l.rel === 'contradicts' || l.rel === 'supersedes'))).toBe(false);
        }
        for (const m of w.memories) {
          const alone = healthOf(m, { now: NOW, incomingCount: w.incoming.get(m.id)!, pendingConflictIds: w.pending });
          expect(a.statuses.get(m.id)).toEqual(alone);
        }
      }),
      RUNS,
    );
  });

  it('finds exactly the pairs a brute-force comparison finds (prefix filtering loses nothing)', () => {
    fc.assert(
      fc.property(world, fc.constantFrom(0.2, 0.5, 0.6, 0.75, 1), fc.constantFrom(0, 2, 10), (w, conflictThreshold, maxPhrases) => {
        const a = analyzeAll(w.memories, { now: NOW, conflictThreshold, maxPhrases });
        const eligible = w.memories.filter((m) => !m.supersededBy && !(m.expiresAt > 0 && m.expiresAt <= NOW));
        const brute = [];
        for (let i = 0; i < eligible.length; i++) {
          for (let j = i + 1; j < eligible.length; j++) {
            const c = detectPotentialConflict(eligible[i]!, eligible[j]!, { conflictThreshold, maxPhrases });
            if (c) brute.push(c);
          }
        }
        brute.sort((x, y) => y.jaccard - x.jaccard || (x.a < y.a ? -1 : x.a > y.a ? 1 : 0) || (x.b < y.b ? -1 : 1));
        expect(a.potentialConflicts).toEqual(brute);
      }),
      RUNS,
    );
  });
});

describe('healthOf rules', () => {
  const base = (over: Partial<Memory> = {}): Memory =>
    makeMemory('m', 'text', { lastAccessed: NOW - DAY, links: [{ to: 'x', rel: 'related' }], ...over });

  it('healthy: accessed recently and connected', () => {
    expect(healthOf(base(), { now: NOW })).toEqual({ status: 'healthy', reasons: ['Active and connected'] });
  });

  it('at_risk: superseded and/or with unresolved conflicts, reasons in order', () => {
    expect(healthOf(base({ supersededBy: 'n' }), { now: NOW })).toEqual({ status: 'at_risk', reasons: ['Superseded by newer memory'] });
    expect(healthOf(base(), { now: NOW, pendingConflictIds: new Set(['m']) })).toEqual({ status: 'at_risk', reasons: ['Has unresolved conflict(s)'] });
    expect(healthOf(base({ supersededBy: 'n', lastAccessed: 0 }), { now: NOW, pendingConflictIds: new Map([['m', 2]]) })).toEqual({
      status: 'at_risk', reasons: ['Superseded by newer memory', 'Has 2 unresolved conflict(s)'],
    });
  });

  it('stale: idle for more than staleDays (default 90), before orphan', () => {
    expect(healthOf(base({ lastAccessed: NOW - 90 * DAY }), { now: NOW }).status).toBe('healthy');
    expect(healthOf(base({ lastAccessed: NOW - 90 * DAY - 1, links: [] }), { now: NOW })).toEqual({ status: 'stale', reasons: ['Not accessed in 90 days'] });
    expect(healthOf(base({ lastAccessed: NOW - 31 * DAY }), { now: NOW, staleDays: 30 })).toEqual({ status: 'stale', reasons: ['Not accessed in 31 days'] });
  });

  it('orphan: no outgoing and no incoming links', () => {
    expect(healthOf(base({ links: [] }), { now: NOW })).toEqual({ status: 'orphan', reasons: ['No connections to other memories'] });
    expect(healthOf(base({ links: [] }), { now: NOW, incomingCount: 1 }).status).toBe('healthy');
  });

  it('falls back to createdAt, then to 0 idle days, when lastAccessed is unusable (seed §6.4)', () => {
    expect(healthOf(base({ lastAccessed: 0, createdAt: NOW - 100 * DAY }), { now: NOW }).status).toBe('stale');
    expect(healthOf(base({ lastAccessed: Number.NaN, createdAt: 0 }), { now: NOW }).status).toBe('healthy');
    expect(healthOf(base({ lastAccessed: NOW + 5 * DAY }), { now: NOW }).status).toBe('healthy');
  });

  it('validates options, naming the field', () => {
    const check = (fn: () => unknown, field: string) => {
      try {
        fn();
        throw new Error('expected an error');
      } catch (e) {
        expect((e as MemoryError).code).toBe('INVALID_ARGUMENT');
        expect((e as MemoryError).details.field).toBe(field);
      }
    };
    check(() => healthOf(base(), { now: -1 }), 'now');
    check(() => healthOf(base(), { now: NOW, staleDays: -1 }), 'staleDays');
    check(() => healthOf(base(), { now: NOW, incomingCount: 1.5 }), 'incomingCount');
    check(() => healthOf(base(), { now: NOW, pendingConflictIds: ['m'] as never }), 'pendingConflictIds');
    check(() => analyzeAll([base()], { now: NOW, conflictThreshold: 0 }), 'conflictThreshold');
    check(() => analyzeAll([base()], { now: NOW, incoming: { m: 1 } as never }), 'incoming');
    check(() => analyzeAll([base(), base()], { now: NOW }), 'memories');
    check(() => analyzeAll([base()], { now: NOW, stale_days: 3 } as never), 'options');
  });
});

describe('potential conflicts', () => {
  const lint = (id: string, text: string, over: Partial<Memory> = {}): Memory => makeMemory(id, text, { tags: ['lint'], ...over });

  it('flags opposite statements on the same topic by concept overlap', () => {
    const a = lint('a', 'Always run ruff before committing');
    const b = lint('b', 'Never run ruff before committing');
    expect(memoryConcepts(a)).toEqual(['lint', 'always run', 'run ruff', 'ruff before', 'before committing', 'always', 'run', 'ruff', 'before', 'committing']);
    // 8 shared of 12 distinct concepts.
    expect(detectPotentialConflict(a, b)).toEqual({
      a: 'a', b: 'b', jaccard: 8 / 12,
      sharedConcepts: ['before', 'before committing', 'committing', 'lint', 'ruff', 'ruff before', 'run', 'run ruff'],
      domain: 'semantic:lint',
      reason: 'High concept overlap (67%): before, before committing, committing',
    });
  });

  it('requires the same domain: same type and a shared tag (case-insensitive) or both untagged', () => {
    const a = lint('a', 'Always run ruff before committing');
    expect(detectPotentialConflict(a, lint('b', 'Always run ruff before committing', { type: 'procedural' }))).toBeNull();
    expect(detectPotentialConflict(a, lint('b', 'Always run ruff before committing', { tags: ['style'] }))).toBeNull();
    expect(detectPotentialConflict(a, lint('b', 'Always run ruff before committing', { tags: [] }))).toBeNull();
    expect(detectPotentialConflict(a, lint('b', 'Always run ruff before committing', { tags: ['LINT'] }))?.domain).toBe('semantic:lint');
    const u = makeMemory('u', 'Always run ruff before committing');
    const v = makeMemory('v', 'Never run ruff before committing');
    expect(detectPotentialConflict(u, v)?.domain).toBe('semantic');
    expect(sharedDomain(lint('x', 't', { tags: ['b', 'a', 'c'] }), lint('y', 't', { tags: ['c', 'A'] }))).toBe('semantic:a,c');
  });

  it('uses the threshold inclusively and skips memories without concepts', () => {
    const a = lint('a', 'Always run ruff before committing');
    const b = lint('b', 'Never run ruff before committing');
    expect(detectPotentialConflict(a, b, { conflictThreshold: 8 / 12 })).not.toBeNull();
    expect(detectPotentialConflict(a, b, { conflictThreshold: 0.7 })).toBeNull();
    // maxPhrases 0: tags only. Same tag → Jaccard 1.
    expect(detectPotentialConflict(a, b, { maxPhrases: 0 })?.jaccard).toBe(1);
    const bare1 = makeMemory('x', 'is it ok');
    const bare2 = makeMemory('y', 'is it ok');
    expect(memoryConcepts(bare1)).toEqual([]);
    expect(detectPotentialConflict(bare1, bare2)).toBeNull();
  });

  it('does not flag superseded or expired memories, or pairs already linked as contradicts/supersedes', () => {
    const a = lint('a', 'Always run ruff before committing');
    const b = lint('b', 'Never run ruff before committing');
    const flagged = analyzeAll([a, b], { now: NOW });
    expect(flagged.potentialConflicts.map((c) => [c.a, c.b])).toEqual([['a', 'b']]);
    expect(flagged.potentialConflictIds).toEqual(new Map([['a', ['b']], ['b', ['a']]]));
    expect(analyzeAll([a, { ...b, supersededBy: 'a' }], { now: NOW }).potentialConflicts).toEqual([]);
    expect(analyzeAll([a, { ...b, expiresAt: NOW }], { now: NOW }).potentialConflicts).toEqual([]);
    expect(analyzeAll([a, { ...b, links: [{ to: 'a', rel: 'contradicts' }] }], { now: NOW }).potentialConflicts).toEqual([]);
    expect(analyzeAll([{ ...a, links: [{ to: 'b', rel: 'related' }] }, b], { now: NOW }).potentialConflicts).toHaveLength(1);
  });

  it('leaves statuses alone by default; potentialConflictsAtRisk makes flagged memories at_risk', () => {
    const a = lint('a', 'Always run ruff before committing', { links: [{ to: 'b', rel: 'related' }] });
    const b = lint('b', 'Never run ruff before committing');
    const soft = analyzeAll([a, b], { now: NOW });
    expect(soft.statuses.get('a')!.status).toBe('healthy');
    expect(soft.statuses.get('b')!.status).toBe('healthy'); // incoming link from a, counted from the memories
    const hard = analyzeAll([a, b], { now: NOW, potentialConflictsAtRisk: true });
    expect(hard.statuses.get('a')).toEqual({ status: 'at_risk', reasons: ['Has 1 potential conflict(s)'] });
    expect(hard.counts).toEqual({ healthy: 0, stale: 0, at_risk: 2, orphan: 0 });
  });

  it('ranks by Jaccard descending, then ids', () => {
    const ms = [
      lint('c', 'Always run ruff before committing'),
      lint('a', 'Never run ruff before committing'),
      lint('b', 'Always run ruff before committing code'),
    ];
    const out = analyzeAll(ms, { now: NOW }).potentialConflicts;
    expect(out.map((c) => `${c.a}-${c.b}`)).toEqual(['b-c', 'a-c', 'a-b']);
    expect(out[0]!.jaccard).toBeGreaterThan(out[1]!.jaccard);
  });
});

describe('healthStats: the reference health numbers', () => {
  const ms = (): Memory[] => [
    makeMemory('m1', 'one', { type: 'episodic', importance: 0.9, lastAccessed: NOW, accessCount: 5, createdAt: NOW - 10 * DAY,
      links: [{ to: 'm2', rel: 'related' }, { to: 'm3', rel: 'refines' }] }), // 0.9 → band 0.8–1.0
    makeMemory('m2', 'two', { importance: 0.5, lastAccessed: NOW - 7 * DAY }), // 0.248 → 0.2–0.4
    makeMemory('m3', 'three', { importance: 0.1, lastAccessed: NOW - 7 * DAY }), // 0.0497 → 0.0–0.2, below minScore
    makeMemory('m4', 'four', { type: 'procedural', importance: 0.01, lastAccessed: NOW - 100 * DAY, accessCount: 3 }), // protected, stale
    makeMemory('m5', 'five', { importance: 0.9, supersededBy: 'm1' }), // not active
    makeMemory('m6', 'six', { importance: 0.9, expiresAt: NOW - 1 }), // not active
    makeMemory('m7', 'x'.repeat(61), { importance: 0.7, lastAccessed: NOW, accessCount: 5, createdAt: NOW - DAY,
      links: [{ to: 'm1', rel: 'related' }] }), // 0.7 → 0.6–0.8
  ];

  it('computes every number over the active memories', () => {
    const r = healthStats(ms(), { now: NOW });
    expect(r).toEqual({
      active: 5,
      decayHistogram: { '0.0–0.2': 2, '0.2–0.4': 1, '0.4–0.6': 0, '0.6–0.8': 1, '0.8–1.0': 1 },
      decayAtRiskCount: 1,
      neverRecalledCount: 2,
      staleCount: 1,
      staleDays: 90,
      episodicActiveCount: 1,
      linkDensity: 0.6, // 3 links / 5
      totalLinks: 3,
      avgImportance: 0.442, // (0.9 + 0.5 + 0.1 + 0.01 + 0.7) / 5
      topRecalled: [
        { id: 'm7', accessCount: 5, textSnippet: `${'x'.repeat(60)}…` }, // tie with m1: newest first
        { id: 'm1', accessCount: 5, textSnippet: 'one' },
        { id: 'm4', accessCount: 3, textSnippet: 'four' },
      ],
    });
    expect(analyzeAll(ms(), { now: NOW }).report).toEqual(r);
  });

  it('follows the decay settings and the stale window', () => {
    const r = healthStats(ms(), { now: NOW, staleDays: 5, decay: { protectTypes: [], minScore: 0.3 } });
    expect(r.staleCount).toBe(3); // m2, m3 (7 days), m4 (100 days)
    expect(r.decayAtRiskCount).toBe(3); // m2 0.248, m3, m4
    // A reinforced score above 1 lands in the top band.
    const boosted = healthStats([makeMemory('b', 't', { importance: 0.9, accessCount: 10 })], { now: NOW, decay: { frequencyWeight: 1 } });
    expect(boosted.decayHistogram['0.8–1.0']).toBe(1);
  });

  it('is all zeros for an empty store', () => {
    const r = healthStats([], { now: NOW });
    expect(r.active).toBe(0);
    expect(Object.values(r.decayHistogram)).toEqual([0, 0, 0, 0, 0]);
    expect(Object.keys(r.decayHistogram)).toEqual([...DECAY_BANDS]);
    expect(r.linkDensity).toBe(0);
    expect(r.avgImportance).toBe(0);
    expect(r.topRecalled).toEqual([]);
  });
});

describe('potential conflicts stay bounded', () => {
  it('many memories with the same concepts (every pair a potential conflict) stop at the cap, quickly; fewer are all reported', () => {
    const same = Array.from({ length: 3_000 }, (_, i) => makeMemory(`t${String(i).padStart(5, '0')}`, `The backup server runs nightly, note ${i}`, { lastAccessed: NOW - DAY }));
    const started = performance.now();
    const analysis = analyzeAll(same, { now: NOW });
    expect(performance.now() - started).toBeLessThan(20_000); // 4.5 million qualifying pairs: the scan stops at the cap
    expect(analysis.potentialConflictsCapped).toBe(true);
    expect(analysis.potentialConflicts).toHaveLength(10_000);
    expect(analysis.statuses.size).toBe(3_000);

    const few = analyzeAll(same.slice(0, 40), { now: NOW });
    expect(few.potentialConflictsCapped).toBe(false);
    expect(few.potentialConflicts).toHaveLength((40 * 39) / 2);
    const capped = analyzeAll(same.slice(0, 40), { now: NOW, maxPotentialConflicts: 100 });
    expect(capped).toMatchObject({ potentialConflictsCapped: true });
    expect(capped.potentialConflicts).toHaveLength(100);
    expect(() => analyzeAll(same, { now: NOW, maxPotentialConflicts: -1 })).toThrow(MemoryError);
  });
});
