/**
 * Opening a store: the wiring of ports, settings and services into one `StoreContext`, the
 * maintenance scheduler, and the first view (`view.ts`) through which callers reach the
 * operations. Nothing here knows about Dexie, hnswlib or a model; nothing here does an
 * operation's work either.
 */
import { LEXICAL_TERMS_VERSION } from './domain/tokenize.ts';
import type { Classifier, ConflictPolicy, ContradictionFn } from './domain/conflicts.ts';
import { checkPolicy } from './domain/conflicts.ts';
import { checkJudgeSettings, type ConflictJudge } from './domain/judge.ts';
import { checkRerankSettings, type RerankerLoader, type RerankOptions } from './domain/rerank.ts';
import { calibrationFor } from './domain/calibrations.ts';
import { indexCommitter, type StoreContext, type StoreSettings, type StoreState } from './context.ts';
import type { EvictionPolicy } from './domain/decay.ts';
import { DeferredIndex, type DeferredIndexOptions } from './services/deferred-index.ts';
import { DurabilityMonitor } from './services/durability.ts';
import { MemoryError, invalid } from './errors.ts';
import { ImportLeases, type ImportLeaseOptions } from './services/import-lease.ts';
import { IndexKeeper, type IndexOpenOutcome } from './services/index-keeper.ts';
import { RelevanceBackground } from './services/relevance-background.ts';
import { MaintenanceScheduler, checkMaintenanceConfig, defaultLock, type MaintenanceConfig, type MaintenanceJob } from './services/maintenance.ts';
import { checkRetention, type JournalRetention } from './ops/journal.ts';
import type { Clock, DurabilityRegistry, Embedder, IdSource, MemoryStorage, RandomSource, StoreMeta, VectorIndex } from './ports.ts';
import type { LongRunOptions, StoreStats } from './types.ts';
import { viewFor, type Shared, type StoreView } from './view.ts';
import type { SyncReplicaFactory } from './sync/ports.ts';
import { stopSession } from './sync/session.ts';

export type { MemoryApi, StoreMethod } from './api.ts';
export type { CallOutcome, StoreView } from './view.ts';

export interface StoreDeps {
  name: string;
  storage: MemoryStorage;
  index: VectorIndex;
  embedder: Embedder;
  clock: Clock;
  ids: IdSource;
  /** Sampling randomness; null: seeded by the store's label counter (the same store, the same sample). */
  random: RandomSource | null;
  schemaVersion: number;
  /** The registry of stores, kept outside the store's database (durability checks); none: canary only. */
  registry?: DurabilityRegistry | null;
  /** Whether the browser keeps this origin's storage (null where unknown). */
  persisted?: () => Promise<boolean | null>;
  /** Browser storage facts for `stats().storage`. */
  storageInfo?: () => Promise<NonNullable<StoreStats['storage']>>;
  /** Runs once after the store closed (the composition root releases what it opened beside it); the close waits for it. */
  onClosed?: () => void | Promise<void>;
  /** The replication engine for `sync()`; none: `sync()` refuses. */
  replicas?: SyncReplicaFactory | null;
  /** Loads a provisioned cross-encoder for `rerank: { model }`; none: only host rerankers. */
  crossEncoders?: RerankerLoader | null;
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
  /**
   * A judge the host backs with its own language model: labels the pairs the patterns leave
   * undecided (update, contradiction, duplicate, unrelated, with a reason), within `judgeBand`
   * (cosines, default [0.45, 1]), at most `judgeBudget` pairs a call (default 4), each within
   * `judgeTimeoutMs` (default 10 s). A call's own `judge` option takes its place for that call.
   */
  judge?: ConflictJudge;
  judgeBand?: [number, number];
  judgeBudget?: number;
  judgeTimeoutMs?: number;
}

export interface StoreOpenOptions extends LongRunOptions {
  conflicts?: ConflictSettings;
  /**
   * Recall's second stage for every call that does not say otherwise (domain/rerank.ts): a
   * cross-encoder under the models folder (`{ model }`, loaded at open) or the host's function
   * (`{ reranker }`), with `top`, `weight` and `timeoutMs`. Off unless given.
   */
  rerank?: RerankOptions;
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
  /** How imports prove they are alive to other owners of the store (lease length, heartbeat, lock manager); see core/services/import-lease.ts. */
  importLease?: Pick<ImportLeaseOptions, 'ttlSeconds' | 'heartbeatSeconds' | 'locks'>;
}

