/**
 * Reflection (AI-Houkai's `ReflectionEngine`): cluster similar episodic
 * memories and condense each cluster into one semantic summary memory. Pure: the caller passes
 * the memories with their stored vectors and `now`; the store writes the summaries and
 * consolidates the sources.
 *
 * Clustering, exactly as the reference:
 * 1. Candidates: memories of `types` (default episodic) that are not superseded, not expired at
 *    `now` (`0 < expiresAt ≤ now`) and whose `level:N` tag is below `maxLevel` (no level tag = 0).
 * 2. Greedy seed-based single linkage: seeds are taken by descending importance; an unused
 *    candidate j joins the seed's cluster when `cos(seed, j) ≥ threshold` (to the *seed*, not to
 *    any member, so clusters do not chain), unless j's polarity is non-zero and opposite to the
 *    cluster polarity (the first non-zero polarity absorbed, the seed's included).
 * 3. Clusters smaller than `minClusterSize` are dropped. Their members are not offered to later
 *    seeds: as in the reference, a row marked used is never released.
 *
 * Determinism: the reference walks its rows in the store's fetch order (insertion order) and
 * sorts seeds stably by importance. Here the fetch order is made explicit and independent of the
 * caller's array order: candidates are ordered by `createdAt` ascending, then id; seeds are that
 * order stably sorted by importance descending (ties: older first, then id); each seed scans the
 * candidates in that same base order.
 */
import { MemoryError, invalid } from '../errors.ts';
import { cosine } from './vector-math.ts';
import { checkChoice, checkNumberInRange } from './validate.ts';
import { codePointLength } from './recall-pack.ts';
import { pyStrip } from './text.ts';
import { TRUST_LEVELS, type Link, type Memory, type MemoryType, type Trust } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, checkText, checkTimestamp, checkType } from './validate.ts';

export interface ReflectOptions {
  /** Cosine to the seed needed to join its cluster, in [−1, 1]. Default 0.75. */
  threshold?: number;
  /** Smallest cluster kept, a whole number ≥ 1. Default 2 (the maintenance config uses 3). */
  minClusterSize?: number;
  /** Memory types that are reflected. Default `['episodic']`. */
  types?: MemoryType[];
  /** Only memories whose `level:N` tag is below this are candidates, a whole number ≥ 1. Default 1. */
  maxLevel?: number;
}

export type CheckedReflectOptions = Required<ReflectOptions>;

export const DEFAULT_REFLECT_OPTIONS: Readonly<CheckedReflectOptions> = Object.freeze({
  threshold: 0.75,
  minClusterSize: 2,
  types: ['episodic'] as MemoryType[],
  maxLevel: 1,
});

const REFLECT_KEYS = ['threshold', 'minClusterSize', 'types', 'maxLevel'] as const;

function reflectFields(raw: Record<string, unknown>): CheckedReflectOptions {
  const out: CheckedReflectOptions = { ...DEFAULT_REFLECT_OPTIONS, types: [...DEFAULT_REFLECT_OPTIONS.types] };
  if (raw.threshold !== undefined) out.threshold = checkNumberInRange(raw.threshold, 'threshold', -1, 1);
  if (raw.minClusterSize !== undefined) out.minClusterSize = checkInteger(raw.minClusterSize, 'minClusterSize', 1);
  if (raw.maxLevel !== undefined) out.maxLevel = checkInteger(raw.maxLevel, 'maxLevel', 1);
  if (raw.types !== undefined) {
    if (!Array.isArray(raw.types) || raw.types.length === 0) {
      throw invalid('types must be a non-empty array of memory types', { field: 'types' });
    }
    const types: MemoryType[] = [];
    for (const t of raw.types) {
      const checked = checkType(t, 'types');
      if (!types.includes(checked)) types.push(checked);
    }
    out.types = types;
  }
  return out;
}

/** Validates reflection options and fills the reference defaults; bad values throw INVALID_ARGUMENT naming the field. */
export function checkReflectOptions(value: unknown, field = 'options'): CheckedReflectOptions {
  const raw = checkObject<ReflectOptions>(value, field) as Record<string, unknown>;
  checkKnownKeys(raw, new Set<string>(REFLECT_KEYS), field);
  return reflectFields(raw);
}

// ---------------------------------------------------------------------------------------------
// Levels and candidates
// ---------------------------------------------------------------------------------------------

const LEVEL_TAG = /^level:(\d{1,9})$/;

/** The reflection tier of a memory: the largest N of its `level:N` tags, 0 without one. */
export function memoryLevel(memory: Memory): number {
  let level = 0;
  for (const tag of memory.tags) {
    const m = LEVEL_TAG.exec(tag);
    if (m) level = Math.max(level, Number(m[1]));
  }
  return level;
}

