/**
 * Memory health (per-memory statuses: at risk, stale, orphan, healthy, with reasons) and
 * the AI-Houkai health report (`houkai stats --health`). Pure: the caller passes
 * the memories, `now`, the incoming-link counts and the ids with unresolved conflicts.
 *
 * ## Status (seed 004 `compute_health`)
 *
 * Each memory gets exactly one status, decided by the first rule that holds, in this order:
 *
 * 1. `at_risk`: superseded (`supersededBy` set: "Superseded by newer memory"), or it has
 *    unresolved conflicts (its id is in `pendingConflictIds`, i.e. the store's review queue:
 *    "Has N unresolved conflict(s)"). Optionally potential conflicts count too (see
 *    `potentialConflictsAtRisk`).
 * 2. `stale`: not accessed for more than `staleDays` (default 90) days, i.e.
 *    `now − lastAccessed > staleDays · 86 400` ("Not accessed in N days", N whole days).
 * 3. `orphan`: no connections: no outgoing links and no incoming links (`incomingCount` 0).
 * 4. `healthy` otherwise ("Active and connected").
 *
 * Precedence at_risk > stale > orphan > healthy is the seed's early-return order. It makes the
 * status a total function of (superseded, unresolved conflicts, idle time, connections), so
 * property 3 (exactly one status from the four) and property 4 (identical inputs ⇒ identical
 * output) hold by construction; superseded ⇒ at_risk follows from rule 1 being first. `reasons`
 * lists every reason of the chosen status (an at_risk memory may be superseded *and* in conflict),
 * the deciding one first.
 *
 * Fallbacks: an unusable `lastAccessed` falls back to `createdAt`, then to
 * 0 idle days (not stale); a missing `incomingCount` is 0.
 *
 * ## Potential conflicts (seed 004 `detect_potential_conflict`, properties 5 and 6)
 *
 * Two memories *might* conflict when they are in the same domain and their concept sets overlap:
 * Jaccard ≥ `conflictThreshold` (0.6; the seed's code flags `overlap ≥ threshold`).
 * - concepts(m) = lower-cased tags ∪ `extractKeyPhrases(text, maxPhrases)` (bigrams of
 *   non-stop words, then the words, lower-case; `maxPhrases` default 10);
 * - same domain = same `type` and at least one shared tag (compared lower-cased), or both
 *   untagged. The domain is reported as `type` (both untagged) or `type:tag1,tag2` (the shared
 *   tags, sorted);
 * - a memory with no concepts is never flagged;
 * - superseded and expired memories are not compared, nor are pairs already linked by
 *   `contradicts` or `supersedes` (in either direction): those are resolved or confirmed.
 * The test is symmetric (property 5). Results are soft flags only (property 6): they are returned
 * as `potentialConflicts` and per memory in `potentialConflictIds`, nothing is written and no
 * `contradicts` link is ever made; the store keeps them apart from confirmed contradictions.
 *
 * All pairs are found exactly without comparing every pair: concepts are ordered by rarity and
 * only pairs sharing one of the first `|x| − ⌈t·|x|⌉ + 1` concepts of a set (its prefix) are
 * verified, with the size filter `|y| ≥ t·|x|` (prefix filtering, as in AllPairs/PPJoin: two sets
 * with Jaccard ≥ t always share a prefix concept).
 */
import { checkDecayOptions, decayScorer, isExpired, SECONDS_PER_DAY, type DecayOptions } from './decay.ts';
import { invalid } from '../errors.ts';
import { codePointLength, extractKeyPhrases } from './recall-pack.ts';
import { pyMean, pyRound3 } from './reflect.ts';
import { checkNumberInRange } from './validate.ts';
import type { Memory } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, checkTimestamp } from './validate.ts';

