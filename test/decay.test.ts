import { describe, expect, it } from 'vitest';
import {
  checkDecayOptions,
  checkEvictionOptions,
  decayScore,
  decayScorer,
  DEFAULT_DECAY_OPTIONS,
  evictionCandidates,
  expiredMemories,
  pruneCandidates,
  scoreAll,
  trashPurgeCandidates,
} from '../src/core/domain/decay.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { Memory } from '../src/core/types.ts';
import { DAY, makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid } from './helpers/expect.ts';

/** A memory last accessed `days` ago (created long before, so createdAt plays no part). */
const aged = (id: string, importance: number, days: number, over: Partial<Memory> = {}): Memory =>
  makeMemory(id, `memory ${id}`, { importance, createdAt: NOW - 400 * DAY, lastAccessed: NOW - days * DAY, ...over });


describe('decayScore: the reference formula with an injected now', () => {
  // Expected values written by hand: importance · e^(−0.1·days).
  // e^−0.1 = 0.904837418, e^−0.7 = 0.496585304, e^−3 = 0.049787068.
  it.each([
    // The seed's score table (001 §6), λ = 0.1.
    { importance: 0.9, days: 1, expected: 0.814353676, verdict: 'kept' },
    { importance: 0.9, days: 7, expected: 0.446926774, verdict: 'kept' },
    { importance: 0.9, days: 30, expected: 0.044808361, verdict: 'pruned' },
    { importance: 0.5, days: 1, expected: 0.452418709, verdict: 'kept' },
    { importance: 0.1, days: 7, expected: 0.049658530, verdict: 'pruned' },
    // The brief's example: half-life ≈ 7 days for importance 0.5.
    { importance: 0.5, days: 7, expected: 0.248292652, verdict: 'kept' },
    { importance: 0.5, days: 0, expected: 0.5, verdict: 'kept' },
  ])('importance $importance at $days days → $expected ($verdict)', ({ importance, days, expected, verdict }) => {
    const m = aged('m', importance, days);
    const score = decayScore(m, NOW);
    expect(score).toBeCloseTo(expected, 8);
    expect(score < DEFAULT_DECAY_OPTIONS.minScore ? 'pruned' : 'kept').toBe(verdict);
  });

  it('uses the decay rate: λ = 0.05 halves the exponent (0.5 at 14 days = 0.5·e^−0.7)', () => {
    expect(decayScore(aged('m', 0.5, 14), NOW, { decayRate: 0.05 })).toBeCloseTo(0.248292652, 8);
    expect(decayScore(aged('m', 0.7, 100), NOW, { decayRate: 0 })).toBe(0.7);
  });

  it('counts days from lastAccessed, not createdAt', () => {
    const m = makeMemory('m', 't', { importance: 0.8, createdAt: NOW - 300 * DAY, lastAccessed: NOW - DAY });
    expect(decayScore(m, NOW)).toBeCloseTo(0.8 * 0.904837418, 8);
  });

  it('clamps a negative age to 0: a future lastAccessed scores as importance', () => {
    expect(decayScore(aged('m', 0.6, -5), NOW)).toBe(0.6);
  });

  it('counts fractional days', () => {
    // 12 hours = 0.5 day: 0.4 · e^−0.05 = 0.4 · 0.951229425 = 0.38049177
    const m = makeMemory('m', 't', { importance: 0.4, lastAccessed: NOW - DAY / 2 });
    expect(decayScore(m, NOW)).toBeCloseTo(0.38049177, 7);
  });

  it('frequency weight multiplies by 1 + w·ln(1 + accessCount)', () => {
    // 0.5·e^−0.7 · (1 + 0.3·ln 21) = 0.248292652 · (1 + 0.3·3.044522438) = 0.248292652 · 1.913356731 = 0.475072417
    const m = aged('m', 0.5, 7, { accessCount: 20 });
    expect(decayScore(m, NOW, { frequencyWeight: 0.3 })).toBeCloseTo(0.475072417, 8);
    // Weight 0: access count is ignored.
    expect(decayScore(m, NOW)).toBeCloseTo(0.248292652, 8);
    // No accesses: ln 1 = 0, no boost.
    expect(decayScore(aged('n', 0.5, 7), NOW, { frequencyWeight: 0.3 })).toBeCloseTo(0.248292652, 8);
  });

  it('lets a reinforced score exceed importance', () => {
    // 0.9 · (1 + 1·ln 11) = 0.9 · 3.397895273 = 3.058105746
    const m = aged('m', 0.9, 0, { accessCount: 10 });
    expect(decayScore(m, NOW, { frequencyWeight: 1 })).toBeCloseTo(3.058105746, 8);
  });

  it('decayScorer matches decayScore', () => {
    const score = decayScorer({ decayRate: 0.2, frequencyWeight: 0.1 });
    const m = aged('m', 0.7, 3, { accessCount: 4 });
    expect(score(m, NOW)).toBe(decayScore(m, NOW, { decayRate: 0.2, frequencyWeight: 0.1 }));
  });
});

