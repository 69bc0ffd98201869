/**
 * Decay, pruning, quota eviction and TTL selection (AI-Houkai's `DecayEngine`, TTL and
 * trash retention). Everything here is pure: the caller passes the memories and
 * `now` (Unix seconds), and gets back what to score, trash, evict or purge. Writing (trash
 * table, journal entries, scheduling) is the store's job.
 *
 * Score (reference `DecayEngine.score`):
 *
 *     score(m) = importance · exp(−decayRate · days) · (1 + frequencyWeight · ln(1 + accessCount))
 *
 * with `days = max(0, (now − lastAccessed) / 86 400)`, from `lastAccessed`, not `createdAt`.
 * With the defaults (λ = 0.1, no reinforcement) the seed's table holds: importance 0.9 at 1 day →
 * 0.814, at 7 days → 0.447, at 30 days → 0.0448 (pruned); 0.5 at 1 day → 0.452; 0.1 at 7 days →
 * 0.0497 (pruned, below `minScore` 0.05).
 */
import { invalid } from '../errors.ts';
import { checkChoice, checkNumberInRange } from './validate.ts';
import type { Memory, MemoryType } from '../types.ts';
import { checkInteger, checkKnownKeys, checkObject, checkTimestamp, checkType } from './validate.ts';

/** Seconds in a day, as the reference divides by (`86_400.0`). */
export const SECONDS_PER_DAY = 86_400;

export interface DecayOptions {
  /** λ in `exp(−λ · days)`, finite ≥ 0. Default 0.1 (half-life ≈ 7 days). */
  decayRate?: number;
  /** Prune threshold: a score strictly below it is a prune candidate. Finite ≥ 0, default 0.05. */
  minScore?: number;
  /** Types never pruned whatever their score. Default `['procedural']`. */
  protectTypes?: MemoryType[];
  /** Recall reinforcement weight, finite ≥ 0. Default 0 (recency only). */
  frequencyWeight?: number;
}

export type CheckedDecayOptions = Required<DecayOptions>;

export const DEFAULT_DECAY_OPTIONS: Readonly<CheckedDecayOptions> = Object.freeze({
  decayRate: 0.1,
  minScore: 0.05,
  protectTypes: ['procedural'] as MemoryType[],
  frequencyWeight: 0,
});

const DECAY_KEYS: ReadonlySet<string> = new Set(['decayRate', 'minScore', 'protectTypes', 'frequencyWeight']);

function decayFields(raw: Record<string, unknown>): CheckedDecayOptions {
  const out: CheckedDecayOptions = { ...DEFAULT_DECAY_OPTIONS, protectTypes: [...DEFAULT_DECAY_OPTIONS.protectTypes] };
  if (raw.decayRate !== undefined) out.decayRate = checkNumberInRange(raw.decayRate, 'decayRate', 0, Number.POSITIVE_INFINITY);
  if (raw.minScore !== undefined) out.minScore = checkNumberInRange(raw.minScore, 'minScore', 0, Number.POSITIVE_INFINITY);
  if (raw.frequencyWeight !== undefined) {
    out.frequencyWeight = checkNumberInRange(raw.frequencyWeight, 'frequencyWeight', 0, Number.POSITIVE_INFINITY);
  }
  if (raw.protectTypes !== undefined) {
    if (!Array.isArray(raw.protectTypes)) throw invalid('protectTypes must be an array of memory types', { field: 'protectTypes' });
    const types: MemoryType[] = [];
    for (const t of raw.protectTypes) {
      const checked = checkType(t, 'protectTypes');
      if (!types.includes(checked)) types.push(checked);
    }
    out.protectTypes = types;
  }
  return out;
}

/**
 * Validates decay options and fills the defaults of `DecayEngine.__init__`. Unknown keys and bad
 * values throw INVALID_ARGUMENT naming the field.
 */
export function checkDecayOptions(value: unknown, field = 'options'): CheckedDecayOptions {
  const raw = checkObject<DecayOptions>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, DECAY_KEYS, field);
  return decayFields(raw);
}

function checkNow(now: unknown): number {
  return checkTimestamp(now, 'now');
}

function checkMemories(memories: unknown, field = 'memories'): readonly Memory[] {
  if (!Array.isArray(memories)) throw invalid(`${field} must be an array of memories`, { field });
  return memories as readonly Memory[];
}

/** Score with already-checked options (no validation; used in loops). */
function rawScore(memory: Memory, now: number, o: CheckedDecayOptions): number {
  const days = Math.max(0, (now - memory.lastAccessed) / SECONDS_PER_DAY);
  let base = memory.importance * Math.exp(-o.decayRate * days);
  if (o.frequencyWeight) base *= 1 + o.frequencyWeight * Math.log1p(Math.max(0, memory.accessCount));
  return base;
}

/**
 * Reference `DecayEngine.score(m, now)`: `importance · exp(−λ · days) · (1 + w · ln(1 + accessCount))`,
 * days since `lastAccessed` clamped at ≥ 0 (a `lastAccessed` in the future scores as "just now").
 * With reinforcement the score can exceed `importance`.
 */
