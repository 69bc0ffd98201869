/**
 * The public API of a memory store: `MemoryApi` and every option and result type its methods
 * take or return. The in-process store (`createMemory`), the worker client (`connectMemory`)
 * and the agent tools all implement or consume this one interface; each package entry
 * re-exports this module, so a caller can name any type a method hands back.
 */
import type { ArchiveInfo, ArchiveLimits, ArchiveSource, ExportArchiveOptions, ImportArchiveOptions, ImportResult } from './archive/store-ops.ts';
import type { ChatSource, ImportChatsOptions, ImportChatsResult } from './chats/import.ts';
import type { HealthListKey } from './domain/attention.ts';
import type { JournalCall } from './services/journal-calls.ts';
import type { UndoEffect } from './domain/undo-plan.ts';
import type { DecayOptions, ScoredMemory } from './domain/decay.ts';
import type { DurabilityReport } from './services/durability.ts';
import type { EvalCase, EvalSummary, RunEvaluationOptions } from './domain/evaluate.ts';
import type { NeighborsResult, PathResult, SubgraphResult } from './domain/graph.ts';
import type { HealthReport, HealthStatsReport, HealthStatus, PotentialConflict } from './domain/health.ts';
import type { MaintenanceConfig, MaintenanceJob, MaintenanceRun } from './services/maintenance.ts';
import type { JournalEntry, JournalHorizon, TrashEntry } from './ports.ts';
import type { PackOptions, PackResult } from './domain/recall-pack.ts';
import type { PackCutOptions } from './domain/pack-cut.ts';
import type { ReflectOptions, Summarizer } from './domain/reflect.ts';
import type { PendingConflict } from './domain/review.ts';
import type { SuggestOptions, Suggestion } from './domain/suggest.ts';
import type { SyncAuth } from './sync/ports.ts';
import type { SyncResult, SyncStatus } from './sync/session.ts';
import type {
  AggregateOptions,
  Conflict,
  ListOptions,
  LongRunOptions,
  Memory,
  MemoryInput,
  RecallHit,
  RecallOptions,
  RememberItem,
  RememberManyOptions,
  RememberResult,
  StoreAggregates,
  StoreStats,
  Trust,
} from './types.ts';

export type { ArchiveInfo, ArchiveLimits, ArchiveSource, ExportArchiveOptions, ImportArchiveOptions, ImportResult } from './archive/store-ops.ts';
export type { ChatSource, ImportChatsOptions, ImportChatsResult } from './chats/import.ts';
export type { ChatFormat, SpeakerNames } from './chats/formats.ts';
export type { HealthListKey } from './domain/attention.ts';
export type { JournalCall } from './services/journal-calls.ts';
export type { UndoEffect } from './domain/undo-plan.ts';
export type { ConflictPolicy as ImportConflictPolicy } from './archive/plan.ts';
export type { DecayOptions, ScoredMemory } from './domain/decay.ts';
export type { CanaryState, DurabilityReport } from './services/durability.ts';
export type { CaseResult, EvalCase, EvalSummary, RunEvaluationOptions } from './domain/evaluate.ts';
export type { Direction, Edge, NeighborHit, NeighborsResult, PathResult, PathStep, SubgraphResult } from './domain/graph.ts';
export type { DecayBand, HealthReport, HealthStatsReport, HealthStatus, PotentialConflict } from './domain/health.ts';
export type { MaintenanceConfig, MaintenanceJob, MaintenanceRun } from './services/maintenance.ts';
export type { JournalEntry, JournalHorizon, LossRecord, TrashEntry } from './ports.ts';
export type { CompressedGroup, PackedMemory, PackOptions, PackResult, RankedMemory } from './domain/recall-pack.ts';
export type { ReflectOptions, Summarizer } from './domain/reflect.ts';
export type { PendingConflict, ReviewResolution, ReviewStatus } from './domain/review.ts';
export type { PatternMatch, SuggestContext, SuggestOptions, Suggestion } from './domain/suggest.ts';
export type { SyncResult, SyncStatus } from './sync/session.ts';
export type { SyncAuth } from './sync/ports.ts';