describe('scoreAll', () => {
  it('sorts by score descending, ties by id, and is independent of input order', () => {
    const ms = [aged('c', 0.5, 1), aged('a', 0.9, 7), aged('b', 0.5, 1), aged('d', 0.1, 7)];
    const ids = scoreAll(ms, NOW).map((s) => s.memory.id);
    // 0.5@1d = 0.452 (b, c tie → by id), 0.9@7d = 0.447, 0.1@7d = 0.0497
    expect(ids).toEqual(['b', 'c', 'a', 'd']);
    expect(scoreAll([...ms].reverse(), NOW).map((s) => s.memory.id)).toEqual(ids);
    expect(scoreAll(ms, NOW)[0]!.score).toBeCloseTo(0.452418709, 8);
  });

  it('includes superseded memories and leaves expired ones out (as the reference)', () => {
    const ms = [
      aged('live', 0.5, 1),
      aged('superseded', 0.5, 2, { supersededBy: 'live', supersededAt: NOW - DAY }),
      aged('expired', 0.5, 1, { expiresAt: NOW }),
      aged('future-ttl', 0.5, 1, { expiresAt: NOW + 1 }),
    ];
    expect(scoreAll(ms, NOW).map((s) => s.memory.id).sort()).toEqual(['future-ttl', 'live', 'superseded']);
  });

  it('returns [] for no memories', () => {
    expect(scoreAll([], NOW)).toEqual([]);
  });
});

describe('pruneCandidates', () => {
  const store = (): Memory[] => [
    aged('fresh', 0.9, 1), // 0.814 kept
    aged('old-important', 0.9, 30), // 0.0448 pruned
    aged('weak', 0.1, 7), // 0.0497 pruned
    aged('procedural', 0.1, 60, { type: 'procedural' }), // protected type
    aged('pinned', 0.1, 60, { pinned: true }), // pinned
    aged('superseded', 0.2, 60, { supersededBy: 'fresh' }), // pruned: superseded rows age out
    aged('expired', 0.1, 60, { expiresAt: NOW - 1 }), // TTL purge owns it
    aged('borderline', 0.05, 0), // score = minScore exactly: kept (strict <)
  ];

  it('selects scores below minScore, never protected types, pinned or expired memories', () => {
    const ids = pruneCandidates(store(), NOW).map((s) => s.memory.id);
    // scoreAll order: weak 0.0497 > old-important 0.0448 > superseded 0.2·e^−6 = 0.000496
    expect(ids).toEqual(['weak', 'old-important', 'superseded']);
  });

  it('honours protectTypes and minScore', () => {
    const none = pruneCandidates(store(), NOW, { protectTypes: [] }).map((s) => s.memory.id);
    expect(none).toContain('procedural');
    expect(none).not.toContain('pinned'); // pinned is never pruned, whatever protectTypes says
    const episodicProtected = pruneCandidates([aged('e', 0.1, 60, { type: 'episodic' })], NOW, { protectTypes: ['episodic'] });
    expect(episodicProtected).toEqual([]);
    // minScore 0.5: everything but 'fresh' (0.814) among the prunable ones, borderline 0.05 first.
    expect(pruneCandidates(store(), NOW, { minScore: 0.5 }).map((s) => s.memory.id)).toEqual(['borderline', 'weak', 'old-important', 'superseded']);
    expect(pruneCandidates(store(), NOW, { minScore: 0 })).toEqual([]);
  });

  it('does not mutate its input', () => {
    const ms = store();
    const before = JSON.stringify(ms);
    pruneCandidates(ms, NOW);
    expect(JSON.stringify(ms)).toBe(before);
  });
});

