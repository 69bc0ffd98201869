/**
 * One `StoreContext` per open store: the ports (storage, vector index, embedder, clock, ids,
 * randomness), the store's settings and shared state, and the services every operation may
 * need (the index keeper, confidence calibration, durability, maintenance). Operations in `ops/` are
 * plain functions of a context; the actor travels in it, so the store as seen by another actor
 * is the same context with another `actor` (`withActor`), not a rebuilt API.
 *
 * Every write that changes the vector set goes through `commit(delta)`: the in-memory index is
 * updated, the snapshot scheduled, and the durability monitor told the row count may have moved.
 */
import type { Classifier, ConflictPolicy, ContradictionFn } from './domain/conflicts.ts';
import type { JudgeSettings } from './domain/judge.ts';
import type { RerankerLoader, RerankSettings } from './domain/rerank.ts';
import { DeferredIndex } from './services/deferred-index.ts';
import type { DurabilityMonitor } from './services/durability.ts';
import { MemoryError, throwIfAborted } from './errors.ts';
import type { IndexOpenOutcome, IndexKeeper } from './services/index-keeper.ts';
import type { ImportLeases } from './services/import-lease.ts';
import type { MaintenanceScheduler } from './services/maintenance.ts';
import type { RelevanceBackground } from './services/relevance-background.ts';
import type { EvictionPolicy } from './domain/decay.ts';
import type {
  Clock,
  EmbedOptions,
  Embedder,
  GraphStore,
  IdSource,
  ImportLog,
  IndexDelta,
  JournalContext,
  JournalStore,
  LexicalPostings,
  MemoryRows,
  MemoryStorage,
  MetaStore,
  RandomSource,
  SettingsStore,
  StoreMeta,
  TrashStore,
  VectorIndex,
  VectorLog,
} from './ports.ts';
import type { StoreStats } from './types.ts';
import type { SyncReplicaFactory } from './sync/ports.ts';

/** The conflict handling `remember` applies unless a call says otherwise. */
export interface ConflictDefaults {
  policy: ConflictPolicy;
  threshold?: number;
  contradictionFn: ContradictionFn | null;
  classifier: Classifier | null;
  /** The host's judge for pairs the patterns leave undecided (domain/judge.ts); null: none. */
  judge: JudgeSettings | null;
}

/** The rerank stage recall applies unless a call says otherwise (domain/rerank.ts). */
export interface RerankDefaults {
  /** The store's own; null: recall is one stage unless a call asks. */
  settings: RerankSettings | null;
  /** Loads a provisioned cross-encoder by name (the composition root's, which keeps what it loaded while the store is open); null: only host rerankers. */
  load: RerankerLoader | null;
}

/** What the store was opened with (fixed while it is open). */
export interface StoreSettings {
  conflicts: ConflictDefaults;
  rerank: RerankDefaults;
  /** A cap on the number of memories, enforced on write; null: none. */
  quota: { maxMemories: number; policy: EvictionPolicy } | null;
  /** What journal compaction keeps by default. */
  retention: { keepDays: number; keepLast: number };
  /** Rows an archive import's first pass may keep for its writes (estimated bytes); undefined: the default. */
  keepRowsBytes?: number;
}

/** What changes while the store is open, shared by every actor's view. */
export interface StoreState {
  /** The metadata row as last read. */
  meta: StoreMeta;
  /** The stored vectors were made by another embedder: vector operations wait for `reindex()`. */
  mismatch: boolean;
  opened: IndexOpenOutcome | 'pending-reindex';
  closed: boolean;
  /** Index size at the last background calibration (0: never). */
  calibratedAt: number;
  /** User calls in flight (maintenance waits for none). */
  inFlight: number;
  /**
   * Writes a call left running after it answered (a recall's touch, `writeBehind`): every later
   * call, and the close, waits for them first, so none sees the store without them.
   */
  behind: Promise<void> | null;
  scheduler: MaintenanceScheduler | null;
  /**
   * Who hears of changes the store makes on its own, outside any call: live sync rounds, the one
   * such change (reported as the method `sync`; view.ts's listeners take any method's name).
   */
  watchers: Set<(op: 'sync', ids: string[]) => void>;
}