export function decayScore(memory: Memory, now: number, options: DecayOptions = {}): number {
  return rawScore(memory, checkNow(now), checkDecayOptions(options));
}

/**
 * Validates `options` once and returns a scorer applying {@link decayScore}'s formula, for loops
 * over many memories (`now` is not re-validated).
 */
export function decayScorer(options: DecayOptions = {}): (memory: Memory, now: number) => number {
  const o = checkDecayOptions(options);
  return (memory, now) => rawScore(memory, now, o);
}

export interface ScoredMemory {
  memory: Memory;
  score: number;
}

/** True when `0 < expiresAt ≤ now` (AI-Houkai's TTL rule and `purge_expired`). */
export function isExpired(memory: Memory, now: number): boolean {
  return memory.expiresAt > 0 && memory.expiresAt <= now;
}

function byScoreDesc(a: ScoredMemory, b: ScoredMemory): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0;
}

function scoreAllChecked(memories: readonly Memory[], now: number, o: CheckedDecayOptions): ScoredMemory[] {
  const out: ScoredMemory[] = [];
  for (const memory of memories) if (!isExpired(memory, now)) out.push({ memory, score: rawScore(memory, now, o) });
  return out.sort(byScoreDesc);
}

/**
 * Reference `score_all(now)`: every memory with its score, highest first (ties by id, ascending,
 * so the order does not depend on the input order).
 *
 * Like the reference, which scores `list_recent(limit=100_000, include_superseded=True)`,
 * superseded memories are scored (so soft-deleted rows age out too) and expired memories
 * (`0 < expiresAt ≤ now`) are left out: TTL purge reclaims those, not decay.
 */
export function scoreAll(memories: readonly Memory[], now: number, options: DecayOptions = {}): ScoredMemory[] {
  return scoreAllChecked(checkMemories(memories), checkNow(now), checkDecayOptions(options));
}

/**
 * Reference `prune(dry_run=True, now)`: the memories to move to the trash, i.e. those of
 * {@link scoreAll} scoring strictly below `minScore`, skipping `protectTypes` and pinned rows.
 * Superseded memories are candidates (as in the reference); expired ones are not (TTL purge owns
 * them). Returned in `scoreAll` order (highest score first, ties by id). Nothing is deleted here:
 * the store trashes each one (trash actor `decay`) and reports only those whose trash succeeded.
 */
export function pruneCandidates(memories: readonly Memory[], now: number, options: DecayOptions = {}): ScoredMemory[] {
  const o = checkDecayOptions(options);
  return scoreAllChecked(checkMemories(memories), checkNow(now), o).filter(
    ({ memory, score }) => !o.protectTypes.includes(memory.type) && !memory.pinned && score < o.minScore,
  );
}

// ---------------------------------------------------------------------------------------------
// Quota eviction
// ---------------------------------------------------------------------------------------------

export const EVICTION_POLICIES = ['decay', 'lru', 'reject'] as const;
export type EvictionPolicy = (typeof EVICTION_POLICIES)[number];

export interface EvictionOptions extends DecayOptions {
  /** The quota: most memories the store may hold, a whole number ≥ 1. */
  maxMemories: number;
  /** 'decay' (lowest decay score first), 'lru' (least recently accessed first) or 'reject'. */
  policy: EvictionPolicy;
  /** How many new memories are about to be written, a whole number ≥ 0 (default 1). */
  incoming?: number;
  now: number;
}

export interface EvictionPlan {
  /** Memories that must go for `incoming` to fit: `max(0, count + incoming − maxMemories)`. */
  needed: number;
  /** What to evict, in eviction order; empty unless `outcome` is 'evict'. */
  evict: Memory[];
  /** True when the write must be refused ('reject' policy over quota, or not enough evictable rows). */
  rejected: boolean;
  /**
   * 'within-quota' (nothing to do), 'evict' (evict exactly `evict`, then write), 'policy-reject'
   * (over quota under the 'reject' policy) or 'insufficient' (fewer evictable memories than needed).
   */
  outcome: 'within-quota' | 'evict' | 'policy-reject' | 'insufficient';
  /** Memories the policy could evict (not pinned, not procedural, not a protected type). */
  evictable: number;
  /** `needed − evictable` when 'insufficient', else 0. */
  shortfall: number;
}

const EVICTION_KEYS: ReadonlySet<string> = new Set([...DECAY_KEYS, 'maxMemories', 'policy', 'incoming', 'now']);

export interface CheckedEvictionOptions extends CheckedDecayOptions {
  maxMemories: number;
  policy: EvictionPolicy;
  incoming: number;
  now: number;
}