/** Whether a memory may be clustered (see the module comment, step 1). */
export function isReflectCandidate(memory: Memory, now: number, options: ReflectOptions = {}): boolean {
  return candidate(memory, checkTimestamp(now, 'now'), checkReflectOptions(options));
}

function candidate(memory: Memory, now: number, o: CheckedReflectOptions): boolean {
  return (
    o.types.includes(memory.type) &&
    !memory.supersededBy &&
    !(memory.expiresAt > 0 && memory.expiresAt <= now) &&
    memoryLevel(memory) < o.maxLevel
  );
}

// ---------------------------------------------------------------------------------------------
// Clustering
// ---------------------------------------------------------------------------------------------

export interface ReflectItem {
  memory: Memory;
  /** The memory's stored embedding. */
  vector: Float32Array;
}

export interface ClusterOptions extends ReflectOptions {
  /** Unix seconds; decides which memories are expired. */
  now: number;
}

function compareBase(a: Memory, b: Memory): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function checkItems(items: unknown): readonly ReflectItem[] {
  if (!Array.isArray(items)) throw invalid('items must be an array of { memory, vector }', { field: 'items' });
  const seen = new Set<string>();
  let dim = -1;
  for (const item of items as ReflectItem[]) {
    if (item === null || typeof item !== 'object' || !item.memory || typeof item.memory.id !== 'string') {
      throw invalid('items must be an array of { memory, vector }', { field: 'items' });
    }
    if (!(item.vector instanceof Float32Array)) throw invalid('items[].vector must be a Float32Array', { field: 'vector', id: item.memory.id });
    if (seen.has(item.memory.id)) throw invalid(`items holds the id ${JSON.stringify(item.memory.id)} twice`, { field: 'items', id: item.memory.id });
    seen.add(item.memory.id);
    if (dim === -1) dim = item.vector.length;
    else if (item.vector.length !== dim) {
      throw new MemoryError('DIMENSION_MISMATCH', `Vector of ${item.memory.id} has ${item.vector.length} dimensions, expected ${dim}`, {
        field: 'vector', id: item.memory.id, expected: dim, actual: item.vector.length,
      });
    }
  }
  return items as readonly ReflectItem[];
}

/**
 * Reference `clusters()` / `_cluster`: the clusters the next reflection would summarise, each an
 * array of memories with the seed first and the absorbed members after it in base order (see the
 * module comment). Nothing is written.
 */
export function clusterMemories(items: readonly ReflectItem[], options: ClusterOptions): Memory[][] {
  const list = checkItems(items);
  if (options === undefined) throw invalid('options must be an options object with now', { field: 'options' });
  const raw = checkObject<ClusterOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set<string>([...REFLECT_KEYS, 'now']), 'options');
  const now = checkTimestamp(raw.now, 'now');
  const o = reflectFields(raw);
  return clusterChecked(list, now, o);
}

function clusterChecked(items: readonly ReflectItem[], now: number, o: CheckedReflectOptions): Memory[][] {
  const base = items.filter((it) => candidate(it.memory, now, o)).sort((a, b) => compareBase(a.memory, b.memory));
  const n = base.length;
  if (n < o.minClusterSize) return [];
  // Indexes into `base`, stably sorted by importance descending (ties keep base order).
  const order = base.map((_, i) => i).sort((i, j) => base[j]!.memory.importance - base[i]!.memory.importance);
  const used = new Array<boolean>(n).fill(false);
  const clusters: Memory[][] = [];
  for (const s of order) {
    if (used[s]) continue;
    used[s] = true;
    const seed = base[s]!;
    const cluster = [seed.memory];
    let polarity: number = seed.memory.polarity;
    for (let j = 0; j < n; j++) {
      if (used[j]) continue;
      const other = base[j]!;
      if (cosine(seed.vector, other.vector) < o.threshold) continue;
      const p = other.memory.polarity;
      if (p !== 0 && polarity !== 0 && p !== polarity) continue; // polarity guard
      if (polarity === 0) polarity = p;
      cluster.push(other.memory);
      used[j] = true;
    }
    if (cluster.length >= o.minClusterSize) clusters.push(cluster);
  }
  return clusters;
}

// ---------------------------------------------------------------------------------------------
// Summary text
// ---------------------------------------------------------------------------------------------

/** Longest extractive summary, in code points (Python's `[:512]`). */
export const EXTRACTIVE_SUMMARY_LIMIT = 512;

/** Python's `s[:n]` over code points. */
function sliceCodePoints(text: string, n: number): string {
  if (text.length <= n) return text; // ≤ n UTF-16 units is ≤ n code points
  if (codePointLength(text) <= n) return text;
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === n) break;
    out += ch;
    count++;
  }
  return out;
}

/**
 * The reference's default summariser: `"[Reflection ×N] " + " | ".join(texts by importance
 * descending)`, truncated to 512 code points. Ties in importance keep the cluster order (Python's
 * sort is stable).
 */
