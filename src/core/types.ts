/**
 * Public data types. Everything here is plain, structured-clonable data so that it crosses a
 * worker boundary unchanged. Field meanings follow AI-Houkai's `Memory` (timestamps are Unix
 * seconds with fractions, so they round-trip an `.ahkai` archive exactly).
 */
import type { CoreSignal } from './domain/signal-names.ts';
import type { ConflictJudge } from './domain/judge.ts';
import type { RerankOptions, RerankOutcome } from './domain/rerank.ts';

export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural', 'feedback'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const TRUST_LEVELS = ['trusted', 'reported', 'untrusted'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

export type Polarity = -1 | 0 | 1;

export interface Link {
  to: string;
  rel: string;
}

export interface Memory {
  /** UUID v4 for memories created here; any string for imported ones. */
  id: string;
  /** Stripped text. */
  text: string;
  type: MemoryType;
  tags: string[];
  /** In [0, 1]. */
  importance: number;
  /** Unix seconds. */
  createdAt: number;
  lastAccessed: number;
  accessCount: number;
  source: string | null;
  links: Link[];
  /** Id of the superseding memory, `''` when active. */
  supersededBy: string;
  /** Unix seconds, 0 when never superseded. */
  supersededAt: number;
  polarity: Polarity;
  /** TTL deadline in Unix seconds, 0 = never. */
  expiresAt: number;
  pinned: boolean;
  trust: Trust;
  /** First 32 hex chars of SHA-256 of the lower-cased, whitespace-folded text. */
  contentHash: string;
  /** Valid-time interval `[validFrom, validUntil)`, 0 = unbounded. */
  validFrom: number;
  validUntil: number;
  /**
   * Globs (`src/db/**`, `*.sql`) or keywords (`timeout`) that surface this memory proactively in
   * `suggest()` when the context (file path, error, conversation) matches. `[]` by default.
   */
  surfacesWhen: string[];
}

/** Fields a caller may set when storing or editing a memory. */
export interface MemoryInput {
  /** What to do when the new memory conflicts with an existing one (default: the store's, 'warn'). */
  onConflict?: ConflictPolicyName;
  type?: MemoryType;
  tags?: string[];
  importance?: number;
  source?: string | null;
  polarity?: Polarity;
  expiresAt?: number;
  pinned?: boolean;
  trust?: Trust;
  validFrom?: number;
  validUntil?: number;
  surfacesWhen?: string[];
  /**
   * When the content happened, in **Unix seconds** (a chat turn's time, a dated note: `Date.now() /
   * 1000`, not `Date.now()`), or a `Date`; default: when it is stored. Stored as seconds. Not before
   * 1970, at most a day after the store's clock (a value in milliseconds is refused, and the error
   * says so). Recall's time signal and recency read it; decay and health read `lastAccessed` (the
   * store's own write and use time), and time travel (`stateAt`) the journal's transaction times.
   */
  createdAt?: number | Date;
  /**
   * `remember` only: this call's judge for the pairs the conflict patterns leave undecided (the
   * store's `conflicts.judge` otherwise): a function, through the worker too (it is proxied).
   */
  judge?: ConflictJudge;
}

export interface RememberItem extends MemoryInput {
  text: string;
}

export interface Conflict {
  a: Memory;
  b: Memory;
  similarity: number;
  /** 'update': the newer of the two replaces the older (a changed value or preference). */
  kind: 'duplicate' | 'contradiction' | 'update';
  reason: string;
  /** For a changed value or swapped alternatives: what changed (`older → newer`). */
  detail?: string;
}

export interface RememberResult {
  /** The stored memory; after a merge, the existing memory the new one was merged into. */
  memory: Memory;
  /** Conflicts found with existing memories (empty under the 'ignore' policy). */
  conflicts: Conflict[];
  /**
   * 'stored'; 'superseded' (stored, and contradicted memories superseded); 'merged' (a duplicate:
   * merged into the existing memory, nothing new stored); 'queued' (stored, conflicts await review).
   */
  action: 'stored' | 'superseded' | 'merged' | 'queued';
}

export type ConflictPolicyName = 'ignore' | 'warn' | 'supersede' | 'raise' | 'review';

