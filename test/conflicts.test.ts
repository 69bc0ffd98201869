import { describe, expect, it, vi } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  checkPolicy,
  classificationPrompt,
  classifierCandidate,
  classifyIncoming,
  conflictEligible,
  conflictReason,
  conflictSkipReason,
  ContradictionDetector,
  CONFLICT_POLICIES,
  decidePolicy,
  DEFAULT_CONTRADICTION_THRESHOLD,
  detectConflicts,
  NEGATION_WORDS,
  negationCount,
  negationDiff,
  parseClassification,
  predictContradiction,
  quickConflictReason,
  resolutionFor,
  scanAllConflicts,
  type Classification,
} from '../src/core/domain/conflicts.ts';
import {
  applyResolution,
  checkPendingConflict,
  checkResolution,
  pendingFromConflict,
  REVIEW_RESOLUTIONS,
  supersededRecords,
  type PendingConflict,
} from '../src/core/domain/review.ts';
import type { Conflict, Memory } from '../src/core/types.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid } from './helpers/expect.ts';

const mem = (id: string, text: string, over: Partial<Memory> = {}): Memory => makeMemory(id, text, over);


function conflict(a: Memory, b: Memory, kind: Conflict['kind'], similarity = 0.9, reason = kind === 'duplicate' ? 'similarity' : 'negation_diff'): Conflict {
  return { a, b, similarity, kind, reason };
}

describe('negation', () => {
  it('is the reference word list', () => {
    expect(NEGATION_WORDS).toEqual([
      'not', 'never', 'no', 'dont', "don't", 'doesnt', "doesn't", 'wont', "won't", 'shouldnt', "shouldn't",
      'cant', "can't", 'without', 'avoid', 'neither', 'nor', 'nothing', 'nobody', 'nowhere', 'none',
    ]);
  });

  it('counts negation tokens, with straight and curly apostrophes', () => {
    expect(negationCount('Use ruff for linting')).toBe(0);
    expect(negationCount('Never use flake8')).toBe(1);
    expect(negationCount("Don't use tabs")).toBe(1);
    expect(negationCount('Don’t use tabs')).toBe(1);
    expect(negationCount('Don‘t use tabs')).toBe(1);
    expect(negationCount('Donʼt use tabs')).toBe(1);
    expect(negationCount("Don't do it, not ever, without asking")).toBe(3);
    expect(negationCount('NOBODY goes nowhere; none of it')).toBe(3);
    // The reference list misses "isn't"; the extended list (detector) has it.
    expect(negationCount("It isn't cached")).toBe(0);
    expect(negationCount("It isn't cached", ['isnt'])).toBe(1);
  });

  it('compares parity: "Don\'t … not …" does not contradict "Always …"', () => {
    expect(negationDiff("Don't skip the tests, not even once", 'Always run the tests')).toBe(false);
    expect(negationDiff('Never deploy on Friday', 'Deploy on Friday')).toBe(true);
    expect(negationDiff('Don’t deploy on Friday', 'Deploy on Friday')).toBe(true);
  });
});