describe('evictionCandidates (quota)', () => {
  const base = (): Memory[] => [
    aged('a', 0.9, 10), // decay 0.9·e^−1 = 0.331
    aged('b', 0.2, 1), // 0.181
    aged('c', 0.5, 30), // 0.0249, accessed longest ago
    aged('p', 0.01, 90, { type: 'procedural' }),
    aged('pin', 0.01, 90, { pinned: true }),
  ];

  it('does nothing within quota', () => {
    const plan = evictionCandidates(base(), { maxMemories: 10, policy: 'decay', incoming: 1, now: NOW });
    expect(plan).toMatchObject({ needed: 0, evict: [], rejected: false, outcome: 'within-quota', shortfall: 0 });
    // Exactly full after the write is still within quota.
    expect(evictionCandidates(base(), { maxMemories: 6, policy: 'reject', now: NOW }).outcome).toBe('within-quota');
  });

  it("'decay' evicts the lowest decay scores first, never procedural or pinned", () => {
    const plan = evictionCandidates(base(), { maxMemories: 5, policy: 'decay', incoming: 2, now: NOW });
    expect(plan.needed).toBe(2);
    expect(plan.outcome).toBe('evict');
    expect(plan.rejected).toBe(false);
    expect(plan.evictable).toBe(3);
    expect(plan.evict.map((m) => m.id)).toEqual(['c', 'b']);
  });

  it("'lru' evicts the least recently accessed first", () => {
    const ms = [aged('x', 0.01, 2), aged('y', 0.99, 20), aged('z', 0.5, 10)];
    const plan = evictionCandidates(ms, { maxMemories: 3, policy: 'lru', incoming: 2, now: NOW });
    expect(plan.evict.map((m) => m.id)).toEqual(['y', 'z']);
    // Under 'decay' the same store loses the weakest scores instead:
    // x 0.01·e^−0.2 = 0.0082, y 0.99·e^−2 = 0.134, z 0.5·e^−1 = 0.184.
    const decay = evictionCandidates(ms, { maxMemories: 3, policy: 'decay', incoming: 2, now: NOW });
    expect(decay.evict.map((m) => m.id)).toEqual(['x', 'y']);
  });

  it("'lru' breaks lastAccessed ties by createdAt, then id", () => {
    const ms = [
      makeMemory('k2', 't', { lastAccessed: NOW - DAY, createdAt: NOW - 5 * DAY }),
      makeMemory('k1', 't', { lastAccessed: NOW - DAY, createdAt: NOW - 5 * DAY }),
      makeMemory('k0', 't', { lastAccessed: NOW - DAY, createdAt: NOW - 2 * DAY }),
    ];
    expect(evictionCandidates(ms, { maxMemories: 3, policy: 'lru', incoming: 3, now: NOW }).evict.map((m) => m.id)).toEqual(['k1', 'k2', 'k0']);
  });

  it('evicts expired memories first under any policy', () => {
    const ms = [aged('old', 0.01, 300), aged('exp', 0.99, 0, { expiresAt: NOW - 10 })];
    for (const policy of ['decay', 'lru'] as const) {
      expect(evictionCandidates(ms, { maxMemories: 2, policy, now: NOW }).evict.map((m) => m.id)).toEqual(['exp']);
    }
  });

  it("'reject' refuses over quota instead of evicting", () => {
    const plan = evictionCandidates(base(), { maxMemories: 5, policy: 'reject', incoming: 1, now: NOW });
    expect(plan).toMatchObject({ needed: 1, evict: [], rejected: true, outcome: 'policy-reject', shortfall: 0 });
  });

  it('reports insufficient evictable memories and evicts nothing', () => {
    const plan = evictionCandidates(base(), { maxMemories: 3, policy: 'decay', incoming: 4, now: NOW });
    // 5 + 4 − 3 = 6 needed, only a, b, c evictable.
    expect(plan).toMatchObject({ needed: 6, evict: [], rejected: true, outcome: 'insufficient', evictable: 3, shortfall: 3 });
    const onlyProtected = [aged('p', 0.1, 9, { type: 'procedural' }), aged('q', 0.1, 9, { pinned: true })];
    expect(evictionCandidates(onlyProtected, { maxMemories: 2, policy: 'lru', now: NOW })).toMatchObject({
      outcome: 'insufficient', evictable: 0, shortfall: 1, rejected: true,
    });
  });

  it('also protects the decay protectTypes', () => {
    const ms = [aged('f', 0.01, 90, { type: 'feedback' }), aged('s', 0.9, 1)];
    const plan = evictionCandidates(ms, { maxMemories: 2, policy: 'decay', now: NOW, protectTypes: ['feedback'] });
    expect(plan.evict.map((m) => m.id)).toEqual(['s']);
  });

  it('validates its options, naming the field', () => {
    expectInvalid(() => evictionCandidates([], { maxMemories: 0, policy: 'decay', now: NOW }), 'maxMemories');
    expectInvalid(() => evictionCandidates([], { maxMemories: 1.5, policy: 'decay', now: NOW }), 'maxMemories');
    expectInvalid(() => evictionCandidates([], { maxMemories: 3, policy: 'fifo' as never, now: NOW }), 'policy');
    expectInvalid(() => evictionCandidates([], { maxMemories: 3, policy: 'lru', incoming: -1, now: NOW }), 'incoming');
    expectInvalid(() => evictionCandidates([], { maxMemories: 3, policy: 'lru' } as never), 'now');
    expectInvalid(() => evictionCandidates([], { maxMemories: 3, policy: 'lru', now: NOW, bogus: 1 } as never), 'options');
    expectInvalid(() => checkEvictionOptions(undefined), 'options');
  });
});