export interface RecallOptions {
  /** Number of hits, default 5, must be > 0. */
  k?: number;
  type?: MemoryType;
  tag?: string;
  minImportance?: number;
  /** Exact `source` match. */
  source?: string | null;
  /** `createdAt` bounds, Unix seconds, inclusive. */
  since?: number;
  until?: number;
  /** Drop candidates whose cosine is below this, in [−1, 1]. */
  minCosine?: number;
  /** Pool multiplier for filtered search, default 4. */
  overfetch?: number;
  includeSuperseded?: boolean;
  includeExpired?: boolean;
  /** Least trusted level admitted: 'trusted' admits only trusted memories, 'reported' also reported ones. */
  minTrust?: Trust;
  /** MMR λ in [0, 1]: 1 = pure relevance, 0 = pure novelty. */
  diversity?: number;
  /** Skip a candidate whose cosine to an already chosen one is at least this. */
  dedupThreshold?: number;
  /** Update `lastAccessed`/`accessCount` of the hits, default true. */
  touch?: boolean;
  /**
   * Memories a newer one updates or supersedes ('outdated'): 'keep' (default) returns them, ranked
   * below the memory that replaced them and marked with `outdatedBy`; 'hide' leaves them out.
   */
  outdated?: 'keep' | 'hide';
  /** 'semantic' (default: cosine + 0.05·polarity) or 'hybrid' (cosine + BM25, then recency + importance). */
  mode?: 'semantic' | 'hybrid';
  /**
   * How hybrid signals combine: 'weighted' (default: relevance first; recency and importance only
   * break near-ties between relevant memories), 'linear' (AI-Houkai's plain weighted sum) or
   * reciprocal-rank fusion 'rrf'.
   */
  fusion?: 'weighted' | 'linear' | 'rrf';
  /** Partial hybrid weights, completed from the defaults (cosine 0.55, lexical 0.20, recency 0.15, importance 0.10, decayRate 0.10, tieBand 0.05). */
  weights?: Partial<HybridWeights>;
  /** "Latest first": an extra recency weight that is not bounded by relevance (hybrid modes), default 0. */
  recencyWeight?: number;
  /** Order of the returned hits: 'relevance' (default) or 'recent' (the best k, newest first). */
  sort?: 'relevance' | 'recent';
  /** Drop hits whose confidence verdict is below this: 'weak' keeps strong and weak hits. Default 'none' (keep all). */
  minConfidence?: 'strong' | 'weak' | 'none';
  /** Attach a score breakdown to each hit. */
  explain?: boolean;
  /** 'pool' (default: BM25 over the cosine pool) or 'corpus' (the persistent inverted index also finds candidates). */
  lexicalIndex?: 'pool' | 'corpus';
  /** Append linked neighbours (default rels refines/example_of, depth 1, cap 5, score 0.7) after the top k. */
  expand?: boolean | { rels?: string[]; depth?: number; cap?: number; score?: number; decay?: number };
  /**
   * A second stage: the top candidates re-scored by a cross-encoder (`{ model }`, provisioned under
   * the models folder) or the host's function (`{ reranker: (query, texts) => scores }`, proxied
   * through the worker), fused with the first stage's score. `true`: the store's rerank; `false`:
   * none for this call; an object without `model`/`reranker` adjusts the store's (`top` 1–50,
   * default 20; `weight` 0–1, default 0.5; `timeoutMs`, default 2,000). Off unless asked.
   */
  rerank?: boolean | RerankOptions;
  signal?: AbortSignal;
}

/**
 * Hybrid recall's weights; the defaults are `DEFAULT_HYBRID_WEIGHTS` (scoring.ts). One weight per
 * signal of `SIGNALS` (signals.ts): `cosine` (the cosine similarity, default 0.55), `lexical`
 * (pool-normalised BM25, 0.20), `recency` (`exp(−decayRate·ageDays)`, 0.15), `importance` (the
 * stored importance, 0.10); then the settings below.
 */
export interface HybridWeights extends Record<CoreSignal, number> {
  /** λ per day of the recency decay, default 0.10 (the DecayEngine's rate). */
  decayRate: number;
  /** Additive nudge per unit of polarity, default 0.05 (also used by semantic mode). */
  polarityWeight: number;
  /** Age measured from `createdAt` (default) or from `lastAccessed`. */
  recencyBasis: 'created' | 'accessed';
  /** 'weighted' fusion: the most recency and importance together add to a fully relevant memory. */
  tieBand: number;
}

