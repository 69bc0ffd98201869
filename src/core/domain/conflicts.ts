/**
 * Conflict and contradiction detection, pure: the negation heuristic, AI-Houkai's conflict scan
 * (`_check_conflicts` / `find_conflicts`) over candidates the store supplies, the seed-002
 * classifier hook (CONTRADICTION / UPDATE / OVERLAP / NONE) and its resolution rules, the
 * `on_conflict` policies as action lists, and a small contradiction detector for evaluation.
 *
 * Behaviour follows AI-Houkai's `_check_conflicts` and `find_conflicts` (candidates, thresholds,
 * reason order, negation words) and the conflict-review design: a classifier's verdicts
 * (contradiction demotes, update supersedes, importance is inherited) and contradictions
 * surfaced to the person, never resolved behind their back (the `review` policy).
 */
import { invalid } from '../errors.ts';
import { askJudge, type JudgeRun } from './judge.ts';
import { comparePair, newerAddsValues, valuesDiffer } from './contradiction.ts';
import { EXTENDED_NEGATION_WORDS, negationTokens, overlapCoefficient } from './negation.ts';
import { setJaccard } from './tokenize.ts';
import type { Conflict, Memory, Polarity } from '../types.ts';

// Negation (negation.ts; re-exported here, where it always lived)
export { EXTENDED_NEGATION_WORDS, NEGATION_WORDS, negationCount, negationDiff, negationTokens, overlapCoefficient } from './negation.ts';

// ---------------------------------------------------------------------------------------------
// The conflict scan
// ---------------------------------------------------------------------------------------------

/** Reference `conflict_threshold`: a pair must have cosine ≥ this to be a conflict at all. */
export const CONFLICT_THRESHOLD = 0.8;
/** Reference `_check_conflicts`: the write-time scan looks at the top `min(count, 12)` vector neighbours. */
export const CONFLICT_CANDIDATES = 12;

/**
 * Below {@link CONFLICT_THRESHOLD}, a pair can still conflict by one of the lexical patterns
 * (contradiction.ts: a changed value or swapped alternatives) down to this cosine: "Our CI runs on
 * GitHub Actions" / "… on CircleCI" are less alike (MiniLM 0.39) than two paraphrases. The
 * patterns themselves need a shared frame, so this only keeps unrelated neighbours out. Chosen on
 * bench/data/changed-values.json (tuning): from 0.5 to 0.3 MiniLM finds 5 more of its 160 changed
 * values and neither the 82-memory agent store nor a 788-turn chat store raises one more conflict
 * (`bench/changed-values.ts`).
 */
export const PATTERN_GATE = 0.3;

/**
 * The gate in the embedder's own units: {@link PATTERN_GATE_SPREADS} robust spreads above the
 * median cosine of unrelated text (its reference background, `calibrations.ts`), never below
 * {@link PATTERN_GATE}. MiniLM's background puts it at 0.299, the gate chosen on it; bge-small,
 * whose unrelated pairs sit at 0.35, at 0.62 ("The weekly team standup is on Tuesdays at 9:30" and
 * "Team office moved to Leopoldstraße 8" are 0.52 to it, and were an update at 0.3).
 */
export const PATTERN_GATE_SPREADS = 4;

export function patternGateFor(background: { median: number; spread: number } | undefined): number {
  return background ? Math.max(PATTERN_GATE, background.median + PATTERN_GATE_SPREADS * background.spread) : PATTERN_GATE;
}

/** 'update': the newer memory replaces the older (a changed value or preference, "no longer"). */
export type ConflictKind = 'contradiction' | 'update' | 'duplicate';
export type ConflictReason = 'polarity_diff' | 'negation_diff' | 'swapped_alternatives' | 'value_mismatch' | 'custom_fn' | 'similarity' | 'judge';

/** A user contradiction judge (an LLM call, say); may be async. */
export type ContradictionFn = (a: Memory, b: Memory) => boolean | Promise<boolean>;