/** `sync`'s options: the remote CouchDB database and how to sync with it. */
export interface SyncOptions extends LongRunOptions {
  /** The database's address, `http(s)://host[:port]/dbname` (CouchDB 3, Cloudant, PouchDB Server), without credentials. */
  url: string;
  /** `{ username, password }` (CouchDB's basic auth) or `{ token }` (a JWT, sent as a bearer token). */
  auth?: SyncAuth;
  /** Keep syncing after the first round: local writes go out and remote ones come in as they happen. */
  live?: boolean;
  /** Attempts after the first while the remote is unreachable (default 2, backing off from 0.5 s). */
  retries?: number;
  /**
   * Sync only the memories of these namespaces (tagged `ns:<name>`, as a namespaced connection
   * writes them): others are neither sent nor taken in. Default: the whole store.
   */
  namespaces?: string[];
  /**
   * The most a replicated memory is trusted here (`trusted` | `reported` | `untrusted`, default
   * `trusted`): one that arrives more trusted is stored at this level and unpinned, as
   * `importArchive({ maxTrust })` stores a stranger's rows. A team database is a stranger's input.
   */
  maxTrust?: Trust;
  /**
   * End-to-end encryption: `{ passphrase }` (8–1,024 characters; the key is derived with
   * PBKDF2-SHA-256, 600,000 iterations, and a salt kept in the database's key document) or
   * `{ key }` (an AES-GCM `CryptoKey`). Each document's content — text, tags, links, vector, times,
   * trust — is sealed on the device with AES-GCM; the server sees ids, revisions and ciphertext
   * only. The first device to sync a new, empty database with it makes the database encrypted;
   * every other device then needs the same secret (SYNC_KEY otherwise, nothing written).
   * `newPassphrase` changes it: every document is sealed again under the new key, with progress,
   * resumable by syncing again with both. A lost passphrase cannot be recovered. `remember: true`
   * keeps the opened key (a non-extractable `CryptoKey`, never the passphrase) in this store for
   * this address, and a later `sync` without `encryption` uses it; `remember: false` forgets it.
   */
  encryption?: { passphrase: string; newPassphrase?: string; remember?: boolean } | { key: CryptoKey; remember?: boolean };
}

/** How much of the journal compaction keeps: entries younger than `keepDays`, and always the newest `keepLast`. */
export interface JournalRetention {
  keepDays?: number;
  keepLast?: number;
}
/** What `compactJournal` did. */
export interface CompactResult {
  /** Entries dropped by this compaction. */
  removed: number;
  /** The journal's horizon afterwards (null: nothing was ever compacted). */
  horizon: JournalHorizon | null;
}

/** What `undo` did (or why it refused). */
export interface UndoResult {
  ok: boolean;
  /** The undone call's op (an undo: this is a redo) and the entry asked for. */
  op: string;
  seq: number;
  /** The memories the call touched. */
  ids: string[];
  /** What the undo does (a dry run) or did: memories removed, put back, changed back. */
  effect: UndoEffect;
  /** Whether this was a dry run (nothing written). */
  dryRun: boolean;
  /** Why nothing was undone, when `ok` is false. */
  reason?: string;
  /** The memory that changed after the call, when `ok` is false: its id and its text (now, or as the call left it). */
  changed?: { id: string; text: string | null };
}

export interface UndoOptions {
  /** Check and count only: nothing is written. */
  dryRun?: boolean;
}

/** `findConflicts`: one memory's conflicts, or the whole store's (above the cosine gate `threshold`). */
export interface ConflictScanOptions {
  memoryId?: string;
  threshold?: number;
}

/** `recallPack`'s options: the pack's budget and layout, and the recall's filters (hybrid by default). */
export type RecallPackOptions = PackOptions &
  PackCutOptions &
  Omit<RecallOptions, 'k' | 'explain'> & {
    /** Prepend every live pinned memory (scored with the top score). */
    includePinned?: boolean;
  };

export type ContextPackOptions = PackOptions &
  PackCutOptions & {
  maxPhrases?: number;
  mode?: 'semantic' | 'hybrid';
  minCosine?: number;
  minTrust?: RecallOptions['minTrust'];
  lexicalIndex?: RecallOptions['lexicalIndex'];
  touch?: boolean;
};

/** `contextPack`'s result: the pack, and the queries the task fanned out into. */
export type ContextPackResult = PackResult & { queries: string[] };

/** `evaluate`'s options: defaults for the cases, and the recall filters every case runs with. */
export type EvaluateOptions = RunEvaluationOptions & Omit<RecallOptions, 'k' | 'mode' | 'touch' | 'signal'>;

export interface NeighborsQuery {
  rel?: string;
  direction?: 'out' | 'in' | 'both';
  depth?: number;
}