/** The name `RecallOptions.weights` had before the weights were declared once. */
export type HybridWeightsInput = HybridWeights;

export interface ExplainSignal {
  /** `current`: the part a newer memory gets to rank above the memory it updates; `rerank`: what the second stage moved the score by. */
  name: CoreSignal | 'polarity' | 'current' | 'rerank';
  value: number;
  weight: number;
  /** This signal's part of the score; the parts sum to the score. */
  weighted: number;
  reason: string;
  details: Record<string, unknown>;
}

export interface RecallExplanation {
  mode: 'semantic' | 'hybrid';
  fusion?: 'weighted' | 'linear' | 'rrf';
  score: number;
  signals: ExplainSignal[];
  /** Why the hit got its confidence: P(relevant), the idf-weighted share of the query's terms it holds, and its cosine in background spreads. */
  relevance?: { probability: number; confidence: 'strong' | 'weak' | 'none'; coverage: number; z: number };
  /** AI-Houkai's breakdown dict, rounded as it rounds. */
  breakdown: Record<string, unknown>;
  /** Ranked as the current memory of these (it updates or supersedes them): at least their score and badge. */
  current?: { of: string[] };
  /** Outdated: these live memories update or supersede it, and rank above it. */
  outdated?: { by: string[] };
  /**
   * Present when a rerank was asked: which stage ordered the top (`ran`: 'cross-encoder', 'host',
   * or 'first-stage' with the `reason` the reranker was not used: timeout, failed, bad-answer).
   * A reranked hit also carries the reranker's `score` and its `firstStage` score.
   */
  rerank?: RerankOutcome & { score?: number; firstStage?: number };
}

export interface RecallHit {
  memory: Memory;
  /** The ranking score: cosine (+ polarity) in semantic mode, the fused score in hybrid mode. */
  score: number;
  /** Cosine similarity between the query and the memory. */
  cosine?: number;
  /** Whether this is a real match: the relevance verdict, calibrated per embedder and on this store's background. */
  confidence?: 'strong' | 'weak' | 'none';
  /** P(relevant) behind `confidence`, in [0, 1]. */
  relevance?: number;
  explain?: RecallExplanation;
  /** Set on hits added by `expand`: the hit they were linked from, the relation and the hop. */
  expandedFrom?: { id: string; rel: string; hop: number };
  /**
   * Ids of the live memories that say otherwise and are not settled: a `contradicts` link either
   * way, or a contradiction or update waiting in review (core/services/contested.ts). Empty when none.
   */
  contestedBy: string[];
  /**
   * Ids of the live memories that replace this one: a newer memory updates it (the same fact with
   * a new value: an `updates` link) or supersedes it. They rank above it; `outdated: 'hide'`
   * leaves such hits out. Empty when this memory is current.
   */
  outdatedBy: string[];
}

export interface ListOptions {
  limit?: number;
  includeSuperseded?: boolean;
  includeExpired?: boolean;
  /** Keyset cursor: only memories created strictly before this time (Unix seconds)… */
  before?: number;
  /**
   * …or, with `beforeId` (the last row's id), also those created at `before` that come after it:
   * pass the last row's `createdAt` and `id` to page without skipping ties. Memories created at
   * the same time list in write order, newest written first. If that memory is gone (forgotten
   * between two pages), every memory created at `before` is listed again: a page may repeat rows
   * you have, and none is skipped. A memory whose text is edited is written again and moves to
   * the front of the memories created at its time: edited between two pages of those, it is
   * not on the next page.
   */
  beforeId?: string;
}