describe('conflict reasons', () => {
  it('near-identical positives are duplicates', async () => {
    expect(await conflictReason(mem('a', 'Use ruff for linting'), mem('b', 'Use ruff for linting Python'))).toEqual({ kind: 'duplicate', reason: 'similarity' });
  });

  it('"Use X" vs "Never use X" is a negation contradiction', async () => {
    expect(await conflictReason(mem('a', 'Use X'), mem('b', 'Never use X'))).toEqual({ kind: 'contradiction', reason: 'negation_diff' });
  });

  it('checks polarity before negation', async () => {
    const a = mem('a', 'Use X', { polarity: 1 });
    const b = mem('b', 'Never use X', { polarity: -1 });
    expect(await conflictReason(a, b)).toEqual({ kind: 'contradiction', reason: 'polarity_diff' });
    // same explicit polarity does not stop the negation rule
    expect(quickConflictReason({ ...a, polarity: 1 }, { ...b, polarity: 1 })).toEqual({ kind: 'contradiction', reason: 'negation_diff' });
    // one neutral polarity is not "opposite"
    expect(quickConflictReason(mem('a', 'Use X', { polarity: 1 }), mem('b', 'Use X', { polarity: 0 }))).toBeNull();
    // opposite polarity decides even when negations agree
    expect(quickConflictReason(mem('a', 'Use X', { polarity: -1 }), mem('b', 'Use X', { polarity: 1 }))).toEqual({ kind: 'contradiction', reason: 'polarity_diff' });
  });

  it('consults the custom function only when polarity and negation did not decide', async () => {
    const fn = vi.fn(() => true);
    expect(await conflictReason(mem('a', 'Use X'), mem('b', 'Never use X'), { contradictionFn: fn })).toMatchObject({ reason: 'negation_diff' });
    expect(await conflictReason(mem('a', 'Use X', { polarity: 1 }), mem('b', 'Use X', { polarity: -1 }), { contradictionFn: fn })).toMatchObject({ reason: 'polarity_diff' });
    expect(fn).toHaveBeenCalledTimes(0);
    const a = mem('a', 'Lint Python with ruff');
    const b = mem('b', 'Lint Python with flake8');
    expect(await conflictReason(a, b, { contradictionFn: fn })).toEqual({ kind: 'contradiction', reason: 'custom_fn' });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith(a, b);
    const no = vi.fn(async () => false);
    expect(await conflictReason(a, b, { contradictionFn: no })).toEqual({ kind: 'duplicate', reason: 'similarity' });
    expect(no).toHaveBeenCalledTimes(1);
    const slow = vi.fn(() => new Promise<boolean>((r) => setTimeout(() => r(true), 5)));
    expect(await conflictReason(a, b, { contradictionFn: slow })).toMatchObject({ reason: 'custom_fn' });
  });

  it('applies the eligibility rules and the tag guard', () => {
    const base = mem('a', 'x', { tags: ['db'] });
    expect(conflictSkipReason(base, base)).toBe('self');
    expect(conflictSkipReason(base, mem('b', 'x', { type: 'episodic', tags: ['db'] }))).toBe('type');
    expect(conflictSkipReason(base, mem('b', 'x', { tags: ['db'], supersededBy: 'c' }))).toBe('superseded');
    expect(conflictSkipReason(mem('a', 'x', { supersededBy: 'c' }), mem('b', 'x'))).toBe('superseded');
    // tag guard: both tagged and disjoint → skip; one untagged or a shared tag → compare
    expect(conflictSkipReason(base, mem('b', 'x', { tags: ['ui'] }))).toBe('tags');
    expect(conflictEligible(base, mem('b', 'x', { tags: [] }))).toBe(true);
    expect(conflictEligible(mem('a', 'x'), mem('b', 'x'))).toBe(true);
    expect(conflictEligible(base, mem('b', 'x', { tags: ['ui', 'db'] }))).toBe(true);
    // expiry only with `now`
    const expired = mem('b', 'x', { tags: ['db'], expiresAt: NOW - 1 });
    expect(conflictEligible(base, expired)).toBe(true);
    expect(conflictSkipReason(base, expired, { now: NOW })).toBe('expired');
    expect(conflictEligible(base, mem('b', 'x', { expiresAt: NOW + 10 }), { now: NOW })).toBe(true);
  });
});

