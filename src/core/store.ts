/**
 * The memory store: remember / recall / forget / edit over the ports. Pure orchestration:
 * validate, embed first, then write each mutation in one storage transaction, then update the
 * in-memory index. Nothing here knows about Dexie, hnswlib or a model.
 */
import { plainArguments } from './boundary.ts';
import { MemoryError, invalid, throwIfAborted } from './errors.ts';
import { DeferredIndex, type DeferredIndexOptions } from './deferred-index.ts';
import { ImportLeases, type ImportLeaseOptions } from './import-lease.ts';
import { IndexSync, type IndexOpenOutcome } from './index-sync.ts';
import type { Clock, Embedder, EmbedOptions, IdSource, MemoryStorage, StoreMeta, VectorIndex } from './ports.ts';
import {
  applyIndexDelta,
  archiveInfo,
  exportArchive,
  importArchive,
  type ArchiveDeps,
  type ArchiveInfo,
  type ArchiveSource,
  type ArchiveLimits,
  type ExportArchiveOptions,
  type ImportArchiveOptions,
  type ImportResult,
} from './archive/store-ops.ts';
import { ConfidenceCalibrator } from './confidence.ts';
import { checkPolicy, type Classifier, type ConflictPolicy, type ContradictionFn } from './conflicts.ts';
import {
  applyWritePolicy,
  findConflicts,
  graphNeighbors,
  graphPath,
  graphSubgraph,
  link,
  listPendingConflicts,
  resolveConflict,
  restore,
  scanForWrite,
  supersede,
  unlink,
  type ConflictScanOptions,
  type GraphDeps,
} from './graph-ops.ts';
import type { NeighborsResult, PathResult, SubgraphResult } from './graph.ts';
import {
  checkRetention,
  compactJournal,
  history,
  journalContext,
  journalTail,
  stateAt,
  undo,
  type CompactResult,
  type JournalDeps,
  type JournalRetention,
  type UndoResult,
} from './journal-ops.ts';
import type { DurabilityRegistry, JournalEntry, TrashEntry } from './ports.ts';
import { DurabilityMonitor, type DurabilityReport } from './durability.ts';
import { checkDecayOptions, evictionCandidates, expiredMemories, pruneCandidates, scoreAll, type DecayOptions, type EvictionPolicy, type ScoredMemory } from './decay.ts';
import { analyzeAll, type HealthReport, type HealthStatsReport, type HealthStatus, type PotentialConflict } from './health.ts';
import { planReflection, type ReflectOptions, type Summarizer } from './reflect.ts';
import {
  MAINTENANCE_JOBS,
  MaintenanceScheduler,
  checkMaintenanceConfig,
  defaultLock,
  type MaintenanceConfig,
  type MaintenanceJob,
  type MaintenanceRun,
} from './maintenance.ts';
import type { PendingConflict } from './review.ts';
import { runEvaluation, type EvalCase, type EvalSummary, type RunEvaluationOptions } from './evaluate.ts';
import { checkRecallOptions, recallFilter, runRecall, sampleBackground, type RecallContext } from './recall.ts';
import { checkPackOptions, fanoutQueries, packMemories, type PackOptions, type PackResult } from './recall-pack.ts';
import { suggestMemories, type SuggestOptions, type Suggestion } from './suggest.ts';
import { contentHash } from './text.ts';
import {
  MEMORY_TYPES,
  type Conflict,
  type ListOptions,
  type LongRunOptions,
  type Memory,
  type MemoryInput,
  type MemoryType,
  type RecallHit,
  type RecallOptions,
  type RememberItem,
  type RememberManyOptions,
  type RememberResult,
  type StoreStats,
  type AggregateOptions,
  type StoreAggregates,
} from './types.ts';
import {
  checkActor,
  checkBoolean,
  checkId,
  checkInteger,
  checkKnownKeys,
  checkMemoryInput,
  checkObject,
  checkText,
  checkTimestamp,
  checkValidity,
} from './validate.ts';