/**
 * A pending conflict with both of its sides. `held`: the new side is not a memory yet (a sync
 * conflict's losing edit, kept in the queue): `supersede` or `keep_both` stores it, `drop_new`
 * lets it go.
 */
export type PendingConflictView = Omit<PendingConflict, 'proposed'> & { held?: true; new: Memory | null; old: Memory | null };

export type ConflictResolution = 'supersede' | 'keep_both' | 'drop_new';

export type PruneOptions = DecayOptions & { dryRun?: boolean; now?: number };
export interface PruneResult {
  candidates: ScoredMemory[];
  trashed: number;
  dryRun: boolean;
}

export interface PurgeExpiredOptions {
  dryRun?: boolean;
  now?: number;
}
export interface PurgeExpiredResult {
  purged: number;
  ids: string[];
  dryRun: boolean;
}

export type ReflectRunOptions = ReflectOptions & { dryRun?: boolean; consolidate?: 'none' | 'soft' | 'hard'; summarizer?: Summarizer };
export interface ReflectResult {
  clusters: { ids: string[]; summary: string; summaryId: string | null }[];
  dryRun: boolean;
}

export interface HealthResult {
  statuses: Record<string, HealthReport>;
  counts: Record<HealthStatus, number>;
  /**
   * Highest Jaccard first. The scan stops at the 10,000th pair it finds (a store of many
   * near-identical memories holds more pairs than any report could): a capped list holds the pairs
   * found first, not the 10,000 highest.
   */
  potentialConflicts: PotentialConflict[];
  /** More pairs qualified than `potentialConflicts` lists. */
  potentialConflictsCapped: boolean;
  report: HealthStatsReport;
  /** What needs attention (review, possible conflicts, fading, expired, broken links) and what is worth knowing, as id lists (newest first). */
  lists: Record<HealthListKey, string[]>;
  /** The lists that need attention in this store (`fading` only while decay pruning is on). */
  attention: HealthListKey[];
  /** Distinct memories in the attention lists. */
  needsAttention: number;
}

export interface MaintenanceStatus {
  enabled: boolean;
  running: boolean;
  lastRun: Partial<Record<MaintenanceJob, number>>;
  history: MaintenanceRun[];
  config: Required<MaintenanceConfig>;
}

export interface TrashPurgeOptions {
  id?: string;
  olderThanDays?: number;
}