export interface StoreContext {
  readonly name: string;
  readonly storage: MemoryStorage;
  /** The vector index (a `DeferredIndex` over the adapter's in an open store). */
  readonly index: VectorIndex;
  readonly embedder: Embedder;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly random: RandomSource | null;
  /** Journal attribution of this context's writes: 'lib', 'ui', 'agent:<name>'… */
  readonly actor: string;
  readonly settings: StoreSettings;
  readonly state: StoreState;
  readonly indexKeeper: IndexKeeper;
  /** The relevance verdict's background: the embedder's reference calibration and this store's own sample. */
  readonly relevance: RelevanceBackground;
  readonly durability: DurabilityMonitor;
  /** Browser storage facts for `stats().storage`, when the composition root knows them. */
  readonly storageInfo: (() => Promise<NonNullable<StoreStats['storage']>>) | null;
  /** Ids the current call changed; set per call by the store's views (see `reportChanged`). */
  readonly changes?: Set<string>;
  /** The journal group of the writes made through this context, when they must undo together (one reflected cluster). */
  readonly group?: string;
  /** The replication engine `sync()` opens a replica with (CouchDB's protocol through PouchDB); null: sync is off for this store. */
  readonly replicas: SyncReplicaFactory | null;
  /** Import ownership (lease, lock, heartbeat): see import-lease.ts. */
  readonly leases: Pick<ImportLeases, 'begin' | 'recover'>;
  /**
   * Applies a storage write's effect on the vector set to the index and schedules the snapshot.
   * `deferred`: the added vectors join a `DeferredIndex`'s pending set (searchable now, in the
   * graph later), as imports do.
   */
  commit(delta: IndexDelta, options?: { deferred?: boolean }): void;
}

/** The storage roles by name (core/storage implements each once). */
export interface StorageRoles {
  meta: MetaStore;
  rows: MemoryRows;
  vectors: VectorLog;
  lexical: LexicalPostings;
  graph: GraphStore;
  journal: JournalStore;
  trash: TrashStore;
  imports: ImportLog;
  settings: SettingsStore;
}
export type StorageRole = keyof StorageRoles;
type AllOf<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * A context whose storage offers only the roles `R`: what an operation takes, so its signature
 * says which parts of storage it reads and writes (`Using<'rows' | 'journal'>`; `Using` alone:
 * none). A whole `StoreContext` is one of every `Using<…>`.
 */
export type Using<R extends StorageRole = never> = Omit<StoreContext, 'storage'> & { readonly storage: [R] extends [never] ? object : AllOf<StorageRoles[R]> };

/**
 * Lets `write` finish after the call that started it has answered. A failed one is dropped: only
 * writes that change nothing a caller asked for go this way (a touch, which lands whole or not at all).
 */
export function writeBehind(state: StoreState, write: Promise<unknown>): void {
  const settled: Promise<void> = Promise.allSettled([state.behind, write]).then(() => {
    if (state.behind === settled) state.behind = null;
  });
  state.behind = settled;
}

/** Applies an `IndexDelta` to an index: removals first, then additions (optionally deferred). */
export function applyIndexDelta(index: VectorIndex, delta: IndexDelta, deferred = false): void {
  if (delta.removedLabels.length) index.remove(delta.removedLabels);
  if (!delta.added.length) return;
  const labels = delta.added.map((a) => a.label);
  const vectors = delta.added.map((a) => a.vector);
  if (deferred && index instanceof DeferredIndex) index.addDeferred(labels, vectors);
  else index.add(labels, vectors);
}