export const HEALTH_STATUSES = ['healthy', 'stale', 'at_risk', 'orphan'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

export const DEFAULT_STALE_DAYS = 90;
export const DEFAULT_CONFLICT_THRESHOLD = 0.6;
export const DEFAULT_CONCEPT_PHRASES = 10;

export interface HealthReport {
  status: HealthStatus;
  /** Why, deciding reason first. */
  reasons: string[];
}

/** Ids with unresolved conflicts; as a Map, the value is how many. */
export type PendingConflicts = ReadonlySet<string> | ReadonlyMap<string, number>;

export interface HealthOptions {
  /** Unix seconds. */
  now: number;
  /** Idle days after which a memory is stale, finite ≥ 0. Default 90 (seed 004; the reference CLI uses 30). */
  staleDays?: number;
  /** Links pointing at this memory, a whole number ≥ 0. Default 0. */
  incomingCount?: number;
  pendingConflictIds?: PendingConflicts;
}

function checkPending(value: unknown): PendingConflicts {
  if (value === undefined) return new Set();
  if (!(value instanceof Set) && !(value instanceof Map)) {
    throw invalid('pendingConflictIds must be a Set of ids or a Map of id → count', { field: 'pendingConflictIds' });
  }
  return value as PendingConflicts;
}

function checkStaleDays(value: unknown): number {
  return value === undefined ? DEFAULT_STALE_DAYS : checkNumberInRange(value, 'staleDays', 0, Number.POSITIVE_INFINITY);
}

/** Seconds since last access, with the seed's fallbacks; never negative. */
function idleSeconds(memory: Memory, now: number): number {
  const usable = (t: number): boolean => typeof t === 'number' && Number.isFinite(t) && t > 0;
  const last = usable(memory.lastAccessed) ? memory.lastAccessed : usable(memory.createdAt) ? memory.createdAt : now;
  return Math.max(0, now - last);
}

function pendingCount(pending: PendingConflicts, id: string): number {
  if (pending instanceof Map) {
    const n = pending.get(id);
    return n === undefined ? 0 : Math.max(1, Math.floor(n));
  }
  return (pending as ReadonlySet<string>).has(id) ? -1 : 0; // -1: present, count unknown
}

function statusOf(
  memory: Memory,
  now: number,
  staleDays: number,
  incomingCount: number,
  pending: PendingConflicts,
  potential: number,
): HealthReport {
  const atRisk: string[] = [];
  if (memory.supersededBy) atRisk.push('Superseded by newer memory');
  const n = pendingCount(pending, memory.id);
  if (n > 0) atRisk.push(`Has ${n} unresolved conflict(s)`);
  else if (n < 0) atRisk.push('Has unresolved conflict(s)');
  if (potential > 0) atRisk.push(`Has ${potential} potential conflict(s)`);
  if (atRisk.length > 0) return { status: 'at_risk', reasons: atRisk };

  const idle = idleSeconds(memory, now);
  if (idle > staleDays * SECONDS_PER_DAY) {
    return { status: 'stale', reasons: [`Not accessed in ${Math.floor(idle / SECONDS_PER_DAY)} days`] };
  }
  if (memory.links.length + incomingCount === 0) return { status: 'orphan', reasons: ['No connections to other memories'] };
  return { status: 'healthy', reasons: ['Active and connected'] };
}

/** The health of one memory (see the module comment for the rules and their order). */
export function healthOf(memory: Memory, options: HealthOptions): HealthReport {
  if (memory === null || typeof memory !== 'object') throw invalid('memory must be a memory', { field: 'memory' });
  if (options === undefined) throw invalid('options must be an options object with now', { field: 'options' });
  const raw = checkObject<HealthOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set(['now', 'staleDays', 'incomingCount', 'pendingConflictIds']), 'options');
  const now = checkTimestamp(raw.now, 'now');
  const staleDays = checkStaleDays(raw.staleDays);
  const incoming = raw.incomingCount === undefined ? 0 : checkInteger(raw.incomingCount, 'incomingCount', 0);
  return statusOf(memory, now, staleDays, incoming, checkPending(raw.pendingConflictIds), 0);
}

// ---------------------------------------------------------------------------------------------
// Concepts and potential conflicts
// ---------------------------------------------------------------------------------------------

export interface PotentialConflict {
  /** The smaller id of the pair. */
  a: string;
  b: string;
  /** |concepts(a) ∩ concepts(b)| / |concepts(a) ∪ concepts(b)|. */
  jaccard: number;
  /** The shared concepts, sorted. */
  sharedConcepts: string[];
  /** `type`, or `type:tag1,tag2` with the shared tags. */
  domain: string;
  /** "High concept overlap (67%): c1, c2, c3" (the first three shared concepts). */
  reason: string;
}