export type EditChanges = { text?: string } & MemoryInput;

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
  contextPack(task: string, options?: ContextPackOptions): Promise<ContextPackResult>;
  /** Memories worth surfacing for a context (file, error, conversation) without a query. */
  suggest(context: SuggestOptions): Promise<Suggestion[]>;
  /** recall@k, precision@k, MRR, MAP and nDCG@k over a gold set, without touching anything. */
  evaluate(cases: EvalCase[], options?: EvaluateOptions): Promise<EvalSummary>;
  /** The store as an `.ahkai` archive (AI-Houkai's format), in created-at order. */
  exportArchive(options?: ExportArchiveOptions): Promise<Blob>;
  /** Imports an `.ahkai` archive: validated whole first, then written atomically (rolled back on failure or cancel). */
  importArchive(source: ArchiveSource, options?: ImportArchiveOptions): Promise<ImportResult>;
  /** What an archive holds (header, rows, vectors, warnings), without touching the store; bounded like an import. */
  archiveInfo(source: ArchiveSource, options?: ArchiveLimits): Promise<ArchiveInfo>;
  /**
   * Imports a ChatGPT or Claude data export (`conversations.json`, or ChatGPT's zip) or a JSONL of
   * `{ speaker, time, text, conversation }`: each message an episodic memory with its speaker, time
   * and conversation; checked whole first, written like an archive import (atomic, undoable,
   * `dryRun` for a preview), a message already imported skipped. @throws INVALID_CHATS naming the node or line
   */
  importChats(source: ChatSource, options?: ImportChatsOptions): Promise<ImportChatsResult>;
  /** Adds the typed link `src → dst` (default rel 'related'); idempotent. @throws NOT_FOUND, INVALID_ARGUMENT (self-link) */
  link(src: string, dst: string, rel?: string): Promise<{ added: boolean }>;
  /** Removes `src → dst` links (one rel or all); returns how many. */
  unlink(src: string, dst: string, rel?: string): Promise<number>;
  /** Breadth-first neighbours with the relation and hop of each, plus dangling links. */
  neighbors(id: string, options?: NeighborsQuery): Promise<NeighborsResult>;
  /** The memories around `ids` (outgoing links, `depth` hops) and the edges between them. */
  subgraph(ids: string[], options?: { depth?: number }): Promise<SubgraphResult>;
  /** Shortest undirected path between two memories. */
  findPath(from: string, to: string, options?: { maxDepth?: number }): Promise<PathResult>;
  /** Marks `oldId` superseded by `newId` (kept for audit and restore); the pin follows. */
  supersede(oldId: string, newId: string): Promise<{ ok: boolean; noop: boolean }>;
  /** Undoes a supersede. */
  restore(id: string): Promise<{ restored: boolean; wasSupersededBy: string }>;
  /** Duplicates and contradictions among vector neighbours, for one memory or the whole store. */
  findConflicts(options?: ConflictScanOptions): Promise<Conflict[]>;
  /** Conflicts waiting for the user, with both memories. */
  listPendingConflicts(options?: { limit?: number }): Promise<PendingConflictView[]>;
  /** The user's decision: 'supersede' the old memory, 'keep_both' (records `contradicts`), or 'drop_new'. */
  resolveConflict(id: string, resolution: ConflictResolution): Promise<PendingConflict>;
  /** Every live memory with its decay score, highest first. */
  decayScores(options?: DecayOptions & { now?: number }): Promise<ScoredMemory[]>;
  /**
   * Moves memories whose decay score fell below `minScore` to the trash (protected types and
   * pinned memories never). A dry run (the default) only lists them.
   */
  prune(options?: PruneOptions): Promise<PruneResult>;
  /** Removes memories whose `expiresAt` has passed. */
  purgeExpired(options?: PurgeExpiredOptions): Promise<PurgeExpiredResult>;
  /**
   * Consolidates clusters of similar episodic memories into semantic summaries. 'soft' supersedes
   * the sources by the summary (and links `derived_from`), 'hard' forgets them, 'none' keeps them.
   */
  reflect(options?: ReflectRunOptions): Promise<ReflectResult>;
  /** One status per memory (at_risk, stale, orphan, healthy) with reasons, soft potential-conflict flags, and the report. */
  health(options?: { staleDays?: number }): Promise<HealthResult>;
  /** The maintenance scheduler's state and run history. */
  maintenanceStatus(): Promise<MaintenanceStatus>;
  /** Runs maintenance jobs now (default: the due ones). */
  runMaintenance(jobs?: MaintenanceJob[]): Promise<MaintenanceRun[]>;
  trashList(): Promise<TrashEntry[]>;
  /** Brings the newest trashed copy of `id` back (with its vector); null when absent or live again. */
  trashRestore(id: string): Promise<Memory | null>;
  /** Irreversible: one id, entries older than `olderThanDays`, or everything. */
  trashPurge(options?: TrashPurgeOptions): Promise<number>;
  /** The newest journal entries, newest first. */
  journalTail(n?: number): Promise<JournalEntry[]>;
  /** Every journal entry about one memory, oldest first. */
  history(id: string): Promise<JournalEntry[]>;
  /** The newest `limit` calls (default 30), one row per call (an import is one row), newest first, each saying whether an undo reverted it. */
  journalCalls(limit?: number): Promise<JournalCall[]>;
  /**
   * Undoes the call behind journal entry `seq` (default the newest not undone), unless a memory
   * changed since; undoing an undo redoes the call. `dryRun` checks and counts, writing nothing.
   */
  undo(seq?: number, options?: UndoOptions): Promise<UndoResult>;
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
  edit(id: string, changes: EditChanges): Promise<Memory>;
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
  /**
   * Replicates the store with a CouchDB database (CouchDB's protocol through PouchDB): a round
   * both ways, and with `live` it keeps going until `stopSync()`. Concurrent edits converge on one
   * winner everywhere; a losing text goes to the review queue. Nothing is sent unless called.
   * @throws MemoryError SYNC_AUTH, SYNC_UNREACHABLE, NOT_FOUND (no such database), INVALID_ARGUMENT
   */
  sync(options: SyncOptions): Promise<SyncResult>;
  /** How sync goes: state, remote, last round, pending changes, totals, conflicts waiting, last error. */
  syncStatus(): Promise<SyncStatus>;
  /** Turns sync off. */
  stopSync(): Promise<{ stopped: boolean }>;
  close(): Promise<void>;
}

/** The methods a store serves on a call (every one but `close`, which belongs to a connection). */
export type StoreMethod = Exclude<keyof MemoryApi, 'close'>;