export interface ConflictVerdict {
  kind: ConflictKind;
  reason: ConflictReason;
  /** For the lexical patterns: what changed (`older → newer`, or the swapped words). */
  detail?: string;
}

/** True when both polarities are set (non-zero) and opposite. */
export function polarityOpposed(a: Polarity, b: Polarity): boolean {
  return a !== 0 && b !== 0 && a !== b;
}

const PATTERN_REASON = { negation: 'negation_diff', swap: 'swapped_alternatives', value: 'value_mismatch' } as const;

/**
 * The cheap, deterministic part of the reason order: opposite explicit polarity →
 * `contradiction/polarity_diff`; else the patterns of contradiction.ts, reading the older of the
 * two (by `createdAt`; `b` on a tie) against the newer: a negation that flips the same statement
 * (`negation_diff`; AI-Houkai's plain parity rule, without the content check, called "Use pnpm,
 * not npm" and "We use pnpm rather than npm" a contradiction), swapped alternatives
 * (`swapped_alternatives`) or a changed value (`value_mismatch`), each a `contradiction` or an
 * `update` when the newer one replaces the older; else null (undecided: the custom function,
 * then `duplicate`, come next).
 */
export function quickConflictReason(
  a: Pick<Memory, 'text' | 'polarity'> & { createdAt?: number },
  b: Pick<Memory, 'text' | 'polarity'> & { createdAt?: number },
): ConflictVerdict | null {
  if (polarityOpposed(a.polarity, b.polarity)) return { kind: 'contradiction', reason: 'polarity_diff' };
  const [older, newer] = (a.createdAt ?? 0) < (b.createdAt ?? 0) ? [a, b] : [b, a];
  const verdict = comparePair(older.text, newer.text);
  if (!verdict) return null;
  return { kind: verdict.kind, reason: PATTERN_REASON[verdict.pattern], ...(verdict.detail === undefined ? {} : { detail: verdict.detail }) };
}

/**
 * Classifies an already-similar, eligible pair, in the reference order: polarity →
 * negation (and the other patterns) → `contradictionFn` → duplicate. The function is consulted **only** when neither cheap
 * rule decided ("negation is a fast-path"); a truthy answer gives
 * `contradiction/custom_fn`. It may be async; its errors propagate.
 *
 * A duplicate is only the same statement: two statements holding different values of one kind
 * (times, numbers, days, months, names: `valuesDiffer`) never are, however alike their vectors.
 * When the rest of their words agree it is a changed value (`value_mismatch`: an update when
 * the newer says so, else a contradiction, checked before the custom function like the other
 * patterns); when it does not, two facts about different things, and the result is null (nothing
 * to report).
 */
export async function conflictReason(
  a: Memory,
  b: Memory,
  options: { contradictionFn?: ContradictionFn | null } = {},
): Promise<ConflictVerdict | null> {
  const quick = quickConflictReason(a, b);
  if (quick) return quick;
  const [older, newer] = (a.createdAt ?? 0) < (b.createdAt ?? 0) ? [a, b] : [b, a];
  const values = valuesDiffer(older.text, newer.text);
  if (values.differ && values.frame) return { kind: 'update', reason: 'value_mismatch' };
  const fn = options.contradictionFn;
  if (fn && (await fn(a, b))) return { kind: 'contradiction', reason: 'custom_fn' };
  return values.differ ? null : { kind: 'duplicate', reason: 'similarity' };
}

export type ConflictSkip = 'self' | 'type' | 'superseded' | 'expired' | 'tags';

/**
 * Why a pair is not a conflict candidate, or null when it is (reference `_check_conflicts` and
 * the conflict definition): the same memory; different types; either one superseded;
 * with `now`, either one expired (`0 < expiresAt ≤ now`; the write-time scan passes it, the
 * reference's global `find_conflicts` does not, trap 8); the tag guard: both tagged and no tag in
 * common. The similarity gate is separate (see {@link detectConflicts}).
 */