export function extractiveSummary(memories: readonly Memory[]): string {
  if (!Array.isArray(memories)) throw invalid('memories must be an array', { field: 'memories' });
  const ordered = [...memories].sort((a, b) => b.importance - a.importance);
  const text = `[Reflection ×${memories.length}] ${ordered.map((m) => m.text).join(' | ')}`;
  return sliceCodePoints(text, EXTRACTIVE_SUMMARY_LIMIT);
}

/** Turns a cluster into summary text; may be async (an LLM call). Receives a copy of the cluster. */
export type Summarizer = (memories: Memory[]) => string | Promise<string>;

/**
 * The summary text of a cluster: `summarizer(cluster)` awaited, or {@link extractiveSummary}
 * without one. A summariser that returns something other than a non-blank string is a caller
 * error (INVALID_ARGUMENT, field `summarizer`); a summariser that throws propagates its error
 * (the reference's fallback to extractive belongs to its built-in LLM summarisers, not to a
 * caller-supplied function).
 */
export async function summarizeCluster(cluster: readonly Memory[], summarizer?: Summarizer): Promise<string> {
  if (summarizer === undefined) return extractiveSummary(cluster);
  if (typeof summarizer !== 'function') throw invalid('summarizer must be a function', { field: 'summarizer' });
  const text: unknown = await summarizer([...cluster]);
  if (typeof text !== 'string' || pyStrip(text) === '') {
    throw invalid(`summarizer must return a non-empty string — got ${JSON.stringify(text)}`, { field: 'summarizer' });
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// Summary memory
// ---------------------------------------------------------------------------------------------

export const CONSOLIDATE_MODES = ['none', 'soft', 'hard'] as const;
/** 'none' leaves sources alone; 'soft' supersedes them by the summary and links derived_from; 'hard' deletes them. */
export type ConsolidateMode = (typeof CONSOLIDATE_MODES)[number];

/** Reference `trust_rank`: position in TRUST_LEVELS; an unknown level ranks worst (fail safe). */
export function trustRank(level: string): number {
  if (!level) return 0;
  const i = (TRUST_LEVELS as readonly string[]).indexOf(level);
  return i === -1 ? TRUST_LEVELS.length - 1 : i;
}

/** Reference `worst_trust`: the least trusted of `levels`, 'trusted' for none. */
export function worstTrust(levels: Iterable<string>): Trust {
  let worst = 0;
  for (const level of levels) worst = Math.max(worst, trustRank(level));
  return TRUST_LEVELS[worst]!;
}

/**
 * Python's `sum(values) / len(values)` with CPython ≥ 3.12's compensated (Neumaier) float sum;
 * 0 for no values.
 */
export function pyMean(values: readonly number[]): number {
  if (values.length === 0) return 0;
  let sum = 0;
  let c = 0;
  for (const x of values) {
    const t = sum + x;
    if (Math.abs(sum) >= Math.abs(x)) c += sum - t + x;
    else c += x - t + sum;
    sum = t;
  }
  if (c !== 0 && Number.isFinite(c)) sum += c;
  return sum / values.length;
}

/**
 * Python's `round(x, 3)`: the decimal nearest to the exact binary value, exact ties to even
 * (`round(0.0625, 3) == 0.062`). `toFixed` already rounds the exact value but breaks ties away
 * from zero; an exact tie at 3 decimals happens only when `16·x` is an odd integer.
 */
export function pyRound3(x: number): number {
  if (!Number.isFinite(x)) return x;
  const sixteen = x * 16;
  if (Number.isInteger(sixteen) && Math.abs(sixteen % 2) === 1) {
    const scaled = x * 1000; // exact: an odd multiple of 62.5
    const floor = Math.floor(scaled);
    const even = floor % 2 === 0 ? floor : floor + 1;
    return even / 1000;
  }
  return Number(x.toFixed(3));
}

export interface SummaryFieldsOptions {
  /** Default 'none'. */
  consolidate?: ConsolidateMode;
  /** Dry run: `source` becomes `'reflection/dry-run'`. Default false. */
  dryRun?: boolean;
}

/** What the store writes for one cluster's summary memory (plus a fresh id and timestamps). */
export interface SummaryFields {
  text: string;
  type: 'semantic';
  tags: string[];
  importance: number;
  source: 'reflection' | 'reflection/dry-run';
  trust: Trust;
  pinned: boolean;
  /** The reference writes summaries with the default polarity. */
  polarity: 0;
  /**
   * The summary's outgoing links once consolidation is done. 'soft': for each source in cluster
   * order, `supersedes` (added by `supersede(source, summary)`) then `derived_from`; otherwise none.
   */
  links: Link[];
}

/**
 * The fields of a cluster's summary memory:
 * - type `semantic`; text = `summaryText` stripped (as `remember` strips);
 * - tags `['reflection', 'level:<max member level + 1>', ...member tags in cluster order,
 *   de-duplicated, without any `level:` tag and without a second 'reflection']`;
 * - importance `round(mean of member importances, 3)`;
 * - source `'reflection'` (`'reflection/dry-run'` in a dry run);
 * - trust = the worst of the members' (a summary of untrusted text is untrusted);
 * - pinned = consolidating ('soft' or 'hard') and some member is pinned (the pin must survive
 *   the sources being hidden or deleted);
 * - links as described on {@link SummaryFields.links}.
 */
export function summaryMemoryFields(cluster: readonly Memory[], summaryText: string, options: SummaryFieldsOptions = {}): SummaryFields {
  if (!Array.isArray(cluster) || cluster.length === 0) throw invalid('cluster must be a non-empty array of memories', { field: 'cluster' });
  const raw = checkObject<SummaryFieldsOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set(['consolidate', 'dryRun']), 'options');
  const consolidate: ConsolidateMode = raw.consolidate === undefined ? 'none' : checkChoice(raw.consolidate, CONSOLIDATE_MODES, 'consolidate');
  const dryRun = raw.dryRun === undefined ? false : checkBoolean(raw.dryRun, 'dryRun');
  const text = checkText(summaryText, 'summaryText');

  let level = 0;
  for (const m of cluster) level = Math.max(level, memoryLevel(m));
  const tags = ['reflection', `level:${level + 1}`];
  const seen = new Set(tags);
  for (const m of cluster) {
    for (const tag of m.tags) {
      if (tag.startsWith('level:') || seen.has(tag)) continue;
      seen.add(tag);
      tags.push(tag);
    }
  }

  const links: Link[] = [];
  if (consolidate === 'soft') {
    for (const m of cluster) links.push({ to: m.id, rel: 'supersedes' }, { to: m.id, rel: 'derived_from' });
  }

  return {
    text,
    type: 'semantic',
    tags,
    importance: pyRound3(pyMean(cluster.map((m) => m.importance))),
    source: dryRun ? 'reflection/dry-run' : 'reflection',
    trust: worstTrust(cluster.map((m) => m.trust)),
    pinned: consolidate !== 'none' && cluster.some((m) => m.pinned),
    polarity: 0,
    links,
  };
}

// ---------------------------------------------------------------------------------------------
// Plan
// ---------------------------------------------------------------------------------------------

export interface ReflectionPlanOptions extends ClusterOptions {
  consolidate?: ConsolidateMode;
  dryRun?: boolean;
  summarizer?: Summarizer;
}

export interface ReflectionPlanItem {
  /** Seed first. */
  cluster: Memory[];
  summary: SummaryFields;
  /** 'soft': ids to supersede by the summary, in cluster order (then link summary → id `derived_from`). */
  supersede: string[];
  /** 'hard': ids to forget, in cluster order. */
  forget: string[];
}

/**
 * Reference `reflect(dry_run, consolidate)` minus the writes: clusters, then for each cluster (in
 * order, summariser calls one at a time) its summary fields and the consolidation to apply. A dry
 * run plans no consolidation writes (`supersede`/`forget` empty) but keeps the pinned rule.
 */
export async function planReflection(items: readonly ReflectItem[], options: ReflectionPlanOptions): Promise<ReflectionPlanItem[]> {
  if (options === undefined) throw invalid('options must be an options object with now', { field: 'options' });
  const raw = checkObject<ReflectionPlanOptions>(options, 'options') as Record<string, unknown>;
  checkKnownKeys(raw, new Set<string>([...REFLECT_KEYS, 'now', 'consolidate', 'dryRun', 'summarizer']), 'options');
  const now = checkTimestamp(raw.now, 'now');
  const o = reflectFields(raw);
  const consolidate: ConsolidateMode = raw.consolidate === undefined ? 'none' : checkChoice(raw.consolidate, CONSOLIDATE_MODES, 'consolidate');
  const dryRun = raw.dryRun === undefined ? false : checkBoolean(raw.dryRun, 'dryRun');
  if (raw.summarizer !== undefined && typeof raw.summarizer !== 'function') {
    throw invalid('summarizer must be a function', { field: 'summarizer' });
  }
  const summarizer = raw.summarizer as Summarizer | undefined;

  const out: ReflectionPlanItem[] = [];
  for (const cluster of clusterChecked(checkItems(items), now, o)) {
    const text = await summarizeCluster(cluster, summarizer);
    const summary = summaryMemoryFields(cluster, text, { consolidate, dryRun });
    const ids = cluster.map((m) => m.id);
    out.push({
      cluster,
      summary,
      supersede: !dryRun && consolidate === 'soft' ? ids : [],
      forget: !dryRun && consolidate === 'hard' ? ids : [],
    });
  }
  return out;
}