/** How long after opening the first durability check runs (see the end of `openStore`). */
const FIRST_DURABILITY_CHECK_MS = 3_000;

/** An open store: the view of the actor it was opened with, and how its index came up. */
export type OpenStore = StoreView & { readonly opened: IndexOpenOutcome | 'pending-reindex' };

/** The parts a context is made of; `createStoreContext` adds the services. */
export type ContextParts = Pick<StoreDeps, 'name' | 'storage' | 'index' | 'embedder' | 'clock' | 'ids' | 'random' | 'registry' | 'persisted' | 'storageInfo' | 'replicas'> & {
  actor?: string;
  /** The metadata row as read at open. */
  meta: StoreMeta;
  settings?: Partial<StoreSettings>;
  mismatch?: boolean;
  snapshotDelayMs?: number;
  /** Import ownership; default: leases over `storage` with the platform's locks. */
  leases?: StoreContext['leases'];
};

/** A context over a store's parts: the index keeper, confidence calibration and durability monitoring included. */
export function createStoreContext(parts: ContextParts): StoreContext {
  const { name, storage, index, clock, ids } = parts;
  const state: StoreState = {
    meta: parts.meta,
    mismatch: parts.mismatch ?? false,
    opened: 'pending-reindex',
    closed: false,
    calibratedAt: 0,
    inFlight: 0,
    behind: null,
    scheduler: null,
    watchers: new Set(),
  };
  const indexKeeper = new IndexKeeper(index, storage, parts.snapshotDelayMs === undefined ? {} : { snapshotDelayMs: parts.snapshotDelayMs });
  const durability = new DurabilityMonitor({
    name,
    storage,
    registry: parts.registry ?? null,
    clock,
    newId: () => ids.next(),
    persisted: parts.persisted ?? (async () => null),
  });
  const settings: StoreSettings = {
    conflicts: { policy: 'warn', contradictionFn: null, classifier: null, judge: null },
    rerank: { settings: null, load: null },
    quota: null,
    retention: checkRetention(undefined),
    ...parts.settings,
  };
  return {
    name,
    storage,
    index,
    embedder: parts.embedder,
    clock,
    ids,
    random: parts.random,
    actor: parts.actor ?? 'lib',
    settings,
    state,
    indexKeeper,
    relevance: new RelevanceBackground(calibrationFor(parts.embedder)),
    durability,
    storageInfo: parts.storageInfo ?? null,
    replicas: parts.replicas ?? null,
    leases: parts.leases ?? new ImportLeases({ name, storage, now: () => clock.now(), newId: () => ids.next() }),
    // A write after close (a call still in flight) must not start a registry refresh.
    commit: indexCommitter(index, indexKeeper, { changed: () => void (state.closed || durability.changed()) }),
  };
}