export interface ConflictOptions {
  /** Jaccard needed to flag a pair, in (0, 1]. Default 0.6. */
  conflictThreshold?: number;
  /** Key phrases taken from the text, a whole number ≥ 0. Default 10. */
  maxPhrases?: number;
}

/** concepts(m) = lower-cased tags ∪ key phrases of the text (see the module comment). */
export function memoryConcepts(memory: Memory, maxPhrases = DEFAULT_CONCEPT_PHRASES): string[] {
  const out = new Set<string>();
  for (const tag of memory.tags) out.add(tag.toLowerCase());
  for (const phrase of extractKeyPhrases(memory.text, maxPhrases)) out.add(phrase);
  return [...out];
}

/** The shared domain of two memories (same type, a shared tag or both untagged), or null. */
export function sharedDomain(a: Memory, b: Memory): string | null {
  if (a.type !== b.type) return null;
  if (a.tags.length === 0 && b.tags.length === 0) return a.type;
  const bTags = new Set(b.tags.map((t) => t.toLowerCase()));
  const shared = [...new Set(a.tags.map((t) => t.toLowerCase()))].filter((t) => bTags.has(t)).sort();
  return shared.length === 0 ? null : `${a.type}:${shared.join(',')}`;
}

function linkedAsResolved(a: Memory, b: Memory): boolean {
  const hit = (x: Memory, y: Memory): boolean => x.links.some((l) => l.to === y.id && (l.rel === 'contradicts' || l.rel === 'supersedes'));
  return hit(a, b) || hit(b, a);
}

function checkConflictFields(raw: Record<string, unknown>): { threshold: number; maxPhrases: number } {
  const t = raw.conflictThreshold;
  if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t <= 0 || t > 1)) {
    throw invalid(`conflictThreshold must be a number in (0, 1] — got ${JSON.stringify(t)}`, { field: 'conflictThreshold' });
  }
  const threshold = t === undefined ? DEFAULT_CONFLICT_THRESHOLD : t;
  const maxPhrases = raw.maxPhrases === undefined ? DEFAULT_CONCEPT_PHRASES : checkInteger(raw.maxPhrases, 'maxPhrases', 0);
  return { threshold, maxPhrases };
}

function compareIds(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function verifyPair(
  a: Memory, ca: ReadonlySet<string>, b: Memory, cb: ReadonlySet<string>, threshold: number,
): PotentialConflict | null {
  if (ca.size === 0 || cb.size === 0) return null;
  const domain = sharedDomain(a, b);
  if (domain === null) return null;
  const shared: string[] = [];
  const [small, large] = ca.size <= cb.size ? [ca, cb] : [cb, ca];
  for (const c of small) if (large.has(c)) shared.push(c);
  const jaccard = shared.length / (ca.size + cb.size - shared.length);
  if (jaccard < threshold) return null;
  if (linkedAsResolved(a, b)) return null;
  shared.sort();
  const [first, second] = compareIds(a.id, b.id) <= 0 ? [a.id, b.id] : [b.id, a.id];
  return {
    a: first, b: second, jaccard, sharedConcepts: shared, domain,
    reason: `High concept overlap (${Math.round(jaccard * 100)}%): ${shared.slice(0, 3).join(', ')}`,
  };
}

/**
 * Seed 004 `detect_potential_conflict(A, B)` on two memories: a report when they share a domain
 * and their concept Jaccard is ≥ `conflictThreshold`, else null. Symmetric in A and B (the pair is
 * reported with `a` the smaller id). Does not look at supersession or expiry ({@link analyzeAll} does).
 */
export function detectPotentialConflict(a: Memory, b: Memory, options: ConflictOptions = {}): PotentialConflict | null {
  const raw = checkObject<ConflictOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set(['conflictThreshold', 'maxPhrases']), 'options');
  const { threshold, maxPhrases } = checkConflictFields(raw);
  if (a.id === b.id) return null;
  return verifyPair(a, new Set(memoryConcepts(a, maxPhrases)), b, new Set(memoryConcepts(b, maxPhrases)), threshold);
}

/**
 * Most potential conflicts one analysis reports. Many memories with the same few concepts (short
 * chat turns, generated notes) make every pair of them a potential conflict: 50,000 such memories
 * are 1.25 billion pairs, which no report can hold. The scan stops at this many.
 */