describe('expiredMemories (TTL)', () => {
  it('selects 0 < expiresAt ≤ now, ignoring protected types and pins', () => {
    const ms = [
      makeMemory('never', 't', { expiresAt: 0 }),
      makeMemory('now', 't', { expiresAt: NOW }),
      makeMemory('past', 't', { expiresAt: NOW - DAY, type: 'procedural', pinned: true }),
      makeMemory('future', 't', { expiresAt: NOW + 1 }),
    ];
    expect(expiredMemories(ms, NOW).map((m) => m.id)).toEqual(['now', 'past']);
  });
});

describe('trashPurgeCandidates', () => {
  it('selects entries deleted strictly before now − ttlDays; ttlDays ≤ 0 selects nothing', () => {
    const entries = [
      { id: 'old', deletedAt: NOW - 31 * DAY },
      { id: 'edge', deletedAt: NOW - 30 * DAY },
      { id: 'new', deletedAt: NOW - DAY },
    ];
    expect(trashPurgeCandidates(entries, 30, NOW).map((e) => e.id)).toEqual(['old']);
    expect(trashPurgeCandidates(entries, 0, NOW)).toEqual([]);
    expect(trashPurgeCandidates(entries, -5, NOW)).toEqual([]);
    expectInvalid(() => trashPurgeCandidates(entries, Number.NaN, NOW), 'ttlDays');
  });
});

describe('checkDecayOptions', () => {
  it('fills the reference defaults', () => {
    expect(checkDecayOptions(undefined)).toEqual({ decayRate: 0.1, minScore: 0.05, protectTypes: ['procedural'], frequencyWeight: 0 });
  });

  it('rejects bad values, naming the field', () => {
    expectInvalid(() => checkDecayOptions({ decayRate: -0.1 }), 'decayRate');
    expectInvalid(() => checkDecayOptions({ decayRate: Number.NaN }), 'decayRate');
    expectInvalid(() => checkDecayOptions({ minScore: '0.1' }), 'minScore');
    expectInvalid(() => checkDecayOptions({ frequencyWeight: -1 }), 'frequencyWeight');
    expectInvalid(() => checkDecayOptions({ protectTypes: 'procedural' }), 'protectTypes');
    expectInvalid(() => checkDecayOptions({ protectTypes: ['bogus'] }), 'protectTypes');
    expectInvalid(() => checkDecayOptions({ decay_rate: 0.1 }), 'options');
    expectInvalid(() => decayScore(aged('m', 0.5, 1), -1), 'now');
  });
});