/** Opens a store over the given adapters; the composition roots (`createMemory`, the worker) call this. */
export async function openStore(deps: StoreDeps, options: StoreOpenOptions = {}): Promise<OpenStore> {
  const { storage, embedder, name, clock } = deps;
  if (!Number.isInteger(embedder.dim) || embedder.dim <= 0) {
    throw invalid('embedder.dim must be a positive whole number', { field: 'embedder' });
  }
  // Checked before anything is written.
  const retention = checkRetention(options.journalRetention);
  const maintenanceConfig = checkMaintenanceConfig(options.maintenance ?? { enabled: false });
  const conflicts = options.conflicts;
  const settings: StoreSettings = {
    conflicts: {
      policy: conflicts?.policy === undefined ? 'warn' : checkPolicy(conflicts.policy, 'conflicts.policy'),
      ...(conflicts?.threshold === undefined ? {} : { threshold: conflicts.threshold }),
      contradictionFn: conflicts?.contradictionFn ?? null,
      classifier: conflicts?.classifier ?? null,
      judge: checkJudgeSettings(conflicts ?? {}),
    },
    rerank: { settings: checkRerankSettings(options.rerank), load: deps.crossEncoders ?? null },
    quota: options.quota ?? null,
    retention,
  };

  let meta = await storage.initMeta({
    schemaVersion: deps.schemaVersion,
    embedderId: embedder.id,
    dim: embedder.dim,
    ...(embedder.queryInstruction ? { queryInstruction: embedder.queryInstruction } : {}),
    generation: 0,
    nextLabel: 0,
    createdAt: clock.now(),
    lexicalVersion: LEXICAL_TERMS_VERSION,
  });
  const mismatch = meta.embedderId !== embedder.id || meta.dim !== embedder.dim;
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
  // one another owner is still writing is left alone and watched (core/services/import-lease.ts).
  let commit: StoreContext['commit'] | null = null;
  const leases = new ImportLeases({
    name,
    storage,
    now: () => clock.now(),
    newId: () => deps.ids.next(),
    ...(options.importLease ?? {}),
    rolledBack: (delta) => commit?.(delta),
  });
  await leases.recover();
  meta = (await storage.readMeta()) ?? meta;

  const ctx = createStoreContext({
    name,
    storage,
    // Bulk writes (imports, the replay at open) reach the graph in the background; recall stays exact meanwhile.
    index: new DeferredIndex(deps.index, options.indexDrain),
    embedder,
    clock,
    ids: deps.ids,
    random: deps.random,
    meta,
    mismatch,
    settings,
    registry: deps.registry ?? null,
    ...(deps.persisted ? { persisted: deps.persisted } : {}),
    ...(deps.storageInfo ? { storageInfo: deps.storageInfo } : {}),
    ...(deps.replicas ? { replicas: deps.replicas } : {}),
    ...(options.snapshotDelayMs === undefined ? {} : { snapshotDelayMs: options.snapshotDelayMs }),
    leases,
  });
  commit = ctx.commit;
  const { state } = ctx;
  // The metadata row's memory count spares the open a linear count of the vectors (index-keeper.ts).
  if (!mismatch) state.opened = await ctx.indexKeeper.open(meta.generation, { ...options, ...(meta.lexicalDocs === undefined ? {} : { memories: meta.lexicalDocs }) });

  let closing: Promise<void> | null = null;
  const shared: Shared = {
    views: new Map(),
    close: () =>
      (closing ??= (async () => {
        await state.behind;
        scheduler.stop();
        leases.stop();
        await stopSession(state);
        await ctx.durability.settle();
        try {
          if (!state.closed) {
            state.closed = true;
            await ctx.indexKeeper.close();
            storage.close();
          }
        } finally {
          await deps.onClosed?.();
        }
      })()),
  };
  const api = viewFor(ctx, shared, options.actor ?? 'lib');
  // Maintenance runs only while this store is open and no user call is in flight.
  const scheduler = new MaintenanceScheduler(name, maintenanceConfig, {
    now: () => clock.now(),
    withLock: defaultLock(),
    busy: () => state.inFlight > 0,
    loadState: async () => ((await storage.getSetting('maintenance')) ?? {}) as Partial<Record<MaintenanceJob, number>>,
    saveState: (saved) => storage.putSetting('maintenance', saved),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    jobs: {
      decay: async () => ({ trashed: (await api.prune({ dryRun: false })).trashed }),
      purge: async () => ({ purged: (await api.purgeExpired()).purged }),
      trash: async () => ({ purged: await api.trashPurge({ olderThanDays: Math.round(maintenanceConfig.trashTtlDays) }) }),
      reflect: async () => ({ clusters: (await api.reflect({ dryRun: false, consolidate: 'soft', minClusterSize: 3 })).clusters.length }),
      journal: async () => {
        const r = await api.compactJournal();
        return { removed: r.removed, ...(r.horizon ? { horizonTs: r.horizon.ts } : {}) };
      },
    },
  });
  state.scheduler = scheduler;
  scheduler.start();
  // The first durability check plants the canary and tells a new store from a lost one. It
  // counts the rows (a linear IndexedDB count in browsers: 190–300 ms at 100k, seconds at a
  // million), and the first recalls' reads queued behind that count (their storage reads took
  // 180–300 ms at 100k instead of a few), so it runs a moment after the open; durability() runs
  // one at once, and close() runs it if it has not run yet.
  ctx.durability.changed(FIRST_DURABILITY_CHECK_MS);
  return Object.defineProperty(api, 'opened', { get: () => state.opened, enumerable: false }) as OpenStore;
}