/** The commit seam of a store: index, snapshot schedule, and a durability refresh when rows came or went. */
export function indexCommitter(index: VectorIndex, keeper: Pick<IndexKeeper, 'schedule'>, durability: Pick<DurabilityMonitor, 'changed'> | null): StoreContext['commit'] {
  return (delta, options = {}) => {
    applyIndexDelta(index, delta, options.deferred ?? false);
    keeper.schedule(delta.generation);
    if (durability && (delta.added.length > 0 || delta.removedLabels.length > 0)) durability.changed();
  };
}

/** The same store as seen by `actor` (journal attribution); everything else is shared. */
export function withActor<C extends Pick<StoreContext, 'actor'>>(ctx: C, actor: string): C {
  return { ...ctx, actor };
}

/** A context for one call: the ids it changes are collected in `changes`. */
export function forCall<C extends object>(ctx: C): C & { changes: Set<string> } {
  return { ...ctx, changes: new Set<string>() };
}

/** Records ids the current call changed (the worker announces them in its change event). */
export function reportChanged(ctx: Pick<StoreContext, 'changes'>, ids: Iterable<string>): void {
  if (ctx.changes) for (const id of ids) ctx.changes.add(id);
}

/**
 * A journal context for one write: its time, op, actor and a fresh group (the entries of one
 * call share it, so undo reverts them together); `group` joins an existing one (an import's batches).
 */
export function journalFor(ctx: Pick<StoreContext, 'clock' | 'actor' | 'ids' | 'group'>, op: string, meta: Record<string, unknown> = {}, group?: string): JournalContext {
  // A fresh id is drawn either way, so a store's sequence of ids does not depend on grouping.
  const journal = { ts: ctx.clock.now(), op, actor: ctx.actor, group: ctx.ids.next(), meta };
  const joined = group ?? ctx.group;
  return joined === undefined ? journal : { ...journal, group: joined };
}

/** @throws MemoryError CLOSED after `close()`. */
export function requireOpen(ctx: Pick<StoreContext, 'state' | 'name'>): void {
  if (ctx.state.closed) throw new MemoryError('CLOSED', `Store "${ctx.name}" is closed`);
}

/** @throws MemoryError CLOSED, or EMBEDDER_MISMATCH while the store waits for `reindex()`. */
export function requireVectors(ctx: Pick<StoreContext, 'state' | 'name' | 'embedder'>): void {
  requireOpen(ctx);
  if (ctx.state.mismatch) {
    throw new MemoryError('EMBEDDER_MISMATCH', `Store "${ctx.name}" must be re-embedded with ${ctx.embedder.id}: call reindex()`, {
      stored: { id: ctx.state.meta.embedderId, dim: ctx.state.meta.dim },
    });
  }
}

/**
 * Embeds through the store's embedder, checked: one vector per text, each of the store's
 * dimension, as Float32Arrays. Model failures become MODEL_UNAVAILABLE, a cancel ABORTED.
 */
export async function embed(ctx: Pick<StoreContext, 'embedder'>, texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
  const { embedder } = ctx;
  throwIfAborted(options.signal);
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed(texts, options);
  } catch (error) {
    if (error instanceof MemoryError) throw error;
    if (options.signal?.aborted) throw new MemoryError('ABORTED', 'The operation was cancelled');
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

/** Embeds one text (a query with `input: 'query'`, an edited memory). */
export async function embedOne(ctx: Pick<StoreContext, 'embedder'>, text: string, signal?: AbortSignal, input?: EmbedOptions['input']): Promise<Float32Array> {
  return (await embed(ctx, [text], { ...(signal ? { signal } : {}), ...(input ? { input } : {}) }))[0]!;
}

/** The vector stored for a memory id, if any. */
export async function vectorOf(ctx: Pick<Using<'rows' | 'vectors'>, 'storage'>, id: string): Promise<Float32Array | undefined> {
  const [label] = await ctx.storage.labelsOf([id]);
  return label === undefined ? undefined : (await ctx.storage.vectorsOf([label])).get(label);
}