export function conflictSkipReason(
  a: Pick<Memory, 'id' | 'type' | 'supersededBy' | 'expiresAt' | 'tags'>,
  b: Pick<Memory, 'id' | 'type' | 'supersededBy' | 'expiresAt' | 'tags'>,
  options: { now?: number } = {},
): ConflictSkip | null {
  if (a.id === b.id) return 'self';
  if (a.type !== b.type) return 'type';
  if (a.supersededBy !== '' || b.supersededBy !== '') return 'superseded';
  const now = options.now;
  if (now !== undefined && ((a.expiresAt > 0 && a.expiresAt <= now) || (b.expiresAt > 0 && b.expiresAt <= now))) return 'expired';
  if (a.tags.length > 0 && b.tags.length > 0 && !a.tags.some((t) => b.tags.includes(t))) return 'tags';
  return null;
}

/** True when the pair may be compared at all (see {@link conflictSkipReason}). */
export function conflictEligible(
  a: Pick<Memory, 'id' | 'type' | 'supersededBy' | 'expiresAt' | 'tags'>,
  b: Pick<Memory, 'id' | 'type' | 'supersededBy' | 'expiresAt' | 'tags'>,
  options: { now?: number } = {},
): boolean {
  return conflictSkipReason(a, b, options) === null;
}

/** Python's `round(x, 4)` for a similarity (half-to-even ties are immaterial at this precision). */
export function roundSimilarity(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

export interface DetectOptions {
  /** Cosine gate, default {@link CONFLICT_THRESHOLD}. */
  threshold?: number;
  /** Lower cosine gate for the lexical patterns alone (value, swap, negation), default {@link PATTERN_GATE}. */
  patternGate?: number;
  contradictionFn?: ContradictionFn | null;
  /** When set, expired rows are skipped (the write-time scan does this). */
  now?: number;
  /** The host's judge for the pairs the patterns leave undecided, with this call's budget (judge.ts). */
  judge?: JudgeRun | null;
}

function checkThreshold(value: unknown, field = 'threshold', fallback = CONFLICT_THRESHOLD): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < -1 || value > 1) {
    throw invalid(`${field} must be a finite number in [-1, 1] — got ${JSON.stringify(value)}`, { field });
  }
  return value;
}

/**
 * The verdict for one eligible pair at cosine `similarity`: the full reason order at or above the
 * threshold; between the pattern gate and the threshold only a lexical pattern (a pair that is
 * not alike enough to be a duplicate can still state a changed value); else null.
 */
async function pairVerdict(a: Memory, b: Memory, similarity: number, threshold: number, gate: number, options: DetectOptions): Promise<ConflictVerdict | null> {
  if (similarity >= threshold) return conflictReason(a, b, { contradictionFn: options.contradictionFn ?? null });
  if (!(similarity >= gate)) return null;
  const quick = quickConflictReason({ ...a, polarity: 0 }, { ...b, polarity: 0 });
  return quick;
}

/**
 * The write-time scan (`_check_conflicts`) over the vector neighbours of `memory` the store found
 * (top {@link CONFLICT_CANDIDATES}, best first, with their cosine): skips ineligible pairs,
 * classifies those at or above the threshold in the reference order and those between the
 * pattern gate and the threshold by the lexical patterns alone (see `pairVerdict`). Conflicts
 * come out in candidate order as `{a: memory, b: candidate, similarity (4 dp), kind, reason}`.
 * The custom function is awaited one candidate at a time.
 */
export async function detectConflicts(
  memory: Memory,
  candidates: readonly { memory: Memory; similarity: number }[],
  options: DetectOptions = {},
): Promise<Conflict[]> {
  const threshold = checkThreshold(options.threshold);
  const gate = Math.min(threshold, checkThreshold(options.patternGate, 'patternGate', PATTERN_GATE));
  const out: Conflict[] = [];
  for (const c of candidates) {
    if (conflictSkipReason(memory, c.memory, options.now === undefined ? {} : { now: options.now }) !== null) continue;
    let verdict = await pairVerdict(memory, c.memory, c.similarity, threshold, gate, options);
    // Undecided by the patterns (nothing, or a duplicate by similarity alone): the judge, if any.
    if (options.judge && (verdict === null || verdict.reason === 'similarity')) {
      const judged = await askJudge(options.judge, memory, c.memory, c.similarity);
      if (judged) verdict = judged.label === 'unrelated' ? null : { kind: judged.label, reason: 'judge', ...(judged.reason ? { detail: judged.reason } : {}) };
    }
    if (verdict) out.push({ a: memory, b: c.memory, similarity: roundSimilarity(c.similarity), ...verdict });
  }
  return out;
}