export type ProgressEvent =
  | { kind: 'embed'; done: number; total: number }
  | { kind: 'write'; done: number; total: number }
  | { kind: 'index-rebuild'; done: number; total: number }
  /** Opening the store's search index (reading its saved snapshot) and the store around it: `start`, then `done`. */
  | { kind: 'index-open'; phase: 'start' | 'done' }
  /** Reading the saved index back at open, in parts (the int8 index's blocks): parts read of all. */
  | { kind: 'index-load'; done: number; total: number }
  /**
   * A schema upgrade at open: rows rewritten of `total` (v11: every vector to binary16), or, with
   * `total` null, an index the browser builds over every row, whose progress it does not report
   * (v14): `done` 0 as it starts, then one event with `done` = `total` = the store's memory count
   * once it is built. Bringing the stored lexical terms up to today's definition, on any storage,
   * reports the same way: rows read of the store's memories.
   */
  | { kind: 'upgrade'; done: number; total: number | null }
  | { kind: 'reindex'; done: number; total: number }
  /** Moving a store between IndexedDB and OPFS (`moveMemory`): rows copied of all. */
  | { kind: 'move'; done: number; total: number }
  /**
   * `read`: `rowsRead` rows of the file checked (as `archiveInfo().rows` counts them), `bytes` of
   * `totalBytes` compressed bytes read. `write`: `rowsWritten` of `writesTotal` rows written
   * (`rowsRead` is then every row of the file). Every count only grows.
   */
  | { kind: 'import'; phase: 'read' | 'write'; rowsRead: number; rowsWritten: number; bytes: number; totalBytes: number | null; writesTotal?: number | null }
  | { kind: 'export'; rowsWritten: number; bytes: number }
  /**
   * A sync round: the outbox written to the replica, documents replicated, replicated changes
   * applied to the store; `rekey`: documents sealed again under a new passphrase.
   */
  | { kind: 'sync'; phase: 'push' | 'replicate' | 'apply' | 'rekey'; done: number; total: number | null }
  /** Model loading: per file (`loaded`/`total` bytes) and `percent` (0–100) of all the model's files together. */
  | { kind: 'model'; status: 'initiate' | 'download' | 'progress' | 'done' | 'ready'; file?: string; loaded?: number; total?: number; percent?: number };

export interface LongRunOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

export interface RememberManyOptions extends LongRunOptions {
  /** Items embedded and written per transaction, default 128. */
  batchSize?: number;
  /** Conflict policy for every item (default 'ignore' for bulk ingestion; 'raise' is refused). */
  onConflict?: Exclude<ConflictPolicyName, 'raise'>;
  /** This call's judge (see `MemoryInput.judge`); its budget counts for the whole call. */
  judge?: ConflictJudge;
}

/** What `aggregate` counts. */
export interface AggregateOptions {
  /** How many tags to return, most used first (default 12; 0 for none). */
  topTags?: number;
  /**
   * Ascending bucket edges in Unix seconds: `created[i]` counts the memories with
   * `edges[i] ≤ createdAt < edges[i + 1]` (so n edges give n − 1 counts). At most 1,001 edges.
   */
  createdEdges?: number[];
  /** Count superseded memories too; by default only the active ones, as `stats().active`. */
  includeSuperseded?: boolean;
  /** Also count the memories past their `expiresAt` not yet purged (`expired`; reads every row, so off by default). */
  countExpired?: boolean;
}

/** Exact counts over every stored memory, read from the indexes (no rows are loaded). */
export interface StoreAggregates {
  /** The most used tags, most first (ties by name). */
  tags: { tag: string; count: number }[];
  /** How many different tags there are. */
  distinctTags: number;
  /** One count per bucket of `createdEdges`. */
  created: number[];
  /** How many memories were counted. */
  counted: number;
  /** With `countExpired`: memories (not superseded) past their `expiresAt`, hidden from recall and lists until purged. */
  expired?: number;
}

/** Which vector index a store runs: hnswlib (float32), exact brute force, or the int8 HNSW kernel. */
export type IndexKind = 'hnsw' | 'exact' | 'hnsw-i8';

export interface StoreStats {
  name: string;
  count: number;
  active: number;
  superseded: number;
  byType: Record<MemoryType, number>;
  /** The model; `queryInstruction` marks a query/passage model (queries carry it, stored texts do not). */
  embedder: { id: string; dim: number; queryInstruction?: string };
  /** `pending`: vectors searchable by exact scan, still being inserted into the graph in the background. */
  index: { kind: IndexKind; size: number; pending: number; snapshotGeneration: number | null; generation: number };
  schemaVersion: number;
  /**
   * The thresholds behind the confidence verdicts: how they were derived ('pairwise-background'
   * once the store has sampled random pairs of its own vectors) and from how many samples.
   */
  /** The relevance verdict in use: the cosines at which a hit sharing no query term becomes weak/strong, how it is calibrated, the background sample size and the reference source. */
  confidence: { strong: number; weak: number; calibrated: boolean; method: string; samples: number; source?: string };
  /** Browser storage facts (persistent or not, bytes used and available), when known. */
  storage?: { persisted: boolean | null; usage: number | null; quota: number | null };
}