/** Validates quota options: `maxMemories` ≥ 1, `policy` ∈ decay/lru/reject, `incoming` ≥ 0, `now`, decay options. */
export function checkEvictionOptions(value: unknown, field = 'options'): CheckedEvictionOptions {
  if (value === undefined) throw invalid(`${field} must be an options object`, { field });
  const raw = checkObject<EvictionOptions>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, EVICTION_KEYS, field);
  return {
    ...decayFields(raw),
    maxMemories: checkInteger(raw.maxMemories, 'maxMemories', 1),
    policy: checkChoice(raw.policy, EVICTION_POLICIES, 'policy'),
    incoming: raw.incoming === undefined ? 1 : checkInteger(raw.incoming, 'incoming', 0),
    now: checkNow(raw.now),
  };
}

/**
 * Which memories to evict so that `incoming` new ones fit under `maxMemories` (the product's
 * quota; AI-Houkai has none). Every memory passed counts toward the quota (superseded and
 * expired included: they occupy storage).
 *
 * - Never evicted: pinned memories, `procedural` memories and any other `protectTypes`.
 * - Order: expired memories first (TTL purge would reclaim them anyway; oldest `expiresAt`
 *   first), then by policy: 'decay' → lowest {@link decayScore} first (ties: older
 *   `lastAccessed`, then id); 'lru' → oldest `lastAccessed` first (ties: older `createdAt`, then id).
 * - 'reject' never evicts: over quota the plan is `rejected` with outcome 'policy-reject'.
 * - All or nothing: when fewer evictable memories exist than needed, nothing is evicted and the
 *   plan is `rejected` with outcome 'insufficient' and the `shortfall`; a partial eviction would
 *   lose data and still refuse the write.
 */
export function evictionCandidates(memories: readonly Memory[], options: EvictionOptions): EvictionPlan {
  const list = checkMemories(memories);
  const o = checkEvictionOptions(options);
  const needed = Math.max(0, list.length + o.incoming - o.maxMemories);
  const protectedTypes = new Set<MemoryType>(['procedural', ...o.protectTypes]);
  const evictable = list.filter((m) => !m.pinned && !protectedTypes.has(m.type));
  const plan = (outcome: EvictionPlan['outcome'], evict: Memory[] = [], shortfall = 0): EvictionPlan => ({
    needed, evict, rejected: outcome === 'policy-reject' || outcome === 'insufficient', outcome, evictable: evictable.length, shortfall,
  });
  if (needed === 0) return plan('within-quota');
  if (o.policy === 'reject') return plan('policy-reject');
  if (evictable.length < needed) return plan('insufficient', [], needed - evictable.length);

  const keyed = evictable.map((memory) => ({
    memory,
    expired: isExpired(memory, o.now),
    score: o.policy === 'decay' ? rawScore(memory, o.now, o) : 0,
  }));
  keyed.sort((a, b) => {
    if (a.expired !== b.expired) return a.expired ? -1 : 1;
    if (a.expired && b.expired && a.memory.expiresAt !== b.memory.expiresAt) return a.memory.expiresAt - b.memory.expiresAt;
    if (o.policy === 'decay' && a.score !== b.score) return a.score - b.score;
    if (a.memory.lastAccessed !== b.memory.lastAccessed) return a.memory.lastAccessed - b.memory.lastAccessed;
    if (o.policy === 'lru' && a.memory.createdAt !== b.memory.createdAt) return a.memory.createdAt - b.memory.createdAt;
    return a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0;
  });
  return plan('evict', keyed.slice(0, needed).map((k) => k.memory));
}

// ---------------------------------------------------------------------------------------------
// TTL and trash retention
// ---------------------------------------------------------------------------------------------

/**
 * Reference `purge_expired(now)`: the memories with `0 < expiresAt ≤ now`, in input order. It
 * ignores `protectTypes` and pins, as the reference does: an explicit TTL wins.
 */
export function expiredMemories(memories: readonly Memory[], now: number): Memory[] {
  const t = checkNow(now);
  return checkMemories(memories).filter((m) => isExpired(m, t));
}

/**
 * Reference `trash_purge_expired(ttl_days, now)`: the trash entries deleted strictly before
 * `now − ttlDays · 86 400`. `ttlDays ≤ 0` selects nothing (a missing retention never means
 * "delete everything"). The maintenance default is 30 days.
 */
export function trashPurgeCandidates<T extends { deletedAt: number }>(entries: readonly T[], ttlDays: number, now: number): T[] {
  if (!Array.isArray(entries)) throw invalid('entries must be an array', { field: 'entries' });
  if (typeof ttlDays !== 'number' || !Number.isFinite(ttlDays)) {
    throw invalid(`ttlDays must be a finite number — got ${JSON.stringify(ttlDays)}`, { field: 'ttlDays' });
  }
  const ttl = ttlDays;
  const t = checkNow(now);
  if (ttl <= 0) return [];
  const cutoff = t - ttl * SECONDS_PER_DAY;
  return entries.filter((e) => e.deletedAt < cutoff);
}

/** Default retention of trashed memories in days (reference maintenance `trash_ttl_days`). */
export const DEFAULT_TRASH_TTL_DAYS = 30;