describe('the conflict scan', () => {
  it('gates by similarity, skips ineligible rows and rounds to 4 dp', async () => {
    const m = mem('new', 'Never use flake8 for linting', { tags: ['lint'] });
    const candidates = [
      { memory: mem('dup', 'Never use flake8 for linting!', { tags: ['lint'] }), similarity: 0.987654 },
      { memory: mem('con', 'Use flake8 for linting'), similarity: 0.91 },
      { memory: mem('low', 'Use flake8'), similarity: 0.79 },
      { memory: mem('other', 'Use flake8 for linting', { tags: ['ui'] }), similarity: 0.95 },
      { memory: mem('epi', 'Use flake8 for linting', { type: 'episodic' }), similarity: 0.95 },
      { memory: mem('gone', 'Use flake8 for linting', { supersededBy: 'x' }), similarity: 0.95 },
      { memory: mem('exp', 'Use flake8 for linting', { expiresAt: NOW - 5 }), similarity: 0.95 },
      { memory: m, similarity: 1 },
    ];
    // With the pattern gate at the threshold: the reference's gate alone.
    const out = await detectConflicts(m, candidates, { now: NOW, patternGate: 0.8 });
    expect(out.map((c) => [c.b.id, c.kind, c.reason, c.similarity])).toEqual([
      ['dup', 'duplicate', 'similarity', 0.9877],
      ['con', 'contradiction', 'negation_diff', 0.91],
    ]);
    expect(out[0]!.a).toBe(m);
    // By default a pair below the threshold still conflicts when a pattern says so ("Use flake8"
    // negated), but is never a duplicate there.
    const byDefault = await detectConflicts(m, candidates, { now: NOW });
    expect(byDefault.map((c) => [c.b.id, c.kind, c.reason])).toEqual([
      ['dup', 'duplicate', 'similarity'],
      ['con', 'contradiction', 'negation_diff'],
      ['low', 'contradiction', 'negation_diff'],
    ]);
    await expect(detectConflicts(m, candidates, { patternGate: 7 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'patternGate' } });
    const loose = await detectConflicts(m, candidates, { threshold: 0.5 });
    expect(loose.map((c) => c.b.id)).toEqual(['dup', 'con', 'low', 'exp']);
    await expect(detectConflicts(m, candidates, { threshold: 2 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('scans all pairs for find_conflicts()', async () => {
    const ms = [mem('a', 'Use X'), mem('b', 'Never use X'), mem('c', 'Use X', { supersededBy: 'a' }), mem('d', 'Use X', { type: 'procedural' })];
    const sims: Record<string, number> = { 'a|b': 0.9 };
    const out = await scanAllConflicts(ms, (x, y) => sims[`${x.id}|${y.id}`] ?? 0.99);
    expect(out.map((c) => [c.a.id, c.b.id, c.kind])).toEqual([['a', 'b', 'contradiction']]);
    expect(await scanAllConflicts(ms, () => null)).toEqual([]);
  });
});

describe('policies', () => {
  const n = mem('new', 'Never use X', { importance: 0.4 });
  const dupLow = mem('d1', 'Never use X!', { importance: 0.7 });
  const dupHigh = mem('d2', 'Never use X.', { importance: 0.2 });
  const con = mem('c1', 'Use X');
  const conflicts = [conflict(n, dupLow, 'duplicate', 0.93), conflict(n, con, 'contradiction', 0.9), conflict(n, dupHigh, 'duplicate', 0.97)];

  it('ignore does nothing, warn reports, raise rejects', () => {
    expect(decidePolicy('ignore', conflicts)).toEqual([]);
    expect(decidePolicy('warn', conflicts)).toEqual([{ type: 'report', conflicts }]);
    expect(decidePolicy('raise', conflicts)).toEqual([{ type: 'reject', conflicts }]);
    for (const p of CONFLICT_POLICIES) expect(decidePolicy(p, [])).toEqual([]);
  });

  it('supersede merges duplicates into the existing memory and supersedes contradicted ones', () => {
    const actions = decidePolicy('supersede', conflicts);
    expect(actions.map((a) => a.type)).toEqual(['merge', 'supersede']);
    expect(actions[0]).toMatchObject({ type: 'merge', intoId: 'd2', fromId: 'new', importance: 0.4 });
    // the survivor (the merge target) supersedes the contradicted memory
    expect(actions[1]).toMatchObject({ type: 'supersede', oldId: 'c1', newId: 'd2' });
    const onlyContradiction = decidePolicy('supersede', [conflict(n, con, 'contradiction')]);
    expect(onlyContradiction).toMatchObject([{ type: 'supersede', oldId: 'c1', newId: 'new' }]);
    const onlyDup = decidePolicy('supersede', [conflict(n, dupLow, 'duplicate')]);
    expect(onlyDup).toMatchObject([{ type: 'merge', intoId: 'd1', fromId: 'new', importance: 0.7 }]);
  });

  it('review queues every conflict and resolves nothing', () => {
    const actions = decidePolicy('review', conflicts);
    expect(actions).toEqual([
      { type: 'queue', newId: 'new', oldId: 'd1', kind: 'duplicate', reason: 'similarity', similarity: 0.93 },
      { type: 'queue', newId: 'new', oldId: 'c1', kind: 'contradiction', reason: 'negation_diff', similarity: 0.9 },
      { type: 'queue', newId: 'new', oldId: 'd2', kind: 'duplicate', reason: 'similarity', similarity: 0.97 },
    ]);
    expect(decidePolicy('review', conflicts, { reviewKinds: ['contradiction'] })).toHaveLength(1);
  });

  it('rejects unknown policies', () => {
    expectInvalid(() => checkPolicy('merge'), 'onConflict');
    expectInvalid(() => decidePolicy('Warn' as never, conflicts), 'policy');
  });
});

describe('seed-002 classification and resolution', () => {
  const pinnedOld = mem('old', 'User lives in Portland', { pinned: true, importance: 0.9 });
  const plainOld = mem('old2', 'User likes coffee', { importance: 0.6 });
  const incoming = mem('new', 'User just moved to Seattle', { importance: 0.5 });

  it('CONTRADICTION of a pinned memory: supersede, demote the old, pin the new, inherit importance', () => {
    expect(resolutionFor(pinnedOld, incoming, 'CONTRADICTION')).toEqual({ supersedeOld: true, unpinOld: true, pinNew: true, newImportance: 0.9 });
  });

  it('UPDATE of a pinned memory: supersede and demote, but the pin is not inherited', () => {
    expect(resolutionFor(pinnedOld, incoming, 'UPDATE')).toEqual({ supersedeOld: true, unpinOld: true, pinNew: false, newImportance: 0.9 });
  });

  it('keeps the higher importance of the new memory, and leaves unpinned memories alone', () => {
    expect(resolutionFor(plainOld, { ...incoming, importance: 0.95 }, 'CONTRADICTION')).toEqual({ supersedeOld: true, unpinOld: false, pinNew: false, newImportance: 0.95 });
    expect(resolutionFor(pinnedOld, { ...incoming, pinned: true }, 'CONTRADICTION').pinNew).toBe(false);
  });

  it('OVERLAP and NONE change nothing', () => {
    for (const c of ['OVERLAP', 'NONE'] as const) {
      expect(resolutionFor(pinnedOld, incoming, c)).toEqual({ supersedeOld: false, unpinOld: false, pinNew: false, newImportance: 0.5 });
    }
  });

  it('rejects unknown classifications', () => {
    expectInvalid(() => resolutionFor(pinnedOld, incoming, 'contradiction' as Classification), 'classification');
  });

  it('gates candidates by similarity 0.6 and importance > 0.5 or pinned', () => {
    expect(classifierCandidate(pinnedOld, 0.78)).toBe(true);
    expect(classifierCandidate(pinnedOld, 0.59)).toBe(false);
    expect(classifierCandidate(mem('x', 't', { importance: 0.5 }), 0.9)).toBe(false);
    expect(classifierCandidate(mem('x', 't', { importance: 0.2, pinned: true }), 0.9)).toBe(true);
    expect(classifierCandidate(mem('x', 't', { importance: 0.9, supersededBy: 'y' }), 0.9)).toBe(false);
  });

  it('classifies gated candidates and folds the resolutions', async () => {
    const classifier = vi.fn(async (existing: Memory): Promise<Classification> => (existing.id === 'old' ? 'UPDATE' : 'OVERLAP'));
    const plan = await classifyIncoming(incoming, [
      { memory: pinnedOld, similarity: 0.78 },
      { memory: plainOld, similarity: 0.7 },
      { memory: mem('low', 'x', { importance: 0.3 }), similarity: 0.9 },
      { memory: mem('far', 'x', { importance: 0.9 }), similarity: 0.3 },
      { memory: incoming, similarity: 1 },
    ], classifier);
    expect(classifier).toHaveBeenCalledTimes(2);
    expect(plan.decisions.map((d) => [d.existing.id, d.classification])).toEqual([
      ['old', 'UPDATE'],
      ['old2', 'OVERLAP'],
    ]);
    expect(plan).toMatchObject({ newImportance: 0.9, pinNew: false, supersede: ['old'], unpin: ['old'] });
    await expect(classifyIncoming(incoming, [{ memory: pinnedOld, similarity: 0.9 }], () => 'MAYBE' as Classification)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('builds the prompt and parses answers', () => {
    const prompt = classificationPrompt(pinnedOld, incoming);
    expect(prompt).toContain('Existing memory: "User lives in Portland"');
    expect(prompt).toContain('New memory: "User just moved to Seattle"');
    expect(prompt).toContain('Respond with exactly one word: CONTRADICTION, UPDATE, OVERLAP, or NONE.');
    expect(parseClassification('UPDATE')).toBe('UPDATE');
    expect(parseClassification("It's a contradiction.")).toBe('CONTRADICTION');
    expect(parseClassification('none')).toBe('NONE');
    expect(parseClassification('UPDATED')).toBeNull();
    expect(parseClassification('maybe')).toBeNull();
  });
});

describe('review queue', () => {
  const n = mem('new', 'Never use X');
  const o = mem('old', 'Use X');
  const pending = pendingFromConflict(conflict(n, o, 'contradiction', 0.91), 'r1', NOW);

  it('records a pending conflict', () => {
    expect(pending).toEqual({ id: 'r1', newId: 'new', oldId: 'old', kind: 'contradiction', reason: 'negation_diff', similarity: 0.91, createdAt: NOW, status: 'pending' });
  });

  it('plans each resolution', () => {
    expect(applyResolution(pending, 'supersede', NOW + 1)).toEqual({
      record: { ...pending, status: 'resolved', resolution: 'supersede', resolvedAt: NOW + 1 },
      mutations: [{ type: 'supersede', oldId: 'old', newId: 'new' }],
    });
    expect(applyResolution(pending, 'keep_both', NOW + 1).mutations).toEqual([{ type: 'link', from: 'new', to: 'old', rel: 'contradicts' }]);
    expect(applyResolution(pending, 'drop_new', NOW + 1).mutations).toEqual([{ type: 'forget', id: 'new' }]);
    const dup = pendingFromConflict(conflict(n, o, 'duplicate'), 'r2', NOW);
    expect(applyResolution(dup, 'keep_both', NOW).mutations).toEqual([]);
    expect(pending.status).toBe('pending'); // not mutated
  });

  it('rejects unknown resolutions and resolved records', () => {
    expect(REVIEW_RESOLUTIONS).toEqual(['supersede', 'keep_both', 'drop_new']);
    expectInvalid(() => checkResolution('merge'), 'resolution');
    expectInvalid(() => applyResolution(pending, 'Supersede', NOW), 'resolution');
    expectInvalid(() => applyResolution(pending, undefined, NOW), 'resolution');
    const { record } = applyResolution(pending, 'drop_new', NOW);
    expectInvalid(() => applyResolution(record, 'supersede', NOW), 'record');
  });

  it('validates stored records', () => {
    expect(checkPendingConflict({ ...pending })).toEqual(pending);
    expectInvalid(() => checkPendingConflict({ ...pending, oldId: 'new' }), 'conflict.oldId');
    expectInvalid(() => checkPendingConflict({ ...pending, kind: 'clash' }), 'conflict.kind');
    expectInvalid(() => checkPendingConflict({ ...pending, similarity: 3 }), 'conflict.similarity');
    expectInvalid(() => checkPendingConflict({ ...pending, status: 'done' }), 'conflict.status');
    expectInvalid(() => checkPendingConflict({ ...pending, resolution: 'supersede' }), 'conflict.resolution');
    expectInvalid(() => checkPendingConflict({ ...pending, status: 'resolved' }), 'conflict.resolution');
    expectInvalid(() => checkPendingConflict({ ...pending, status: 'resolved', resolution: 'supersede' }), 'conflict.resolvedAt');
    expectInvalid(() => checkPendingConflict('nope'), 'conflict');
  });

  it('finds the records a resolution makes moot', () => {
    const others: PendingConflict[] = [
      pending,
      { ...pending, id: 'r2', newId: 'other', oldId: 'new' },
      { ...pending, id: 'r3', newId: 'third', oldId: 'old' },
      { ...pending, id: 'r4', newId: 'x', oldId: 'y' },
    ];
    const drop = applyResolution(pending, 'drop_new', NOW).mutations;
    expect(supersededRecords(others, drop, 'r1').map((r) => r.id)).toEqual(['r2']);
    const sup = applyResolution(pending, 'supersede', NOW).mutations;
    expect(supersededRecords(others, sup, 'r1').map((r) => r.id)).toEqual(['r3']);
    expect(supersededRecords(others, [], 'r1')).toEqual([]);
  });
});

describe('ContradictionDetector', () => {
  it('flags a negation flip only when the rest of the sentence matches', () => {
    expect(predictContradiction('There is no man playing a guitar', 'A man is playing a guitar')).toBe(true);
    expect(predictContradiction('The man isn’t operating a stenograph', 'The man is operating a stenograph')).toBe(true);
    expect(predictContradiction('Nobody is riding the bicycle on one wheel', 'A person in a black jacket is doing tricks on a motorbike')).toBe(false);
    expect(predictContradiction('A man is playing a guitar', 'A man is playing a guitar')).toBe(false);
  });

  it('uses parity: a double negation does not flip', () => {
    expect(predictContradiction("Don't skip the tests, not ever", 'Skip the tests ever')).toBe(false);
    expect(predictContradiction("Don't skip the tests, not ever", 'Skip the tests ever', { negationMode: 'count' })).toBe(true);
  });

  it('opposite explicit polarity is a contradiction', () => {
    const d = new ContradictionDetector();
    expect(d.score({ text: 'Use X', polarity: 1 }, { text: 'Use Y', polarity: -1 })).toMatchObject({ reason: 'polarity_diff', score: 1 });
    expect(d.predict({ text: 'Use X', polarity: 1 }, { text: 'Use Y', polarity: -1 })).toBe(true);
  });

  it('exposes the score and validates options', () => {
    const d = new ContradictionDetector({ threshold: 0.5, similarity: 'jaccard' });
    const s = d.score('The cat is not sleeping', 'The cat is sleeping');
    expect(s).toMatchObject({ negationFlip: true, contentSimilarity: 1, score: 1, reason: 'negation_diff' });
    expect(new ContradictionDetector().threshold).toBe(DEFAULT_CONTRADICTION_THRESHOLD);
    expectInvalid(() => new ContradictionDetector({ threshold: 1.5 }), 'threshold');
    expectInvalid(() => new ContradictionDetector({ similarity: 'cosine' as never }), 'similarity');
  });
});