export const MAX_POTENTIAL_CONFLICTS = 10_000;

/**
 * Potential conflicts among `memories` (already filtered), by prefix filtering per type: every
 * one when there are at most `max`; otherwise the scan stops at `max` (`capped`).
 */
function findPotentialConflicts(memories: readonly Memory[], threshold: number, maxPhrases: number, max: number): { found: PotentialConflict[]; capped: boolean } {
  const byType = new Map<string, { memory: Memory; concepts: Set<string> }[]>();
  for (const memory of memories) {
    const concepts = new Set(memoryConcepts(memory, maxPhrases));
    if (concepts.size === 0) continue;
    let group = byType.get(memory.type);
    if (!group) byType.set(memory.type, (group = []));
    group.push({ memory, concepts });
  }
  const out: PotentialConflict[] = [];
  let capped = false;
  scan: for (const group of byType.values()) {
    const freq = new Map<string, number>();
    for (const { concepts } of group) for (const c of concepts) freq.set(c, (freq.get(c) ?? 0) + 1);
    const rarestFirst = (x: string, y: string): number => freq.get(x)! - freq.get(y)! || compareIds(x, y);
    // Smallest sets first, so every indexed set is no larger than the one probing.
    const records = group
      .map((r) => ({ ...r, ordered: [...r.concepts].sort(rarestFirst) }))
      .sort((x, y) => x.concepts.size - y.concepts.size || compareIds(x.memory.id, y.memory.id));
    const index = new Map<string, number[]>();
    for (let i = 0; i < records.length; i++) {
      const x = records[i]!;
      const size = x.concepts.size;
      // ⌈t·|x|⌉, nudged down so float error can only lengthen the prefix (still exact after verification).
      const prefix = size - Math.ceil(threshold * size - 1e-9) + 1;
      const minSize = threshold * size - 1e-9;
      const candidates = new Set<number>();
      for (let p = 0; p < prefix && p < size; p++) {
        for (const j of index.get(x.ordered[p]!) ?? []) if (records[j]!.concepts.size >= minSize) candidates.add(j);
      }
      for (const j of candidates) {
        const y = records[j]!;
        const found = verifyPair(x.memory, x.concepts, y.memory, y.concepts, threshold);
        if (!found) continue;
        if (out.length === max) {
          capped = true;
          break scan;
        }
        out.push(found);
      }
      for (let p = 0; p < prefix && p < size; p++) {
        const c = x.ordered[p]!;
        let posting = index.get(c);
        if (!posting) index.set(c, (posting = []));
        posting.push(i);
      }
    }
  }
  return { found: out.sort((x, y) => y.jaccard - x.jaccard || compareIds(x.a, y.a) || compareIds(x.b, y.b)), capped };
}

// ---------------------------------------------------------------------------------------------
// The reference health report
// ---------------------------------------------------------------------------------------------

export const DECAY_BANDS = ['0.0–0.2', '0.2–0.4', '0.4–0.6', '0.6–0.8', '0.8–1.0'] as const;
export type DecayBand = (typeof DECAY_BANDS)[number];

export interface HealthStatsReport {
  /** Active memories (not superseded, not expired): the population of every number below. */
  active: number;
  /** Decay scores in five bands, `min(4, trunc(score · 5))` (a reinforced score > 1 lands in the top band). */
  decayHistogram: Record<DecayBand, number>;
  /** Scoring below `minScore` and not of a protected type (what prune would remove, pins aside). */
  decayAtRiskCount: number;
  neverRecalledCount: number;
  /** Idle for more than `staleDays`. */
  staleCount: number;
  staleDays: number;
  /** Active episodic memories (ripe for reflection). */
  episodicActiveCount: number;
  /** Outgoing links per active memory, `round(·, 3)`. */
  linkDensity: number;
  totalLinks: number;
  /** `round(mean importance, 3)`, 0 with no memories. */
  avgImportance: number;
  /** Up to five most recalled (access count > 0), most first; ties newest first, then id. */
  topRecalled: { id: string; accessCount: number; textSnippet: string }[];
}

export interface HealthStatsOptions {
  now: number;
  staleDays?: number;
  /** The decay settings prune uses, so the report matches what prune would remove. */
  decay?: DecayOptions;
}