/**
 * The global `find_conflicts()` scan: every unordered pair (i < j, input order) that is eligible
 * and at or above the threshold (or above the pattern gate with a lexical pattern), given a similarity function (cosine of the stored vectors; a
 * pair for which it returns null, e.g. a missing vector, is skipped). O(n²): meant for agent-scale
 * stores. Without `now`, expired rows are compared too, as the reference does.
 */
export async function scanAllConflicts(
  memories: readonly Memory[],
  similarity: (a: Memory, b: Memory) => number | null,
  options: DetectOptions = {},
): Promise<Conflict[]> {
  const threshold = checkThreshold(options.threshold);
  const gate = Math.min(threshold, checkThreshold(options.patternGate, 'patternGate', PATTERN_GATE));
  const out: Conflict[] = [];
  const skipOpts = options.now === undefined ? {} : { now: options.now };
  for (let i = 0; i < memories.length; i++) {
    const a = memories[i]!;
    if (a.supersededBy !== '') continue;
    for (let j = i + 1; j < memories.length; j++) {
      const b = memories[j]!;
      if (conflictSkipReason(a, b, skipOpts) !== null) continue;
      const sim = similarity(a, b);
      if (sim === null) continue;
      const verdict = await pairVerdict(a, b, sim, threshold, gate, options);
      if (verdict) out.push({ a, b, similarity: roundSimilarity(sim), ...verdict });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

/**
 * `on_conflict` values: the reference's four plus `review` (seed 003: contradictions are surfaced
 * to the user and never auto-resolved). The store default is `ignore` (trap 6).
 */
export const CONFLICT_POLICIES = ['ignore', 'warn', 'supersede', 'raise', 'review'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

export function checkPolicy(value: unknown, field = 'onConflict'): ConflictPolicy {
  if (typeof value !== 'string' || !(CONFLICT_POLICIES as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${CONFLICT_POLICIES.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as ConflictPolicy;
}

/**
 * What `remember` does about the conflicts of a new memory (`conflict.a` is the new memory,
 * `conflict.b` the existing one):
 * - `report`: return/emit the conflicts, change nothing (`warn`);
 * - `reject`: throw before anything is written, nothing stored or journaled (`raise`, so the store
 *   must scan *before* writing under this policy);
 * - `merge`: the new memory is a duplicate of `intoId`: touch `intoId`, set its importance to
 *   `importance` (the max of both), and drop (do not keep) the new memory `fromId`;
 * - `supersede`: `supersede(oldId, newId)` (supersede contradicted memories);
 * - `queue`: record a pending conflict for the user's review (see `review.ts`).
 */
export type PolicyAction =
  | { type: 'report'; conflicts: Conflict[] }
  | { type: 'reject'; conflicts: Conflict[] }
  | { type: 'merge'; intoId: string; fromId: string; importance: number; conflict: Conflict }
  | { type: 'supersede'; oldId: string; newId: string; conflict: Conflict }
  | { type: 'queue'; newId: string; oldId: string; kind: ConflictKind; reason: string; similarity: number };

/**
 * The action list for a policy (the behaviour matrix, plus `review`):
 * - `ignore` → nothing (the store need not even scan);
 * - `warn` → one `report` when there are conflicts;
 * - `raise` → one `reject` when there are conflicts (checked before the write);
 * - `supersede` → duplicates are **merged into the existing memory** (the best-similarity
 *   duplicate: touched, importance raised to the max; the new memory is dropped), contradicted
 *   and updated memories are superseded, by the new memory, or by the merge target when the new
 *   one was merged away. (The reference superseded duplicates too, trap 6; the seed's matrix is followed.)
 *   A duplicate whose newer text holds a value the older lacks ("… at 9:30" / "… at 9:30 in room
 *   4B") is superseded like an update instead: the newer wording is never merged away.
 * - `review` → the new memory is kept and one `queue` per conflict is recorded; nothing is
 *   resolved. `reviewKinds` limits which kinds are queued (default both).
 */
export function decidePolicy(
  policy: ConflictPolicy,
  conflicts: readonly Conflict[],
  options: { reviewKinds?: readonly ConflictKind[] } = {},
): PolicyAction[] {
  const p = checkPolicy(policy, 'policy');
  if (conflicts.length === 0 || p === 'ignore') return [];
  if (p === 'warn') return [{ type: 'report', conflicts: [...conflicts] }];
  if (p === 'raise') return [{ type: 'reject', conflicts: [...conflicts] }];
  if (p === 'review') {
    const kinds = options.reviewKinds ?? ['contradiction', 'update', 'duplicate'];
    return conflicts
      .filter((c) => kinds.includes(c.kind))
      .map((c) => ({ type: 'queue' as const, newId: c.a.id, oldId: c.b.id, kind: c.kind, reason: c.reason, similarity: c.similarity }));
  }
  // supersede
  const actions: PolicyAction[] = [];
  // A duplicate whose newer wording holds a value the older lacks is kept, the older superseded:
  // a merge would keep the older text and lose it.
  const duplicates = conflicts.filter((c) => c.kind === 'duplicate' && !newerAddsValues(c.b.text, c.a.text));
  let survivor = conflicts[0]!.a.id;
  if (duplicates.length > 0) {
    // Best similarity first; ties keep candidate order.
    const best = duplicates.reduce((x, y) => (y.similarity > x.similarity ? y : x));
    actions.push({
      type: 'merge',
      intoId: best.b.id,
      fromId: best.a.id,
      importance: Math.max(best.a.importance, best.b.importance),
      conflict: best,
    });
    survivor = best.b.id;
  }
  const superseded = new Set<string>();
  for (const c of conflicts) {
    if (duplicates.includes(c) || c.b.id === survivor || superseded.has(c.b.id)) continue;
    superseded.add(c.b.id);
    actions.push({ type: 'supersede', oldId: c.b.id, newId: survivor, conflict: c });
  }
  return actions;
}

// ---------------------------------------------------------------------------------------------
// The seed-002 classifier hook
// ---------------------------------------------------------------------------------------------

export const CLASSIFICATIONS = ['CONTRADICTION', 'UPDATE', 'OVERLAP', 'NONE'] as const;
/** Seed 002: how a new memory relates to an existing one. */
export type Classification = (typeof CLASSIFICATIONS)[number];

/** A classifier (typically an LLM prompted with {@link classificationPrompt}). */
export type Classifier = (existing: Memory, incoming: Memory) => Classification | Promise<Classification>;

export function checkClassification(value: unknown, field = 'classification'): Classification {
  if (typeof value !== 'string' || !(CLASSIFICATIONS as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${CLASSIFICATIONS.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as Classification;
}

/** Seed 002's prompt, verbatim apart from the substituted texts. */
export function classificationPrompt(existing: Pick<Memory, 'text'>, incoming: Pick<Memory, 'text'>): string {
  return [
    'Does the new memory contradict or update an existing memory?',
    '',
    `Existing memory: "${existing.text}"`,
    `New memory: "${incoming.text}"`,
    '',
    'Respond with exactly one word: CONTRADICTION, UPDATE, OVERLAP, or NONE.',
    '- CONTRADICTION: the new memory directly negates the existing one',
    '- UPDATE: the new memory is a newer version of the same fact',
    "- OVERLAP: they cover similar ground but don't conflict",
    '- NONE: they are unrelated',
  ].join('\n');
}

/**
 * Reads a model's answer: the first of the four words found as a whole word (case-insensitive),
 * or null when none is. "It's an UPDATE." → `UPDATE`.
 */
export function parseClassification(answer: string): Classification | null {
  const m = /\b(CONTRADICTION|UPDATE|OVERLAP|NONE)\b/i.exec(answer);
  return m ? (m[1]!.toUpperCase() as Classification) : null;
}

/** Seed 002's candidate filters: similarity gate 0.6, importance > 0.5 or core (pinned), not superseded. */
export const CLASSIFIER_GATE = 0.6;
export const CLASSIFIER_MIN_IMPORTANCE = 0.5;

/**
 * Whether an existing memory is worth a classifier call for a new one (seed 002 "How conflict
 * detection works"): not superseded, "importance > 0.5 or core" (pinned stands for core here), and
 * cosine ≥ the gate (0.6).
 */
export function classifierCandidate(
  existing: Pick<Memory, 'supersededBy' | 'importance' | 'pinned'>,
  similarity: number,
  options: { gate?: number; minImportance?: number } = {},
): boolean {
  const gate = options.gate ?? CLASSIFIER_GATE;
  const minImportance = options.minImportance ?? CLASSIFIER_MIN_IMPORTANCE;
  if (existing.supersededBy !== '') return false;
  if (!(existing.importance > minImportance || existing.pinned)) return false;
  return similarity >= gate;
}

export interface Resolution {
  /** Supersede the existing memory by the new one (seed 002: `contradicted_by` is set). */
  supersedeOld: boolean;
  /** The existing memory is pinned and loses its pin ("old memory is demoted": core → semantic). */
  unpinOld: boolean;
  /** Pin the new memory (it is not pinned yet): a CONTRADICTION of a pinned memory ("core inheritance"). */
  pinNew: boolean;
  /** The new memory's importance: max(new, old) on CONTRADICTION/UPDATE, else unchanged. */
  newImportance: number;
}

/**
 * Seed 002's resolution rules. CONTRADICTION or UPDATE: supersede the old memory; a pinned old
 * memory loses its pin; the new memory takes the higher importance; and only on a CONTRADICTION of
 * a pinned memory is the new one pinned (an UPDATE does not inherit the pin, so apply the
 * supersede with `movePin: false` from `planSupersede` and let these flags decide). OVERLAP or
 * NONE: nothing; both coexist.
 */
export function resolutionFor(
  existing: Pick<Memory, 'importance' | 'pinned'>,
  incoming: Pick<Memory, 'importance' | 'pinned'>,
  classification: Classification,
): Resolution {
  const c = checkClassification(classification);
  if (c === 'OVERLAP' || c === 'NONE') {
    return { supersedeOld: false, unpinOld: false, pinNew: false, newImportance: incoming.importance };
  }
  return {
    supersedeOld: true,
    unpinOld: existing.pinned,
    pinNew: c === 'CONTRADICTION' && existing.pinned && !incoming.pinned,
    newImportance: Math.max(incoming.importance, existing.importance),
  };
}

export interface ClassifiedCandidate {
  existing: Memory;
  similarity: number;
  classification: Classification;
  resolution: Resolution;
}

export interface IncomingPlan {
  decisions: ClassifiedCandidate[];
  /** The new memory's final importance: the max over every CONTRADICTION/UPDATE. */
  newImportance: number;
  /** Whether the new memory ends up pinned by inheritance. */
  pinNew: boolean;
  /** Existing memories to supersede by the new one. */
  supersede: string[];
  /** Existing memories that lose their pin. */
  unpin: string[];
}

/**
 * Runs the classifier hook on a new memory: gates the candidates (see {@link classifierCandidate};
 * the new memory itself is skipped), classifies each in order (one awaited call at a time) and
 * folds the seed-002 resolutions into one plan. A classifier answer outside the four values throws
 * INVALID_ARGUMENT.
 */
export async function classifyIncoming(
  incoming: Memory,
  candidates: readonly { memory: Memory; similarity: number }[],
  classifier: Classifier,
  options: { gate?: number; minImportance?: number } = {},
): Promise<IncomingPlan> {
  const decisions: ClassifiedCandidate[] = [];
  let newImportance = incoming.importance;
  let pinNew = false;
  const supersede: string[] = [];
  const unpin: string[] = [];
  for (const c of candidates) {
    if (c.memory.id === incoming.id || !classifierCandidate(c.memory, c.similarity, options)) continue;
    const classification = checkClassification(await classifier(c.memory, incoming));
    const resolution = resolutionFor(c.memory, incoming, classification);
    decisions.push({ existing: c.memory, similarity: c.similarity, classification, resolution });
    if (resolution.supersedeOld) {
      newImportance = Math.max(newImportance, resolution.newImportance);
      if (!supersede.includes(c.memory.id)) supersede.push(c.memory.id);
    }
    if (resolution.unpinOld && !unpin.includes(c.memory.id)) unpin.push(c.memory.id);
    pinNew ||= resolution.pinNew;
  }
  return { decisions, newImportance, pinNew, supersede, unpin };
}

// ---------------------------------------------------------------------------------------------
// Contradiction detector (evaluation)
// ---------------------------------------------------------------------------------------------

/**
 * Function words ignored when comparing the content of two sentences (determiners, auxiliaries,
 * prepositions, pronouns): "There is no man playing a guitar" and "A man is playing the guitar"
 * have the same content {man, playing, guitar}.
 */
export const CONTENT_STOPWORDS: readonly string[] = [
  'a', 'an', 'the', 'some', 'one', 'this', 'that', 'these', 'those', 'there', 'here', 'is', 'are', 'was', 'were',
  'be', 'been', 'being', 'am', 'has', 'have', 'had', 'do', 'does', 'did', 'will', 'would', 'can', 'could',
  'should', 'may', 'might', 'must', 'of', 'in', 'on', 'at', 'to', 'by', 'with', 'for', 'from', 'into', 'onto',
  'and', 'or', 'but', 'it', 'its', 'his', 'her', 'their', 'they', 'he', 'she', 'who', 'which', 'what',
];

export interface DetectorOptions {
  /** Minimum content similarity of the two sentences for a negation flip to count, default {@link DEFAULT_CONTRADICTION_THRESHOLD}. */
  threshold?: number;
  /** Negation words, default {@link EXTENDED_NEGATION_WORDS}. */
  negationWords?: readonly string[];
  /** `'parity'` (reference) or `'count'` (any difference in the number of negations), default `'parity'`. */
  negationMode?: 'parity' | 'count';
  /** Content similarity: overlap coefficient |A∩B| / min(|A|, |B|) (default) or token-set Jaccard. */
  similarity?: 'jaccard' | 'overlap';
  /** Words dropped before comparing content, default {@link CONTENT_STOPWORDS}; `[]` keeps every token. */
  stopwords?: readonly string[];
}

export interface DetectorInput {
  text: string;
  polarity?: Polarity;
}

export interface DetectorScore {
  /** True when explicit polarities are opposite, or the negation rule fired. */
  negationFlip: boolean;
  /** Content similarity of the non-negation, non-stopword tokens, in [0, 1]. */
  contentSimilarity: number;
  /** The contradiction score: 1 for opposite explicit polarity, `contentSimilarity` when the negations flip, else 0. */
  score: number;
  reason: 'polarity_diff' | 'negation_diff' | null;
}

/**
 * Content-similarity threshold, tuned with the other defaults (extended negation list, parity,
 * overlap coefficient, stop words dropped) on SICK TRAIN+TRIAL by maximum F0.5 (precision
 * weighted). `bench/contradiction.ts` re-derives the whole choice and reports the trade-off.
 */
export const DEFAULT_CONTRADICTION_THRESHOLD = 0.85;

/**
 * A tiny, dependency-free contradiction detector built from the store's own heuristics, for
 * evaluation and as a precision-first pre-filter for the review queue. It predicts a contradiction
 * when explicit polarities are opposite, or when the negation parity flips **and** the two texts
 * say nearly the same thing apart from the negation: the overlap coefficient of their content
 * tokens (negations and {@link CONTENT_STOPWORDS} removed) is ≥ the threshold. Plain parity also
 * flags "There is no dog running" against "Two dogs are playing", which is not a contradiction:
 * on SICK TEST it has precision 0.60; the content gate lifts it to 0.96 (recall 0.83 → 0.72). No cosine gate is applied here because evaluation pairs (SICK) are already
 * paired; in the store the similarity gate (cosine ≥ 0.80) applies first and this only refines.
 */
export class ContradictionDetector {
  readonly threshold: number;
  readonly negationMode: 'parity' | 'count';
  readonly similarity: 'jaccard' | 'overlap';
  private readonly negations: ReadonlySet<string>;
  private readonly stopwords: ReadonlySet<string>;

  constructor(options: DetectorOptions = {}) {
    const t = options.threshold ?? DEFAULT_CONTRADICTION_THRESHOLD;
    if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) {
      throw invalid(`threshold must be a finite number in [0, 1] — got ${JSON.stringify(t)}`, { field: 'threshold' });
    }
    this.threshold = t;
    this.negationMode = options.negationMode ?? 'parity';
    if (this.negationMode !== 'parity' && this.negationMode !== 'count') throw invalid('negationMode must be parity or count', { field: 'negationMode' });
    this.similarity = options.similarity ?? 'overlap';
    if (this.similarity !== 'jaccard' && this.similarity !== 'overlap') throw invalid('similarity must be jaccard or overlap', { field: 'similarity' });
    this.negations = new Set(options.negationWords ?? EXTENDED_NEGATION_WORDS);
    this.stopwords = new Set(options.stopwords ?? CONTENT_STOPWORDS);
  }

  /** The features and score of a pair (symmetric in its arguments). */
  score(premise: string | DetectorInput, hypothesis: string | DetectorInput): DetectorScore {
    const a = typeof premise === 'string' ? { text: premise } : premise;
    const b = typeof hypothesis === 'string' ? { text: hypothesis } : hypothesis;
    const ta = negationTokens(a.text);
    const tb = negationTokens(b.text);
    const na = ta.filter((t) => this.negations.has(t)).length;
    const nb = tb.filter((t) => this.negations.has(t)).length;
    const content = (tokens: string[]): Set<string> => new Set(tokens.filter((t) => !this.negations.has(t) && !this.stopwords.has(t)));
    const ca = content(ta);
    const cb = content(tb);
    const contentSimilarity = this.similarity === 'jaccard' ? setJaccard(ca, cb) : overlapCoefficient(ca, cb);
    if (polarityOpposed(a.polarity ?? 0, b.polarity ?? 0)) {
      return { negationFlip: true, contentSimilarity, score: 1, reason: 'polarity_diff' };
    }
    const flip = this.negationMode === 'parity' ? na % 2 !== nb % 2 : na !== nb;
    return { negationFlip: flip, contentSimilarity, score: flip ? contentSimilarity : 0, reason: flip ? 'negation_diff' : null };
  }

  /** True when the pair is predicted to contradict. */
  predict(premise: string | DetectorInput, hypothesis: string | DetectorInput): boolean {
    const s = this.score(premise, hypothesis);
    return s.reason === 'polarity_diff' || (s.negationFlip && s.contentSimilarity >= this.threshold);
  }
}


const defaultDetector = new ContradictionDetector();

/**
 * {@link ContradictionDetector.predict} with the default configuration (or the given options).
 * `threshold` is the content-similarity threshold (default {@link DEFAULT_CONTRADICTION_THRESHOLD}).
 */
export function predictContradiction(
  premise: string | DetectorInput,
  hypothesis: string | DetectorInput,
  options: DetectorOptions = {},
): boolean {
  const detector = Object.keys(options).length === 0 ? defaultDetector : new ContradictionDetector(options);
  return detector.predict(premise, hypothesis);
}