/** The operations every surface (in-process, worker, agents) exposes. */
export interface MemoryApi {
  /** Stores one memory. @throws MemoryError INVALID_ARGUMENT on bad input (nothing is written). */
  remember(text: string, options?: MemoryInput): Promise<RememberResult>;
  /** Stores many memories: all validated before any write, embedded and written per batch. */
  rememberMany(items: (string | RememberItem)[], options?: RememberManyOptions): Promise<RememberResult[]>;
  /** Nearest memories to `query`, best first (semantic or hybrid, with explanations); touches each hit. */
  recall(query: string, options?: RecallOptions): Promise<RecallHit[]>;
  /** A token-budgeted block of the most relevant memories for a prompt (hybrid by default). */
  recallPack(query: string, options?: RecallPackOptions): Promise<PackResult>;
  /** Fans a task out into key phrases, recalls for each, merges by best score, packs. */
  contextPack(task: string, options?: ContextPackOptions): Promise<PackResult & { queries: string[] }>;
  /** Memories worth surfacing for a context (file, error, conversation) without a query. */
  suggest(context: SuggestOptions): Promise<Suggestion[]>;
  /** recall@k, precision@k, MRR, MAP and nDCG@k over a gold set, without touching anything. */
  evaluate(cases: EvalCase[], options?: RunEvaluationOptions & Omit<RecallOptions, 'k' | 'mode' | 'touch' | 'signal'>): Promise<EvalSummary>;
  /** The store as an `.ahkai` archive (AI-Houkai's format), in created-at order. */
  exportArchive(options?: ExportArchiveOptions): Promise<Blob>;
  /** Imports an `.ahkai` archive: validated whole first, then written atomically (rolled back on failure or cancel). */
  importArchive(source: ArchiveSource, options?: ImportArchiveOptions): Promise<ImportResult>;
  /** What an archive holds (header, rows, vectors, warnings), without touching the store; bounded like an import. */
  archiveInfo(source: ArchiveSource, options?: ArchiveLimits): Promise<ArchiveInfo>;
  /** Adds the typed link `src → dst` (default rel 'related'); idempotent. @throws NOT_FOUND, INVALID_ARGUMENT (self-link) */
  link(src: string, dst: string, rel?: string): Promise<{ added: boolean }>;
  /** Removes `src → dst` links (one rel or all); returns how many. */
  unlink(src: string, dst: string, rel?: string): Promise<number>;
  /** Breadth-first neighbours with the relation and hop of each, plus dangling links. */
  neighbors(id: string, options?: { rel?: string; direction?: 'out' | 'in' | 'both'; depth?: number }): Promise<NeighborsResult>;
  /** The memories around `ids` (outgoing links, `depth` hops) and the edges between them. */
  subgraph(ids: string[], options?: { depth?: number }): Promise<SubgraphResult>;
  /** Shortest undirected path between two memories. */
  findPath(from: string, to: string, options?: { maxDepth?: number }): Promise<PathResult>;
  /** Marks `oldId` superseded by `newId` (kept for audit and restore); the pin follows. */
  supersede(oldId: string, newId: string): Promise<{ ok: boolean; noop: boolean }>;
  /** Undoes a supersede. */
  restore(id: string): Promise<{ restored: boolean; wasSupersededBy: string }>;
  /** Duplicates and contradictions among vector neighbours, for one memory or the whole store. */
  findConflicts(options?: Omit<ConflictScanOptions, 'contradictionFn'>): Promise<Conflict[]>;
  /** Conflicts waiting for the user, with both memories. */
  listPendingConflicts(options?: { limit?: number }): Promise<(PendingConflict & { new: Memory | null; old: Memory | null })[]>;
  /** The user's decision: 'supersede' the old memory, 'keep_both' (records `contradicts`), or 'drop_new'. */
  resolveConflict(id: string, resolution: 'supersede' | 'keep_both' | 'drop_new'): Promise<PendingConflict>;
  /** Every live memory with its decay score, highest first. */
  decayScores(options?: DecayOptions & { now?: number }): Promise<ScoredMemory[]>;
  /**
   * Moves memories whose decay score fell below `minScore` to the trash (protected types and
   * pinned memories never). A dry run (the default) only lists them.
   */
  prune(options?: DecayOptions & { dryRun?: boolean; now?: number }): Promise<{ candidates: ScoredMemory[]; trashed: number; dryRun: boolean }>;
  /** Removes memories whose `expiresAt` has passed. */
  purgeExpired(options?: { dryRun?: boolean; now?: number }): Promise<{ purged: number; ids: string[]; dryRun: boolean }>;
  /**
   * Consolidates clusters of similar episodic memories into semantic summaries. 'soft' supersedes
   * the sources by the summary (and links `derived_from`), 'hard' forgets them, 'none' keeps them.
   */
  reflect(options?: ReflectOptions & { dryRun?: boolean; consolidate?: 'none' | 'soft' | 'hard'; summarizer?: Summarizer }): Promise<{
    clusters: { ids: string[]; summary: string; summaryId: string | null }[];
    dryRun: boolean;
  }>;
  /** One status per memory (at_risk, stale, orphan, healthy) with reasons, soft potential-conflict flags, and the report. */
  health(options?: { staleDays?: number }): Promise<{
    statuses: Record<string, HealthReport>;
    counts: Record<HealthStatus, number>;
    potentialConflicts: PotentialConflict[];
    report: HealthStatsReport;
  }>;
  /** The maintenance scheduler's state and run history. */
  maintenanceStatus(): Promise<ReturnType<MaintenanceScheduler['status']>>;
  /** Runs maintenance jobs now (default: the due ones). */
  runMaintenance(jobs?: MaintenanceJob[]): Promise<MaintenanceRun[]>;
  trashList(): Promise<TrashEntry[]>;
  /** Brings the newest trashed copy of `id` back (with its vector); null when absent or live again. */
  trashRestore(id: string): Promise<Memory | null>;
  /** Irreversible: one id, entries older than `olderThanDays`, or everything. */
  trashPurge(options?: { id?: string; olderThanDays?: number }): Promise<number>;
  /** The newest journal entries, newest first. */
  journalTail(n?: number): Promise<JournalEntry[]>;
  /** Every journal entry about one memory, oldest first. */
  history(id: string): Promise<JournalEntry[]>;
  /** Undoes the call behind journal entry `seq` (default the newest), unless a memory changed since. */
  undo(seq?: number): Promise<UndoResult>;
  /**
   * The memories as they were at `ts` (Unix seconds), rebuilt from the journal.
   * @throws MemoryError JOURNAL_COMPACTED when `ts` is before the journal's retention horizon.
   */
  stateAt(ts: number): Promise<Memory[]>;
  /**
   * Drops journal entries outside the retention window (older than `keepDays` and not among the
   * newest `keepLast`; default the store's `journalRetention`), never part of a call with an
   * entry inside it, so undo inside the window keeps working. Maintenance runs it daily.
   */
  compactJournal(options?: JournalRetention): Promise<CompactResult>;
  /**
   * Whether the browser deleted or cleared this store: its canary, the registry's last sighting
   * and count, a suspected loss (kept until `acknowledge`), persistence, and the last whole export.
   */
  durability(options?: { acknowledge?: boolean }): Promise<DurabilityReport>;
  /** Hard delete. @returns false when no such memory exists. */
  forget(id: string): Promise<boolean>;
  /** A plain read (no touch); null when absent. */
  get(id: string): Promise<Memory | null>;
  /** Changes fields in place, keeping id, links and access tracking. @throws NOT_FOUND */
  edit(id: string, changes: { text?: string } & MemoryInput): Promise<Memory>;
  /** Newest first. */
  listRecent(options?: ListOptions): Promise<Memory[]>;
  count(): Promise<number>;
  stats(): Promise<StoreStats>;
  /** Exact tag counts and memories created per time bucket, over every memory (not a sample). */
  aggregate(options?: AggregateOptions): Promise<StoreAggregates>;
  /** Re-embeds every memory with the store's current embedder; resumable and cancellable. */
  reindex(options?: LongRunOptions): Promise<{ reembedded: number }>;
  /** Persists the index snapshot now (it is otherwise written after a quiet period). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export type RecallPackOptions = PackOptions &
  Omit<RecallOptions, 'k' | 'explain'> & {
    /** Prepend every live pinned memory (scored with the top score). */
    includePinned?: boolean;
  };

export type ContextPackOptions = PackOptions & {
  maxPhrases?: number;
  mode?: 'semantic' | 'hybrid';
  minCosine?: number;
  minTrust?: RecallOptions['minTrust'];
  lexicalIndex?: RecallOptions['lexicalIndex'];
  touch?: boolean;
};

const PACK_ONLY_KEYS = ['tokenBudget', 'maxItems', 'tokenCounter', 'header', 'compress', 'compressThreshold', 'compressMinGroup'] as const;