function snippet(text: string): string {
  if (codePointLength(text) <= 60) return text;
  let out = '';
  let n = 0;
  for (const ch of text) {
    if (n === 60) break;
    out += ch;
    n++;
  }
  return `${out}…`;
}

function statsReport(memories: readonly Memory[], now: number, staleDays: number, decay: DecayOptions): HealthStatsReport {
  const o = checkDecayOptions(decay, 'decay');
  const score = decayScorer(o);
  const active = memories.filter((m) => !m.supersededBy && !isExpired(m, now));
  const hist: Record<DecayBand, number> = { '0.0–0.2': 0, '0.2–0.4': 0, '0.4–0.6': 0, '0.6–0.8': 0, '0.8–1.0': 0 };
  let decayAtRisk = 0;
  for (const m of active) {
    const s = score(m, now);
    hist[DECAY_BANDS[Math.max(0, Math.min(4, Math.trunc(s * 5)))]!]++;
    if (s < o.minScore && !o.protectTypes.includes(m.type)) decayAtRisk++;
  }
  const staleCutoff = now - staleDays * SECONDS_PER_DAY;
  const totalLinks = active.reduce((n, m) => n + m.links.length, 0);
  const top = [...active]
    .sort((a, b) => b.accessCount - a.accessCount || b.createdAt - a.createdAt || compareIds(a.id, b.id))
    .slice(0, 5)
    .filter((m) => m.accessCount > 0);
  return {
    active: active.length,
    decayHistogram: hist,
    decayAtRiskCount: decayAtRisk,
    neverRecalledCount: active.filter((m) => m.accessCount === 0).length,
    staleCount: active.filter((m) => m.lastAccessed < staleCutoff).length,
    staleDays,
    episodicActiveCount: active.filter((m) => m.type === 'episodic').length,
    linkDensity: active.length ? pyRound3(totalLinks / active.length) : 0,
    totalLinks,
    avgImportance: active.length ? pyRound3(pyMean(active.map((m) => m.importance))) : 0,
    topRecalled: top.map((m) => ({ id: m.id, accessCount: m.accessCount, textSnippet: snippet(m.text) })),
  };
}

function checkMemoryList(memories: unknown): readonly Memory[] {
  if (!Array.isArray(memories)) throw invalid('memories must be an array of memories', { field: 'memories' });
  const seen = new Set<string>();
  for (const m of memories as Memory[]) {
    if (m === null || typeof m !== 'object' || typeof m.id !== 'string') throw invalid('memories must be an array of memories', { field: 'memories' });
    if (seen.has(m.id)) throw invalid(`memories holds the id ${JSON.stringify(m.id)} twice`, { field: 'memories', id: m.id });
    seen.add(m.id);
  }
  return memories as readonly Memory[];
}

/**
 * The reference's `houkai stats --health` numbers, over the active memories: decay
 * histogram, below-`minScore` count, never recalled, stale, active episodic, link density,
 * average importance, top five recalled. Note its stale rule (`lastAccessed < now − staleDays`
 * days) is the same as the `stale` status's, but the status counts only memories not at risk.
 */
export function healthStats(memories: readonly Memory[], options: HealthStatsOptions): HealthStatsReport {
  const list = checkMemoryList(memories);
  if (options === undefined) throw invalid('options must be an options object with now', { field: 'options' });
  const raw = checkObject<HealthStatsOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set(['now', 'staleDays', 'decay']), 'options');
  return statsReport(list, checkTimestamp(raw.now, 'now'), checkStaleDays(raw.staleDays), (raw.decay ?? {}) as DecayOptions);
}

// ---------------------------------------------------------------------------------------------
// Everything at once
// ---------------------------------------------------------------------------------------------

export interface AnalyzeOptions extends ConflictOptions {
  now: number;
  staleDays?: number;
  /** Incoming-link count per id. Default: counted from the links of `memories` themselves. */
  incoming?: ReadonlyMap<string, number>;
  pendingConflictIds?: PendingConflicts;
  /**
   * Also mark memories with potential conflicts at_risk ("Has N potential conflict(s)"), as the
   * seed's dashboard does. Default false: only unresolved (review-queue) conflicts do, so a soft
   * flag never changes a status on its own.
   */
  potentialConflictsAtRisk?: boolean;
  /** Decay settings for the report. */
  decay?: DecayOptions;
  /** Most potential conflicts reported (default `MAX_POTENTIAL_CONFLICTS`, 10,000). */
  maxPotentialConflicts?: number;
}