/** Splits an options object into its pack part and the rest (own data properties: a key "__proto__" stays a key). */
function splitPack<T extends object>(options: T | undefined): { pack: PackOptions; rest: Record<string, unknown> } {
  const pack: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(checkObject<T>(options, 'options'))) {
    Object.defineProperty((PACK_ONLY_KEYS as readonly string[]).includes(key) ? pack : rest, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { pack: pack as PackOptions, rest };
}

export interface StoreDeps {
  name: string;
  storage: MemoryStorage;
  index: VectorIndex;
  embedder: Embedder;
  clock?: Clock;
  ids?: IdSource;
  schemaVersion: number;
  /** The registry of stores, kept outside the store's database (durability checks); none: canary only. */
  registry?: DurabilityRegistry | null;
  /** Whether the browser keeps this origin's storage (null where unknown). */
  persisted?: () => Promise<boolean | null>;
  /** Browser storage facts for `stats().storage`. */
  storageInfo?: () => Promise<NonNullable<StoreStats['storage']>>;
  /** Runs once after the store closed (the composition root releases what it opened beside it). */
  onClosed?: () => void;
}

export interface ConflictSettings {
  /** Default policy for `remember` ('warn': report conflicts, change nothing). */
  policy?: ConflictPolicy;
  /** Cosine gate, default 0.80. */
  threshold?: number;
  /** Consulted when polarity and negation did not decide (may be async, e.g. an LLM call). */
  contradictionFn?: ContradictionFn;
  /** Seed-002 classifier hook: CONTRADICTION | UPDATE | OVERLAP | NONE. */
  classifier?: Classifier;
}

export interface StoreOpenOptions extends LongRunOptions {
  conflicts?: ConflictSettings;
  /** Journal attribution for this store's writes: 'lib' (default), 'ui', 'agent:<name>'… */
  actor?: string;
  /** Scheduled maintenance (decay prune, TTL purge, trash retention, reflection); off unless given. */
  maintenance?: MaintenanceConfig;
  /**
   * A cap on the number of memories, enforced on write: 'decay' or 'lru' move the weakest to the
   * trash to make room (never procedural or pinned ones), 'reject' refuses the write.
   */
  quota?: { maxMemories: number; policy: EvictionPolicy };
  /** What to do when the store's vectors were made by another embedder. Default 'error'. */
  onEmbedderChange?: 'error' | 'reindex';
  snapshotDelayMs?: number;
  /** What journal compaction keeps (default 90 days, and always the newest 1000 entries). */
  journalRetention?: JournalRetention;
  /** Pacing of background index insertion (imports, replay at open); see `DeferredIndex`. */
  indexDrain?: DeferredIndexOptions;
  /** How imports prove they are alive to other owners of the store (lease length, heartbeat, lock manager); see core/import-lease.ts. */
  importLease?: Pick<ImportLeaseOptions, 'ttlSeconds' | 'heartbeatSeconds' | 'locks'>;
}

const systemClock: Clock = { now: () => Date.now() / 1000 };
const randomIds: IdSource = { next: () => crypto.randomUUID() };

const LIST_KEYS = new Set(['limit', 'includeSuperseded', 'includeExpired', 'before', 'beforeId']);
const MANY_KEYS = new Set(['batchSize', 'signal', 'onProgress', 'onConflict']);
const LONG_KEYS = new Set(['signal', 'onProgress']);


/** Opens a store over the given adapters; the composition roots (`createMemory`, the worker) call this. */
export async function openStore(
  deps: StoreDeps,
  options: StoreOpenOptions = {},
): Promise<MemoryApi & { opened: IndexOpenOutcome | 'pending-reindex'; asActor(actor: string): MemoryApi }> {
  const { storage, embedder, name } = deps;
  // Bulk writes (imports, the replay at open) reach the graph in the background; recall stays exact meanwhile.
  const index = new DeferredIndex(deps.index, options.indexDrain);
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  if (!Number.isInteger(embedder.dim) || embedder.dim <= 0) {
    throw invalid('embedder.dim must be a positive whole number', { field: 'embedder' });
  }
  // Checked before anything is written.
  const retention = checkRetention(options.journalRetention);
  const maintenanceConfig = checkMaintenanceConfig(options.maintenance ?? { enabled: false });

  let meta: StoreMeta = await storage.initMeta({
    schemaVersion: deps.schemaVersion,
    embedderId: embedder.id,
    dim: embedder.dim,
    ...(embedder.queryInstruction ? { queryInstruction: embedder.queryInstruction } : {}),
    generation: 0,
    nextLabel: 0,
    createdAt: clock.now(),
  });
  let mismatch = meta.embedderId !== embedder.id || meta.dim !== embedder.dim;
  if (mismatch && options.onEmbedderChange !== 'reindex') {
    storage.close();
    throw new MemoryError(
      meta.dim !== embedder.dim && meta.embedderId === embedder.id ? 'DIMENSION_MISMATCH' : 'EMBEDDER_MISMATCH',
      `Store "${name}" holds vectors from ${meta.embedderId} (${meta.dim}-d), not ${embedder.id} (${embedder.dim}-d); ` +
        `open it with { onEmbedderChange: 'reindex' } and call reindex() to re-embed`,
      { stored: { id: meta.embedderId, dim: meta.dim }, requested: { id: embedder.id, dim: embedder.dim } },
    );
  }

  // An import whose owner is gone (a crash, a closed tab) is undone before the index is opened;
  // one another owner is still writing is left alone and watched (core/import-lease.ts).
  const leases = new ImportLeases({
    name,
    storage,
    now: () => clock.now(),
    newId: () => ids.next(),
    ...(options.importLease ?? {}),
    rolledBack: (delta) => {
      applyIndexDelta(index, delta);
      sync.schedule(delta.generation);
    },
  });
  await leases.recover();
  meta = (await storage.readMeta()) ?? meta;

  const sync = new IndexSync(index, storage, options.snapshotDelayMs === undefined ? {} : { snapshotDelayMs: options.snapshotDelayMs });
  let opened: IndexOpenOutcome | 'pending-reindex' = 'pending-reindex';
  if (!mismatch) opened = await sync.open(meta.generation, options);
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new MemoryError('CLOSED', `Store "${name}" is closed`);
  }
  function ensureVectors(): void {
    ensureOpen();
    if (mismatch) {
      throw new MemoryError('EMBEDDER_MISMATCH', `Store "${name}" must be re-embedded with ${embedder.id}: call reindex()`, {
        stored: { id: meta.embedderId, dim: meta.dim },
      });
    }
  }

  async function embed(texts: string[], opts: LongRunOptions & Pick<EmbedOptions, 'input'> = {}): Promise<Float32Array[]> {
    throwIfAborted(opts.signal);
    let vectors: Float32Array[];
    try {
      vectors = await embedder.embed(texts, opts);
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      if (opts.signal?.aborted) throw new MemoryError('ABORTED', 'The operation was cancelled');
      throw new MemoryError('MODEL_UNAVAILABLE', `Embedding failed: ${(error as Error)?.message ?? error}`);
    }
    if (vectors.length !== texts.length) {
      throw new MemoryError('DIMENSION_MISMATCH', `The embedder returned ${vectors.length} vectors for ${texts.length} texts`);
    }
    for (const v of vectors) {
      if (v.length !== embedder.dim) {
        throw new MemoryError('DIMENSION_MISMATCH', `The embedder returned a ${v.length}-d vector; the store holds ${embedder.dim}-d vectors`, {
          expected: embedder.dim,
          actual: v.length,
        });
      }
    }
    return vectors.map((v) => (v instanceof Float32Array ? v : Float32Array.from(v)));
  }

  async function buildMemory(text: string, input: MemoryInput, now: number): Promise<Memory> {
    const memory: Memory = {
      id: ids.next(),
      text,
      type: input.type ?? 'semantic',
      tags: input.tags ?? [],
      importance: input.importance ?? 0.5,
      createdAt: now,
      lastAccessed: now,
      accessCount: 0,
      source: input.source ?? null,
      links: [],
      supersededBy: '',
      supersededAt: 0,
      polarity: input.polarity ?? 0,
      expiresAt: input.expiresAt ?? 0,
      pinned: input.pinned ?? false,
      trust: input.trust ?? 'trusted',
      contentHash: await contentHash(text),
      validFrom: input.validFrom ?? 0,
      validUntil: input.validUntil ?? 0,
      surfacesWhen: input.surfacesWhen ?? [],
    };
    checkValidity(memory.validFrom, memory.validUntil);
    return memory;
  }

  function validateItem(item: unknown, where: string): { text: string; input: MemoryInput } {
    if (typeof item === 'string') return { text: checkText(item, where), input: {} };
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw invalid(`${where} must be a string or an object with a text field`, { field: where });
    }
    const { text, ...rest } = item as RememberItem;
    const input = checkMemoryInput(rest, where);
    // 'raise' must be decided before anything is written, and a batch writes as it goes: refused
    // per item as for the whole call (use remember() for one memory that must not conflict).
    if (input.onConflict === 'raise') throw invalid(`${where}.onConflict 'raise' is not supported by rememberMany; use remember()`, { field: `${where}.onConflict` });
    // Checked here, for every item, before the first batch is written (not per batch).
    checkValidity(input.validFrom ?? 0, input.validUntil ?? 0);
    return { text: checkText(text, `${where}.text`), input };
  }

  const calibrator = new ConfidenceCalibrator(embedder.id);
  let calibratedAt = 0;
  const recallContext: RecallContext = {
    storage,
    index,
    clock,
    calibrator,
    embedQuery: async (text, signal) => (await embed([text], { input: 'query', ...(signal ? { signal } : {}) }))[0]!,
    // Background similarities of random stored pairs, refreshed whenever the store doubles.
    async calibrate() {
      const size = index.size();
      if (size < 2 || (calibratedAt > 0 && size < calibratedAt * 2)) return;
      calibratedAt = size;
      // The label counter as it is now: `meta` was read at open and a fresh store starts at 0.
      meta = (await storage.readMeta()) ?? meta;
      calibrator.observePairwise(await sampleBackground(storage, meta.nextLabel));
    },
  };

  const storeQuota = options.quota;
  const conflictDefaults = {
    policy: options.conflicts?.policy === undefined ? ('warn' as ConflictPolicy) : checkPolicy(options.conflicts.policy, 'conflicts.policy'),
    ...(options.conflicts?.threshold === undefined ? {} : { threshold: options.conflicts.threshold }),
    contradictionFn: options.conflicts?.contradictionFn ?? null,
    classifier: options.conflicts?.classifier ?? null,
  };
  const durability = new DurabilityMonitor({
    name,
    storage,
    registry: deps.registry ?? null,
    clock,
    newId: () => ids.next(),
    persisted: deps.persisted ?? (async () => null),
  });

  /**
   * The API with its journal entries attributed to `actor`. The worker serves each connection
   * through its own view (`asActor`), so one store shared by the app and an agent still records
   * who did what; every view is the same store (one index, one close).
   */
  const makeApi = (actor: string): MemoryApi => {
    const jctx = (op: string, meta: Record<string, unknown> = {}, group?: string) => {
      const ctx = journalContext({ clock, ids, actor }, op, meta);
      return group ? { ...ctx, group } : ctx;
    };

    /** Enforces the quota before a write of `incoming` memories: evict to the trash, or refuse. */
    async function makeRoom(incoming: number): Promise<void> {
      const quota = options.quota!;
      if ((await storage.count()) + incoming <= quota.maxMemories) return;
      const plan = evictionCandidates(await storage.allMemories(), { ...quota, incoming, now: clock.now() });
      if (plan.rejected) {
        throw new MemoryError('STORAGE_QUOTA', `The store holds its maximum of ${quota.maxMemories} memories (${plan.outcome}); nothing was written`, {
          maxMemories: quota.maxMemories,
          outcome: plan.outcome,
          shortfall: plan.shortfall,
        });
      }
      if (plan.evict.length === 0) return;
      const delta = await storage.moveToTrash(plan.evict.map((m) => m.id), { ...jctx('trash', { by: 'quota', policy: quota.policy }), actor: 'quota' });
      index.remove(delta.removedLabels);
      sync.schedule(delta.generation);
    }

    /** Embeds and writes one batch; index updated only after the transaction commits. */
    async function writeBatch(
      prepared: { text: string; input: MemoryInput }[],
      opts: LongRunOptions,
      precomputed?: Float32Array[],
      roomMade = false,
      journal = jctx('remember'),
    ): Promise<{ memories: Memory[]; vectors: Float32Array[] }> {
      const vectors = precomputed ?? (await embed(prepared.map((p) => p.text), opts));
      if (options.quota && !roomMade) await makeRoom(prepared.length);
      throwIfAborted(opts.signal);
      const now = clock.now();
      const memories = await Promise.all(prepared.map((p) => buildMemory(p.text, p.input, now)));
      const { labels, generation } = await storage.insert(memories, vectors, journal);
      index.add(labels, vectors);
      sync.schedule(generation);
      return { memories, vectors };
    }

    /** Records the access of `ids` (once each) and shows the touched rows in the pack's items. */
    async function touchPacked(result: PackResult, ids: string[]): Promise<PackResult> {
      if (ids.length === 0) return result;
      const touched = new Map((await storage.touch(ids, clock.now())).map((m) => [m.id, m]));
      return { ...result, items: result.items.map((item) => ({ ...item, memory: touched.get(item.memory.id) ?? item.memory })) };
    }

    const graphDeps: GraphDeps = {
      storage,
      index,
      clock,
      ids,
      vectorOf: async (id) => {
        const [label] = await storage.labelsOf([id]);
        return label === undefined ? undefined : (await storage.vectorsOf([label])).get(label);
      },
      changed: (generation) => sync.schedule(generation),
      journal: (op, meta) => jctx(op, meta),
    };
    const journalDeps: JournalDeps = {
      storage,
      index,
      clock,
      ids,
      actor,
      embed: (texts) => embed(texts),
      changed: (generation) => sync.schedule(generation),
    };

    const archiveDeps: ArchiveDeps = {
      name,
      leases,
      storage,
      index,
      embedder,
      embed: (texts, opts) => embed(texts, opts),
      changed: (generation) => sync.schedule(generation),
      now: () => clock.now(),
      newId: () => ids.next(),
      journal: (op, meta, group) => jctx(op, meta, group),
    };

    return {
      async exportArchive(options) {
        ensureOpen();
        const { record: recordOption, ...rest } = checkObject<ExportArchiveOptions>(options, 'options');
        const record = recordOption === undefined ? true : checkBoolean(recordOption, 'record');
        const blob = await exportArchive(archiveDeps, rest);
        if (!record) return blob; // a read-only or untrusted connection's export leaves no trace
        await storage.journalAppend(jctx('export', { bytes: blob.size }), [{ id: '*', before: null, after: null }]);
        // A whole export (no type, tag or date filter) is a backup: the registry keeps its time.
        if (rest.types === undefined && rest.tags === undefined && rest.since === undefined) {
          await durability.check({ exportedAt: clock.now() }).catch(() => undefined);
        }
        return blob;
      },

      async compactJournal(options) {
        ensureOpen();
        const given = Object.entries(checkObject<JournalRetention>(options, 'options')).filter(([, v]) => v !== undefined);
        const o = checkRetention({ ...retention, ...Object.fromEntries(given) }, 'options');
        return compactJournal({ storage, clock, ids, actor }, o);
      },

      async durability(options) {
        ensureOpen();
        const o = checkObject<{ acknowledge?: boolean }>(options, 'options');
        checkKnownKeys(o, new Set(['acknowledge']), 'options');
        return durability.check({ acknowledge: o.acknowledge === undefined ? false : checkBoolean(o.acknowledge, 'acknowledge') });
      },

      async decayScores(options) {
        ensureOpen();
        const { now, ...rest } = checkObject<DecayOptions & { now?: number }>(options, 'options');
        const at = now === undefined ? clock.now() : checkTimestamp(now, 'now');
        // As the reference's score_all: superseded rows included, expired ones not (scoreAll skips them).
        return scoreAll(await storage.allMemories(), at, checkDecayOptions(rest));
      },

      async prune(options) {
        ensureOpen();
        const { now, dryRun, ...rest } = checkObject<DecayOptions & { now?: number; dryRun?: boolean }>(options, 'options');
        const at = now === undefined ? clock.now() : checkTimestamp(now, 'now');
        const dry = dryRun === undefined ? true : checkBoolean(dryRun, 'dryRun');
        const candidates = pruneCandidates(await storage.allMemories(), at, checkDecayOptions(rest));
        if (dry || candidates.length === 0) return { candidates, trashed: 0, dryRun: dry };
        const delta = await storage.moveToTrash(candidates.map((c) => c.memory.id), { ...jctx('trash', { by: 'decay' }), actor: 'decay' });
        index.remove(delta.removedLabels);
        sync.schedule(delta.generation);
        return { candidates, trashed: delta.removedLabels.length, dryRun: false };
      },

      async purgeExpired(options) {
        ensureOpen();
        const o = checkObject<{ now?: number; dryRun?: boolean }>(options, 'options');
        checkKnownKeys(o, new Set(['now', 'dryRun']), 'options');
        const { now, dryRun } = o;
        const at = now === undefined ? clock.now() : checkTimestamp(now, 'now');
        const dry = dryRun === undefined ? false : checkBoolean(dryRun, 'dryRun');
        const expired = expiredMemories(await storage.allMemories(), at).map((m) => m.id);
        if (dry || expired.length === 0) return { purged: 0, ids: expired, dryRun: dry };
        let purged = 0;
        for (const id of expired) {
          const removed = await storage.remove(id, { ...jctx('forget', { expired: true }), actor: 'purge' });
          if (!removed) continue;
          index.remove([removed.label]);
          sync.schedule(removed.generation);
          purged += 1;
        }
        return { purged, ids: expired, dryRun: false };
      },

      async reflect(options) {
        ensureVectors();
        const { dryRun, consolidate, summarizer, ...rest } = checkObject<ReflectOptions & { dryRun?: boolean; consolidate?: 'none' | 'soft' | 'hard'; summarizer?: Summarizer }>(options, 'options');
        const dry = dryRun === undefined ? true : checkBoolean(dryRun, 'dryRun');
        const now = clock.now();
        const memories = (await storage.allMemories()).filter((m) => m.supersededBy === '');
        const labels = await storage.labelsOf(memories.map((m) => m.id));
        const vectors = await storage.vectorsOf(labels.filter((l): l is number => l !== undefined));
        const items = memories.flatMap((memory, i) => {
          const vector = labels[i] === undefined ? undefined : vectors.get(labels[i]!);
          return vector ? [{ memory, vector }] : [];
        });
        const plan = await planReflection(items, {
          ...rest,
          now,
          dryRun: dry,
          ...(consolidate === undefined ? {} : { consolidate }),
          ...(summarizer === undefined ? {} : { summarizer }),
        });
        const clusters: { ids: string[]; summary: string; summaryId: string | null }[] = [];
        for (const item of plan) {
          const ids = item.cluster.map((m) => m.id);
          if (dry) {
            clusters.push({ ids, summary: item.summary.text, summaryId: null });
            continue;
          }
          // Every write of one cluster is the reflection's (actor 'reflection') and one call for
          // undo (one journal group): the summary, the supersedes, the links, the forgets.
          const group = jctx('reflect').group;
          const asReflection = (op: string, meta: Record<string, unknown> = {}) => ({ ...jctx(op, meta, group), actor: 'reflection' });
          const reflectionDeps: GraphDeps = { ...graphDeps, journal: asReflection };
          const { links: _links, ...fields } = item.summary;
          const { memories: [summary] } = await writeBatch([{ text: item.summary.text, input: fields }], {}, undefined, false, asReflection('remember'));
          for (const id of item.supersede) {
            await supersede(reflectionDeps, id, summary!.id, { movePin: false });
            await link(reflectionDeps, summary!.id, id, 'derived_from');
          }
          for (const id of item.forget) {
            const removed = await storage.remove(id, asReflection('forget', { reflection: summary!.id }));
            if (removed) {
              index.remove([removed.label]);
              sync.schedule(removed.generation);
            }
          }
          clusters.push({ ids, summary: item.summary.text, summaryId: summary!.id });
        }
        return { clusters, dryRun: dry };
      },

      async health(options) {
        ensureOpen();
        const o = checkObject<{ staleDays?: number }>(options, 'options');
        checkKnownKeys(o, new Set(['staleDays']), 'options');
        const pending = new Map<string, number>();
        for (const c of await storage.listConflicts('pending')) {
          for (const id of [c.newId, c.oldId]) pending.set(id, (pending.get(id) ?? 0) + 1);
        }
        const analysis = analyzeAll(await storage.allMemories(), {
          now: clock.now(),
          pendingConflictIds: pending,
          ...(o.staleDays === undefined ? {} : { staleDays: o.staleDays }),
        });
        return {
          statuses: Object.fromEntries(analysis.statuses),
          counts: analysis.counts,
          potentialConflicts: analysis.potentialConflicts,
          report: analysis.report,
        };
      },

      async maintenanceStatus() {
        ensureOpen();
        return scheduler.status();
      },

      async runMaintenance(jobs) {
        ensureOpen();
        if (jobs !== undefined && (!Array.isArray(jobs) || jobs.some((j) => !MAINTENANCE_JOBS.includes(j)))) {
          throw invalid(`jobs must be an array of ${MAINTENANCE_JOBS.map((j) => `'${j}'`).join(', ')}`, { field: 'jobs' });
        }
        return scheduler.tick(jobs ? { force: jobs } : {});
      },

      async trashList() {
        ensureOpen();
        return storage.listTrash();
      },

      async trashRestore(id) {
        ensureVectors();
        checkId(id);
        const ctx = { ...jctx('restore_trash'), actor: 'trash' };
        const result = await storage.restoreFromTrash(id, ctx);
        if (!result) return null;
        if ('needsVector' in result) {
          const [vector] = await embed([result.needsVector.text]);
          const { labels, generation } = await storage.insert([result.needsVector], [vector!], ctx);
          index.add(labels, [vector!]);
          sync.schedule(generation);
          await storage.purgeTrash({ id });
          return result.needsVector;
        }
        index.add(result.delta.added.map((a) => a.label), result.delta.added.map((a) => a.vector));
        sync.schedule(result.delta.generation);
        return result.memory;
      },

      async trashPurge(options) {
        ensureOpen();
        const o = checkObject<{ id?: string; olderThanDays?: number }>(options, 'options');
        checkKnownKeys(o, new Set(['id', 'olderThanDays']), 'options');
        if (o.id !== undefined && o.olderThanDays !== undefined) throw invalid('Give id or olderThanDays, not both', { field: 'olderThanDays' });
        if (o.id !== undefined) return storage.purgeTrash({ id: checkId(o.id) });
        if (o.olderThanDays !== undefined) {
          const days = checkInteger(o.olderThanDays, 'olderThanDays', 0);
          return storage.purgeTrash({ before: clock.now() - days * 86_400 });
        }
        return storage.purgeTrash({});
      },

      async journalTail(n) {
        ensureOpen();
        return journalTail(storage, n);
      },
      async history(id) {
        ensureOpen();
        return history(storage, id);
      },
      async undo(seq) {
        ensureVectors();
        return undo(journalDeps, seq);
      },
      async stateAt(ts) {
        ensureOpen();
        return stateAt(storage, ts);
      },

      async importArchive(source, options) {
        ensureVectors();
        return importArchive(archiveDeps, source, options);
      },

      async archiveInfo(source, options) {
        ensureOpen();
        return archiveInfo(source, options);
      },

      async link(src, dst, rel) {
        ensureOpen();
        return link(graphDeps, src, dst, rel);
      },
      async unlink(src, dst, rel) {
        ensureOpen();
        return unlink(graphDeps, src, dst, rel);
      },
      async neighbors(id, options) {
        ensureOpen();
        return graphNeighbors(graphDeps, id, options);
      },
      async subgraph(idList, options) {
        ensureOpen();
        return graphSubgraph(graphDeps, idList, options);
      },
      async findPath(from, to, options) {
        ensureOpen();
        return graphPath(graphDeps, from, to, options);
      },
      async supersede(oldId, newId) {
        ensureOpen();
        return supersede(graphDeps, oldId, newId);
      },
      async restore(id) {
        ensureOpen();
        return restore(graphDeps, id);
      },
      async findConflicts(options) {
        ensureVectors();
        return findConflicts(graphDeps, { ...checkObject<ConflictScanOptions>(options, 'options'), contradictionFn: conflictDefaults.contradictionFn });
      },
      async listPendingConflicts(options) {
        ensureOpen();
        return (await listPendingConflicts(graphDeps, options)).filter((r) => r.new !== null && r.old !== null);
      },
      async resolveConflict(id, resolution) {
        ensureOpen();
        return resolveConflict(graphDeps, id, resolution);
      },

      async remember(text, options) {
        ensureVectors();
        const input = checkMemoryInput(options);
        const policy = input.onConflict ?? conflictDefaults.policy;
        const settings = { ...conflictDefaults, policy };
        const prepared = { text: checkText(text), input };
        const [vector] = await embed([prepared.text]);
        if (policy === 'raise') {
          // Scanned before writing: a rejected memory is neither stored nor indexed.
          const candidate = await buildMemory(prepared.text, input, clock.now());
          const conflicts = await scanForWrite(graphDeps, candidate, vector!, settings);
          if (conflicts.length) {
            throw new MemoryError('CONFLICT', `The memory conflicts with ${conflicts.length} existing one(s); nothing was stored`, {
              conflicts: conflicts.map((c) => ({ kind: c.kind, reason: c.reason, similarity: c.similarity, otherId: c.b.id, otherText: c.b.text.slice(0, 120) })),
            });
          }
        }
        const { memories: [memory] } = await writeBatch([prepared], {}, [vector!]);
        // 'raise' found nothing before the write; 'ignore' does not look.
        if (policy === 'raise' || policy === 'ignore') return { memory: memory!, conflicts: [], action: 'stored' };
        const conflicts = await scanForWrite(graphDeps, memory!, vector!, settings);
        // A classifier changes existing memories only under 'supersede' (see classifier-policy.ts).
        if (policy === 'warn') return { memory: memory!, conflicts, action: 'stored' };
        const outcome = await applyWritePolicy(graphDeps, memory!, vector!, conflicts, settings);
        return { memory: outcome.memory, conflicts, action: outcome.action };
      },

      async rememberMany(items, options) {
        ensureVectors();
        if (!Array.isArray(items)) throw invalid('items must be an array', { field: 'items' });
        const opts = checkObject<RememberManyOptions>(options, 'options');
        checkKnownKeys(opts, MANY_KEYS, 'options');
        const batchSize = opts.batchSize === undefined ? 128 : checkInteger(opts.batchSize, 'batchSize', 1, 10_000);
        // Bulk ingestion scans for conflicts only when asked ('raise' is refused, as in the reference).
        const manyPolicy: ConflictPolicy = opts.onConflict === undefined ? 'ignore' : checkPolicy(opts.onConflict);
        if (manyPolicy === 'raise') throw invalid("rememberMany does not support onConflict 'raise'", { field: 'onConflict' });
        // All-or-nothing validation: one bad item rejects the call before anything is embedded.
        const prepared = items.map((item, i) => validateItem(item, `items[${i}]`));
        const total = prepared.length;
        const results: RememberResult[] = [];
        // The quota is settled for the whole call before the first write: 'reject' refuses it
        // whole, 'decay'/'lru' make room for all of it at once.
        if (storeQuota && total > 0) await makeRoom(total);
        opts.onProgress?.({ kind: 'write', done: 0, total });
        for (let start = 0; start < total; start += batchSize) {
          throwIfAborted(opts.signal, { written: results.length, total });
          const batch = prepared.slice(start, start + batchSize);
          const { memories: stored, vectors: batchVectors } = await writeBatch(
            batch,
            {
              ...(opts.signal ? { signal: opts.signal } : {}),
              onProgress: (e) => {
                if (e.kind === 'embed') opts.onProgress?.({ kind: 'embed', done: start + e.done, total });
              },
            },
            undefined,
            true,
          );
          for (const [i, memory] of stored.entries()) {
            const policy = batch[i]!.input.onConflict ?? manyPolicy;
            if (policy === 'ignore') {
              results.push({ memory, conflicts: [], action: 'stored' });
              continue;
            }
            const settings = { ...conflictDefaults, policy };
            const v = batchVectors[i]!;
            const conflicts = await scanForWrite(graphDeps, memory, v, settings);
            const outcome = policy === 'warn' ? { memory, action: 'stored' as const } : await applyWritePolicy(graphDeps, memory, v, conflicts, settings);
            results.push({ memory: outcome.memory, conflicts, action: outcome.action });
          }
          opts.onProgress?.({ kind: 'write', done: results.length, total });
        }
        return results;
      },

      async recall(query, options) {
        ensureVectors();
        const text = checkText(query, 'query');
        return runRecall(recallContext, text, checkRecallOptions(options));
      },

      async recallPack(query, options) {
        ensureVectors();
        const text = checkText(query, 'query');
        const { pack, rest } = splitPack(options);
        const { includePinned, ...recallOptions } = rest as { includePinned?: unknown };
        const packOptions = checkPackOptions(pack);
        const pinned = includePinned === undefined ? false : checkBoolean(includePinned, 'includePinned');
        const checked = checkRecallOptions({ mode: 'hybrid', ...recallOptions, k: packOptions.maxItems });
        // Recalled without touching, packed, and only then touched: a pack that fails (a bad
        // tokenCounter) records no access.
        const recalled = await runRecall(recallContext, text, { ...checked, touch: false });
        const ranked: { memory: Memory; score: number }[] = [...recalled];
        if (pinned) {
          const top = ranked[0]?.score ?? 1;
          const accept = recallFilter({ ...checked, includeSuperseded: false }, clock.now());
          const pins = (await storage.list({ limit: 10_000, includeSuperseded: false, includeExpired: false, now: clock.now() })).filter(
            (m) => m.pinned && accept(m),
          );
          const pinnedIds = new Set(pins.map((m) => m.id));
          ranked.splice(0, ranked.length, ...pins.map((memory) => ({ memory, score: top })), ...ranked.filter((h) => !pinnedIds.has(h.memory.id)));
        }
        const result = packMemories(ranked, { ...packOptions, maxItems: Math.max(packOptions.maxItems, ranked.length) });
        return checked.touch ? touchPacked(result, recalled.filter((h) => !h.expandedFrom).map((h) => h.memory.id)) : result;
      },

      async contextPack(task, options) {
        ensureVectors();
        const text = checkText(task, 'task');
        const { pack, rest } = splitPack(options);
        const { maxPhrases, ...recallOptions } = rest as { maxPhrases?: unknown };
        checkKnownKeys(recallOptions, new Set(['mode', 'minCosine', 'minTrust', 'lexicalIndex', 'touch']), 'options');
        const phrases = maxPhrases === undefined ? 3 : checkInteger(maxPhrases, 'maxPhrases', 0, 20);
        const packOptions = checkPackOptions(pack);
        const checked = checkRecallOptions({ mode: 'hybrid', ...recallOptions, k: 10 });
        const queries = fanoutQueries(text, phrases);
        const best = new Map<string, { memory: Memory; score: number }>();
        for (const q of queries) {
          for (const hit of await runRecall(recallContext, q, { ...checked, touch: false })) {
            const seen = best.get(hit.memory.id);
            if (!seen || hit.score > seen.score) best.set(hit.memory.id, { memory: hit.memory, score: hit.score });
          }
        }
        const ranked = [...best.values()].sort((a, b) => b.score - a.score);
        const result = packMemories(ranked, { ...packOptions, maxItems: Math.max(packOptions.maxItems, ranked.length) });
        // Each recalled memory is touched once, after the pack succeeded.
        return { ...(checked.touch ? await touchPacked(result, [...best.keys()]) : result), queries };
      },

      async suggest(context) {
        ensureVectors();
        const opts = checkObject<SuggestOptions>(context, 'context');
        const text = [opts.filePath, opts.errorMessage, opts.conversationSnippet].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
        if (text === '') return suggestMemories([], opts);
        // Candidates: memories that carry surfacesWhen patterns, plus the nearest ones by meaning.
        const now = clock.now();
        const live = (m: Memory): boolean => m.supersededBy === '' && (m.expiresAt <= 0 || m.expiresAt > now);
        const withPatterns = (await storage.list({ limit: 100_000, includeSuperseded: false, includeExpired: false, now })).filter((m) => m.surfacesWhen.length > 0);
        const near = await runRecall(recallContext, text, checkRecallOptions({ k: 20, mode: 'hybrid', touch: false }));
        const candidates = new Map<string, Memory>();
        for (const m of [...withPatterns, ...near.map((h) => h.memory)]) if (live(m)) candidates.set(m.id, m);
        return suggestMemories([...candidates.values()].map((memory) => ({ memory, surfacesWhen: memory.surfacesWhen })), opts);
      },

      async evaluate(cases, options) {
        ensureVectors();
        const { defaultK, defaultMode, ...recallOptions } = checkObject<RunEvaluationOptions & RecallOptions>(options, 'options');
        // Checked before the first case (and with no case at all): k and mode come from each case.
        checkRecallOptions({ ...recallOptions, touch: false });
        return runEvaluation(
          cases,
          async (query, { k, mode }) =>
            (await runRecall(recallContext, checkText(query, 'query'), checkRecallOptions({ ...recallOptions, k, mode, touch: false }))).map((h) => h.memory.id),
          { ...(defaultK === undefined ? {} : { defaultK }), ...(defaultMode === undefined ? {} : { defaultMode }) },
        );
      },

      async forget(id) {
        ensureOpen();
        checkId(id);
        const removed = await storage.remove(id, jctx('forget'));
        if (!removed) return false;
        index.remove([removed.label]);
        sync.schedule(removed.generation);
        return true;
      },

      async get(id) {
        ensureOpen();
        checkId(id);
        return (await storage.get(id)) ?? null;
      },

      async edit(id, changes) {
        ensureVectors();
        checkId(id);
        const raw = checkObject<{ text?: string } & MemoryInput>(changes, 'changes');
        const { text: rawText, ...rest } = raw;
        const input = checkMemoryInput(rest, 'changes');
        if (input.onConflict !== undefined) throw invalid('onConflict applies to remember, not edit', { field: 'onConflict' });
        const text = rawText === undefined ? undefined : checkText(rawText);
        for (let attempt = 0; attempt < 5; attempt++) {
          const current = await storage.get(id);
          if (!current) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(id)}`, { id });
          const next: Memory = { ...current, ...input };
          if (text !== undefined && text !== current.text) {
            next.text = text;
            next.contentHash = await contentHash(text);
          }
          checkValidity(next.validFrom, next.validUntil);
          if (JSON.stringify(next) === JSON.stringify(current)) return current; // a no-op writes nothing
          const vector = next.text !== current.text ? (await embed([next.text]))[0] : undefined;
          const result = await storage.replace(current, next, vector, jctx('edit'));
          if (!result) continue; // changed underneath us: re-read and retry
          if (vector && result.removedLabel !== undefined) {
            index.remove([result.removedLabel]);
            index.add([result.label], [vector]);
            sync.schedule(result.generation);
          }
          return next;
        }
        throw new MemoryError('STORAGE_FAILURE', `Memory ${id} kept changing during edit; try again`, { id });
      },

      async listRecent(options) {
        ensureOpen();
        const opts = checkObject<ListOptions>(options, 'options');
        checkKnownKeys(opts, LIST_KEYS, 'options');
        return storage.list({
          limit: opts.limit === undefined ? 20 : checkInteger(opts.limit, 'limit', 0),
          ...(opts.before === undefined ? {} : { before: checkTimestamp(opts.before, 'before') }),
          ...(opts.beforeId === undefined ? {} : { beforeId: checkId(opts.beforeId, 'beforeId') }),
          includeSuperseded: opts.includeSuperseded === undefined ? false : checkBoolean(opts.includeSuperseded, 'includeSuperseded'),
          includeExpired: opts.includeExpired === undefined ? false : checkBoolean(opts.includeExpired, 'includeExpired'),
          now: clock.now(),
        });
      },

      async count() {
        ensureOpen();
        return storage.count();
      },

      async stats() {
        ensureOpen();
        const counts = await storage.counts();
        meta = (await storage.readMeta()) ?? meta;
        const byType = Object.fromEntries(MEMORY_TYPES.map((t) => [t, counts.byType[t] ?? 0])) as Record<MemoryType, number>;
        return {
          name,
          count: counts.total,
          active: counts.total - counts.superseded,
          superseded: counts.superseded,
          byType,
          embedder: { id: embedder.id, dim: embedder.dim, ...(embedder.queryInstruction ? { queryInstruction: embedder.queryInstruction } : {}) },
          index: { kind: index.kind, size: index.size(), pending: index.pendingCount, snapshotGeneration: sync.snapshotGeneration, generation: meta.generation },
          schemaVersion: meta.schemaVersion,
          confidence: { ...calibrator.thresholds() },
          ...(deps.storageInfo ? { storage: await deps.storageInfo() } : {}),
        };
      },

      async aggregate(options) {
        ensureOpen();
        const o = checkObject<AggregateOptions>(options, 'options');
        checkKnownKeys(o, new Set(['topTags', 'createdEdges', 'includeSuperseded']), 'options');
        const topTags = o.topTags === undefined ? 12 : checkInteger(o.topTags, 'topTags', 0, 10_000);
        const includeSuperseded = o.includeSuperseded === undefined ? false : checkBoolean(o.includeSuperseded, 'includeSuperseded');
        const edges = o.createdEdges === undefined ? [] : o.createdEdges;
        if (!Array.isArray(edges) || edges.length > 1001) throw invalid('createdEdges must be an array of at most 1001 times', { field: 'createdEdges' });
        edges.forEach((edge, i) => {
          if (typeof edge !== 'number' || !Number.isFinite(edge)) throw invalid(`createdEdges[${i}] must be a finite number — got ${JSON.stringify(edge)}`, { field: 'createdEdges' });
          if (i > 0 && edge <= edges[i - 1]!) throw invalid('createdEdges must be strictly ascending', { field: 'createdEdges' });
        });
        const { tagCounts, created, counted } = await storage.aggregate({ includeSuperseded, createdEdges: [...edges] });
        const tags = [...tagCounts]
          .map(([tag, count]) => ({ tag, count }))
          .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
          .slice(0, topTags);
        return { tags, distinctTags: tagCounts.size, created, counted };
      },

      async reindex(options) {
        ensureOpen();
        const opts = checkObject<LongRunOptions>(options, 'options');
        checkKnownKeys(opts, LONG_KEYS, 'options');
        // Stage new vectors beside the old ones; the old ones stay authoritative until one
        // transaction swaps them, so an interrupted reindex loses nothing and resumes later.
        const all = await storage.ids();
        const staged = await storage.stagedIds(embedder.id);
        const todo = all.filter((m) => staged.get(m.id) !== m.contentHash);
        const total = all.length;
        let done = total - todo.length;
        opts.onProgress?.({ kind: 'reindex', done, total });
        const batchSize = 64;
        for (let start = 0; start < todo.length; start += batchSize) {
          throwIfAborted(opts.signal, { done, total });
          const batch = todo.slice(start, start + batchSize);
          const vectors = await embed(batch.map((m) => m.text), opts.signal ? { signal: opts.signal } : {});
          await storage.stageVectors(
            batch.map((m, i) => ({ id: m.id, contentHash: m.contentHash, vector: vectors[i]! })),
            embedder.id,
          );
          done += batch.length;
          opts.onProgress?.({ kind: 'reindex', done, total });
        }
        throwIfAborted(opts.signal, { done, total });
        const { generation } = await storage.commitStaged(embedder.id, embedder.dim, jctx('reindex', { embedder: embedder.id }));
        meta = (await storage.readMeta()) ?? meta;
        mismatch = false;
        await index.dropSnapshot();
        await sync.rebuild(generation, undefined, opts);
        opened = 'rebuilt';
        return { reembedded: todo.length };
      },

      async flush() {
        ensureOpen();
        await sync.flush();
      },

      async close() {
        if (closed) return;
        closed = true;
        await sync.close();
        storage.close();
      },
    };
  };
  // Maintenance runs only while this store is open and no user call is in flight.
  let inFlight = 0;
  const countChanging = new Set<keyof MemoryApi>([
    'remember',
    'rememberMany',
    'forget',
    'importArchive',
    'undo',
    'prune',
    'purgeExpired',
    'trashRestore',
    'reflect',
    'resolveConflict',
    'compactJournal',
  ]);
  function instrument(view: MemoryApi): MemoryApi {
    for (const key of Object.keys(view) as (keyof MemoryApi)[]) {
      if (key === 'close') continue;
      const fn = view[key] as (...args: unknown[]) => Promise<unknown>;
      // Arguments are read once, as plain data, before anything else (boundary.ts).
      if (key === 'runMaintenance' || key === 'maintenanceStatus') {
        (view as unknown as Record<string, unknown>)[key] = async (...args: unknown[]) => fn.apply(view, plainArguments(key, args));
        continue;
      }
      (view as unknown as Record<string, unknown>)[key] = async (...args: unknown[]) => {
        const plain = plainArguments(key, args);
        inFlight += 1;
        try {
          return await fn.apply(view, plain);
        } finally {
          inFlight -= 1;
          if (countChanging.has(key) && !closed) durability.changed();
        }
      };
    }
    return view;
  }
  const views = new Map<string, MemoryApi>();
  let closing: Promise<void> | null = null;
  let baseClose: (() => Promise<void>) | null = null;
  /** The store as seen by one actor (cached); closing any view closes the store. */
  function viewFor(actor: string): MemoryApi {
    // The worker asks on every call: a known actor is a map lookup, a new one is validated once.
    let view = views.get(actor);
    if (view) return view;
    const actorName = checkActor(actor);
    view = instrument(makeApi(actorName));
    baseClose ??= view.close.bind(view);
    view.close = () =>
      (closing ??= (async () => {
        scheduler.stop();
        leases.stop();
        await durability.settle();
        try {
          await baseClose!();
        } finally {
          deps.onClosed?.();
        }
      })());
    views.set(actorName, view);
    return view;
  }
  const api = viewFor(options.actor ?? 'lib');
  const scheduler = new MaintenanceScheduler(name, maintenanceConfig, {
    now: () => clock.now(),
    withLock: defaultLock(),
    busy: () => inFlight > 0,
    loadState: async () => ((await storage.getSetting('maintenance')) ?? {}) as Partial<Record<MaintenanceJob, number>>,
    saveState: (state) => storage.putSetting('maintenance', state),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    jobs: {
      decay: async () => {
        const r = await api.prune({ dryRun: false });
        return { trashed: r.trashed };
      },
      purge: async () => ({ purged: (await api.purgeExpired()).purged }),
      trash: async () => ({ purged: await api.trashPurge({ olderThanDays: Math.round(maintenanceConfig.trashTtlDays) }) }),
      reflect: async () => ({ clusters: (await api.reflect({ dryRun: false, consolidate: 'soft', minClusterSize: 3 })).clusters.length }),
      journal: async () => {
        const r = await api.compactJournal();
        return { removed: r.removed, ...(r.horizon ? { horizonTs: r.horizon.ts } : {}) };
      },
    },
  });
  scheduler.start();
  // The first durability check plants the canary and tells a new store from a lost one. It
  // counts the rows (a linear IndexedDB count in browsers: ~200 ms at 100k), so it runs behind
  // the open; durability() and close() queue after it.
  void durability.check().catch(() => undefined);
  Object.defineProperty(api, 'asActor', { value: viewFor, enumerable: false });
  return Object.defineProperty(api, 'opened', { get: () => opened, enumerable: false }) as MemoryApi & {
    opened: IndexOpenOutcome | 'pending-reindex';
    /** The same store with journal entries attributed to `actor` (e.g. 'ui', 'agent:planner'). */
    asActor(actor: string): MemoryApi;
  };
}