export interface HealthAnalysis {
  /** One report per memory id, in input order. */
  statuses: Map<string, HealthReport>;
  /** Memories per status; sums to the number of memories. */
  counts: Record<HealthStatus, number>;
  /** Soft flags, highest Jaccard first (ties by a, then b); at most `maxPotentialConflicts`. */
  potentialConflicts: PotentialConflict[];
  /** More pairs qualify than were reported (the scan stopped at `maxPotentialConflicts`). */
  potentialConflictsCapped: boolean;
  /** Per memory id, the ids it potentially conflicts with (sorted); only ids with at least one. */
  potentialConflictIds: Map<string, string[]>;
  report: HealthStatsReport;
}

const ANALYZE_KEYS: ReadonlySet<string> = new Set([
  'now', 'staleDays', 'incoming', 'pendingConflictIds', 'potentialConflictsAtRisk', 'decay', 'conflictThreshold', 'maxPhrases', 'maxPotentialConflicts',
]);

/**
 * Seed 004 `analyze_all`: the health of every memory, the potential conflicts among them and the
 * reference's report numbers. Deterministic: the result depends only on the set of memories and
 * the options, not on the input order (statuses keep input order as Map order). Nothing is mutated.
 */
export function analyzeAll(memories: readonly Memory[], options: AnalyzeOptions): HealthAnalysis {
  const list = checkMemoryList(memories);
  if (options === undefined) throw invalid('options must be an options object with now', { field: 'options' });
  const raw = checkObject<AnalyzeOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, ANALYZE_KEYS, 'options');
  const now = checkTimestamp(raw.now, 'now');
  const staleDays = checkStaleDays(raw.staleDays);
  const pending = checkPending(raw.pendingConflictIds);
  const { threshold, maxPhrases } = checkConflictFields(raw);
  const potentialAtRisk = raw.potentialConflictsAtRisk === undefined ? false : checkBoolean(raw.potentialConflictsAtRisk, 'potentialConflictsAtRisk');
  if (raw.incoming !== undefined && !(raw.incoming instanceof Map)) {
    throw invalid('incoming must be a Map of id → incoming link count', { field: 'incoming' });
  }
  let incoming = raw.incoming as ReadonlyMap<string, number> | undefined;
  if (incoming === undefined) {
    const counted = new Map<string, number>();
    for (const m of list) for (const l of m.links) counted.set(l.to, (counted.get(l.to) ?? 0) + 1);
    incoming = counted;
  }

  const eligible = list.filter((m) => !m.supersededBy && !isExpired(m, now));
  const max = raw.maxPotentialConflicts === undefined ? MAX_POTENTIAL_CONFLICTS : raw.maxPotentialConflicts;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) throw invalid('maxPotentialConflicts must be a whole number ≥ 0', { field: 'maxPotentialConflicts' });
  const { found: potentialConflicts, capped } = findPotentialConflicts(eligible, threshold, maxPhrases, max);
  const partners = new Map<string, string[]>();
  for (const c of potentialConflicts) {
    for (const [x, y] of [[c.a, c.b], [c.b, c.a]] as const) {
      let list2 = partners.get(x);
      if (!list2) partners.set(x, (list2 = []));
      list2.push(y);
    }
  }
  for (const ids of partners.values()) ids.sort(compareIds);

  const statuses = new Map<string, HealthReport>();
  const counts: Record<HealthStatus, number> = { healthy: 0, stale: 0, at_risk: 0, orphan: 0 };
  for (const m of list) {
    const n = incoming.get(m.id);
    const incomingCount = typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
    const potential = potentialAtRisk ? (partners.get(m.id)?.length ?? 0) : 0;
    const report = statusOf(m, now, staleDays, incomingCount, pending, potential);
    statuses.set(m.id, report);
    counts[report.status]++;
  }

  return {
    statuses,
    counts,
    potentialConflicts,
    potentialConflictsCapped: capped,
    potentialConflictIds: partners,
    report: statsReport(list, now, staleDays, (raw.decay ?? {}) as DecayOptions),
  };
}
