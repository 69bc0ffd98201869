/**
 * Ports: the narrow interfaces the core depends on. Adapters (Dexie, hnswlib-wasm, the
 * embedders) implement them; the core never imports a vendor.
 */
import type { LinksPatch } from './domain/journal-patch.ts';
import type { PendingConflict } from './domain/review.ts';
import type { RelevanceCalibration } from './domain/relevance.ts';
import type { IndexKind, Memory, ProgressEvent } from './types.ts';

export interface EmbedOptions {
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /**
   * What the texts are: 'passage' (stored memories; the default) or 'query' (a recall). Symmetric
   * models ignore it; query/passage models (bge-small) prefix queries with their instruction.
   */
  input?: 'query' | 'passage';
}

/**
 * A text embedder. `id` names the model (recorded with the store's vectors); `dim` is the vector
 * length. `embed` returns one vector per input text, in order.
 */
export interface Embedder {
  readonly id: string;
  readonly dim: number;
  /** Set by query/passage models: the instruction `embed(texts, { input: 'query' })` prepends. */
  readonly queryInstruction?: string;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** How this model's cosines map to relevance (see core/domain/relevance.ts); known models have one shipped in core/domain/calibrations.ts. */
  readonly calibration?: RelevanceCalibration;
  /** Release model resources. Optional. */
  dispose?(): Promise<void> | void;
}

export interface Clock {
  /** Unix seconds with fractions. */
  now(): number;
}

export interface IdSource {
  /** A new unique id (UUID v4 by default). */
  next(): string;
}

/** Uniform random numbers in [0, 1): sampling (the confidence calibration's background pairs). */
export interface RandomSource {
  next(): number;
}

export interface IndexHit {
  label: number;
  /** Cosine similarity. */
  similarity: number;
}

/**
 * An approximate or exact nearest-neighbour index over integer labels. It is a cache: the
 * vectors table in storage is the truth, and the index can always be rebuilt from it.
 */
export interface VectorIndex {
  readonly kind: IndexKind;
  readonly dim: number;
  /**
   * True when `similarity` is an approximation (a quantised index): callers that need the exact
   * cosine order of the best hits rescore them from the stored vectors (see core/services/rescore.ts).
   */
  readonly approximate?: boolean;
  /** Number of live (not deleted) labels. */
  size(): number;
  has(label: number): boolean;
  add(labels: number[], vectors: Float32Array[]): void;
  remove(labels: number[]): void;
  /** Best `k` by cosine similarity, best first; `filter` limits the labels considered. */
  search(query: Float32Array, k: number, filter?: (label: number) => boolean): IndexHit[];
  /** Drop everything. */
  clear(): void;
  /**
   * Persist a snapshot tagged with `generation`. Exact indexes need none (they are rebuilt
   * from storage) and return false.
   */
  saveSnapshot(generation: number): Promise<boolean>;
  /**
   * Load the persisted snapshot. Returns the generation it was saved at, or null when there is
   * none or it fails its integrity check (the caller then rebuilds). `onProgress`: how much of
   * it has been read (an index read in parts reports each part; one read whole may say nothing).
   */
  loadSnapshot(options?: { onProgress?: (done: number, total: number) => void }): Promise<number | null>;
  /** Forget the persisted snapshot. */
  dropSnapshot(): Promise<void>;
  dispose(): void;
}

/** One stored block of a chunked index snapshot: opaque bytes under an integer key. */
export interface IndexBlock {
  key: number;
  bytes: Uint8Array;
}

/**
 * Where a chunked index keeps its snapshot: a manifest plus fixed-size blocks, in the store's
 * own database (one table), so a snapshot is rewritten block by block instead of as one file.
 * `write` is atomic: the manifest and every block it names land together or not at all.
 */
export interface IndexBlockStore {
  /** The manifest of the last write, or undefined. */
  readManifest(): Promise<unknown>;
  /**
   * Visits every stored block in key order, a batch at a time (memory stays bounded). With
   * `transient`, the store may hand over views into its own buffers, valid only until `visit`
   * returns: `visit` is then synchronous and copies whatever it keeps (loading the index, where a
   * copy of every block made only to be copied again would cost an open its time).
   */
  readBlocks(visit: (blocks: IndexBlock[]) => void | Promise<void>, options?: { batchSize?: number; transient?: boolean }): Promise<void>;
  /**
   * In one transaction: unless `replaceAll`, checks that the stored manifest's `tag` still equals
   * `expectTag` (another writer wrote meanwhile otherwise, and nothing is written: returns false);
   * deletes every block when `replaceAll` (a whole snapshot replaces whatever is there, a damaged
   * or foreign one included), writes `blocks` one at a time as the iterator yields them, and the
   * manifest last. Returns true once committed.
   */
  write(options: { manifest: { tag: string } & Record<string, unknown>; expectTag: string | null; replaceAll: boolean; blocks: Iterable<IndexBlock> }): Promise<boolean>;
  /** Deletes the manifest and every block. */
  clear(): Promise<void>;
  /** Total bytes of the stored blocks (diagnostics and benchmarks). */
  byteSize?(): Promise<number>;
  close(): void;
}

/** Creates a fresh index for a store; `name` keys its snapshot. */
export type VectorIndexFactory = (options: { name: string; dim: number; capacity: number }) => Promise<VectorIndex>;

export interface TrashEntry {
  id: string;
  /** Unix seconds. */
  deletedAt: number;
  actor: string;
  memory: Memory;
}

/** Who changed what, written with each mutation in the same transaction. */
export interface JournalEntry {
  /** Assigned by storage, increasing. */
  seq?: number;
  /** Unix seconds. */
  ts: number;
  op: string;
  /** 'lib', 'ui', 'agent:<name>', 'import', 'decay', 'reflection', … */
  actor: string;
  /** The memory id ('*' for store-wide operations). */
  id: string;
  /** The memory before the change (null: it did not exist, or the entry is a `links` patch). */
  before: Memory | null;
  /** The memory after the change (null: it was removed, or the entry is a `links` patch). */
  after: Memory | null;
  /**
   * A change of links only, written as the links that changed instead of the memory whole
   * (journal-patch.ts): `before` and `after` are null then. Read an entry's effect with
   * `entryEffect`, never by `after === null` alone.
   */
  links?: LinksPatch;
  /**
   * A creation as stored, without its memory (`after` null); `journalRead` fills `after` in and
   * drops the mark, and keeps it only where the memory cannot be recovered. Read an entry's
   * effect with `entryEffect`.
   */
  created?: true;
  meta: Record<string, unknown>;
  /** Entries written by one call share a group. */
  group: string;
}

/**
 * Where the journal starts after compaction. Every entry written after `ts` is still there, so
 * the state at any time from `ts` on can be rebuilt; entries below `seq` may be gone.
 */
export interface JournalHorizon {
  ts: number;
  seq: number;
  /** When the compaction that set it ran (Unix seconds). */
  compactedAt: number;
}

export interface DurabilitySnapshot {
  /** The canary in the store's database, or null when it is not there (a new or a wiped database). */
  canary: string | null;
  /** Memories in the database. */
  count: number;
  /** How many memories the store's own books say it holds (kept by every write in its transaction). */
  booked: number;
  /** The newest journal seq, 0 for an empty journal. */
  newestSeq: number;
  /** An import is half written (its counts may still be rolled back). */
  importPending: boolean;
}

/** What the registry of stores (kept outside each store's own database) remembers of one store. */
export interface StoreRecord {
  name: string;
  /** The canary planted in the store's database. */
  canary: string;
  firstSeen: number;
  /** When the store was last seen intact (Unix seconds), with its memory count and newest journal seq then. */
  lastSeen: number;
  lastCount: number;
  lastSeq: number;
  /** When the store was last exported whole (Unix seconds), or null. */
  lastExportAt: number | null;
  /** A suspected loss, kept until acknowledged. */
  loss: LossRecord | null;
  /** Missing rows already acknowledged (booked minus found then), so they are not reported again. */
  acceptedGap: number;
}

export interface LossRecord {
  detectedAt: number;
  /**
   * 'canary': the database was deleted or replaced; 'rows': memories vanished behind the store's
   * back (fewer rows than its metadata books); 'rollback': the database went back to an older
   * state (its journal ends before the last one seen).
   */
  reason: 'canary' | 'rows' | 'rollback';
  /** What the registry knew before the loss. */
  lastSeen: number;
  lastCount: number;
  /** How many memories there should have been, and how many were found. */
  expected: number;
  found: number;
}

/**
 * The registry of stores: a small database of its own (not a store's), so that when a store's
 * database is deleted or cleared, a record that it existed survives to say so. Whole-origin
 * eviction clears it too; see docs/errors.md, "Lifecycle and durability".
 */
export interface DurabilityRegistry {
  get(name: string): Promise<StoreRecord | undefined>;
  /** Every record (the store list where the browser cannot list its databases). */
  list(): Promise<StoreRecord[]>;
  /** Read-modify-write of one record in one transaction; `next` returns the record to store, or null to delete it. */
  update(name: string, next: (previous: StoreRecord | undefined) => StoreRecord | null): Promise<StoreRecord | null>;
  close(): void;
}

/** What a write passes so storage can journal it inside its transaction. */
/** The lease of an import in progress (core/services/import-lease.ts): who owns it, and how to tell they still do. */
export interface ImportLease {
  importId: string;
  /** A random id of the store instance running it. */
  owner: string;
  /** Unix seconds. */
  startedAt: number;
  /** Renewed while the owner lives (Unix seconds); the lease is abandoned `ttl` seconds after it. */
  heartbeatAt: number;
  ttl: number;
  /** The Web Lock the owner holds for the import's life, where locks exist (authoritative then). */
  lock: string | null;
}

export interface JournalContext {
  ts: number;
  op: string;
  actor: string;
  group: string;
  meta?: Record<string, unknown>;
}

/** A graph write: memories whose links/supersede/pin state change, memories to forget, review records. */
export interface GraphChanges {
  put?: Memory[];
  forget?: string[];
  conflicts?: PendingConflict[];
  /** Per memory id: whether its pin moved to its superseder (read back by restore). */
  pinMoved?: Record<string, boolean>;
}

/** How a write changed the vector set: what the in-memory index must add and remove. */
export interface IndexDelta {
  added: { label: number; vector: Float32Array }[];
  removedLabels: number[];
  generation: number;
}

/** The store's metadata row: what made its vectors, and the index generation counter. */
export interface StoreMeta {
  schemaVersion: number;
  embedderId: string;
  dim: number;
  /** The query instruction of a query/passage model, recorded when the store is made with one. */
  queryInstruction?: string;
  /** Bumped by every write that adds or removes a vector; snapshots are tagged with it. */
  generation: number;
  /** Next free vector label. */
  nextLabel: number;
  createdAt: number;
  /** Documents and total terms in the lexical index (BM25 corpus statistics). */
  lexicalDocs?: number;
  lexicalLength?: number;
  /** The definition of the lexical terms the stored rows follow (`LEXICAL_TERMS_VERSION`; absent: 1). */
  lexicalVersion?: number;
}

export interface LexicalCandidateOptions {
  /** Labels the caller holds already (recall's cosine pool): not candidates, not counted in the limit. */
  exclude?: ReadonlySet<number>;
  /** Memories the caller would drop (recall's filters): not counted in the limit. */
  accept?: (memory: Memory) => boolean;
}

/** A memory found through the lexical index, with its stored term statistics. */
export interface LexicalCandidate {
  memory: Memory;
  label: number;
  terms: string[];
  termCounts: number[];
  termLength: number;
}

export interface ListQuery {
  limit: number;
  before?: number;
  /** With `before`: rows at exactly `before` with a smaller id also come (the cursor's tie-break). */
  beforeId?: string;
  includeSuperseded: boolean;
  includeExpired: boolean;
  now: number;
}

export interface StoredCounts {
  total: number;
  superseded: number;
  byType: Record<string, number>;
}

/**
 * Durable storage: the source of truth for memories and their vectors, as role ports (an
 * operation that needs only the journal can say so: `Pick` or the role's interface). Every method
 * that writes does so in one transaction: either all of it lands or none of it.
 * test/storage.contract.test.ts holds every implementation to the same contract.
 */
/** The metadata row: what made the vectors, the label counter and the generation. */
export interface MetaStore {
  readMeta(): Promise<StoreMeta | undefined>;
  /** Writes the metadata row if absent and returns the stored one. */
  initMeta(meta: StoreMeta): Promise<StoreMeta>;
}

/** Memories and their vectors: the rows, written one transaction per call, read by id, label, time or page. */
export interface MemoryRows {
  /**
   * Adds memories with their vectors; allocates one label per vector. Like every write that
   * changes the vector set, it answers with its `IndexDelta` (the store hands it to `commit`).
   */
  insert(memories: Memory[], vectors: Float32Array[], journal?: JournalContext): Promise<IndexDelta & { labels: number[] }>;
  /**
   * Replaces a memory whose current state still equals `expected` (compared by `text` and
   * `lastAccessed`-independent fields); with a vector it gets a new label and the old one is
   * tombstoned. Returns null when the memory changed or vanished meanwhile.
   */
  replace(
    expected: Memory,
    next: Memory,
    vector?: Float32Array,
    journal?: JournalContext,
  ): Promise<(IndexDelta & { label: number; removedLabel?: number }) | null>;
  /** Hard delete; returns the removed memory and its label. */
  remove(id: string, journal?: JournalContext): Promise<(IndexDelta & { memory: Memory; label: number }) | undefined>;
  /** Sets `lastAccessed = now` and increments `accessCount`; returns the updated memories. */
  touch(ids: string[], now: number): Promise<Memory[]>;
  get(id: string): Promise<Memory | undefined>;
  getByLabels(labels: number[]): Promise<Map<number, Memory>>;
  list(query: ListQuery): Promise<Memory[]>;
  count(): Promise<number>;
  counts(): Promise<StoredCounts>;
  /**
   * Exact tag counts and created-at bucket counts, from the tags and (createdAt, label) indexes,
   * skipping superseded memories unless asked; `createdEdges` is ascending.
   */
  aggregate(query: { includeSuperseded: boolean; createdEdges: number[] }): Promise<{ tagCounts: Map<string, number>; created: number[]; counted: number }>;
  /** Memories not superseded with `0 < expiresAt ≤ now` (a scan: nothing indexes `expiresAt`). */
  countExpired(now: number): Promise<number>;
  getMany(ids: string[]): Promise<Map<string, Memory>>;
  /** The current vector label of each id (undefined when absent). */
  labelsOf(ids: string[]): Promise<(number | undefined)[]>;
  /** Whether each id exists. */
  exists(ids: string[]): Promise<boolean[]>;
  /** The text of each id, or undefined. */
  textsOf(ids: string[]): Promise<(string | undefined)[]>;
  /** Every memory (lifecycle passes: decay scoring, health, reflection). */
  allMemories(): Promise<Memory[]>;
  /** Every memory with its vector in `createdAt` order (ties by id), a page per read transaction. */
  pagesByCreated(batchSize?: number): AsyncGenerator<{ memory: Memory; vector: Float32Array | undefined }[]>;
  /** Whether any stored memory has polarity +1 (an index lookup, not a scan). */
  hasPositivePolarity(): Promise<boolean>;
  ids(): Promise<{ id: string; text: string; contentHash: string }[]>;
}

/** The vector log the index is rebuilt and replayed from: vectors by label, tombstones by generation, and re-embedding's staging. */
export interface VectorLog {
  vectorCount(): Promise<number>;
  /** Visits vectors in label order, optionally only those written after generation `afterGeneration`. */
  scanVectors(
    visit: (labels: number[], vectors: Float32Array[]) => void | Promise<void>,
    options?: { afterGeneration?: number; batchSize?: number },
  ): Promise<void>;
  /** Labels removed after generation `afterGeneration`. */
  tombstonesAfter(afterGeneration: number): Promise<number[]>;
  /** Forgets tombstones a persisted snapshot already reflects. */
  pruneTombstones(upToGeneration: number): Promise<void>;
  /** Re-embedding support: vectors staged for a new embedder, keyed by memory id. */
  stageVectors(entries: { id: string; contentHash: string; vector: Float32Array }[], embedderId: string): Promise<void>;
  stagedIds(embedderId: string): Promise<Map<string, string>>;
  /**
   * Atomically replaces every vector with the staged ones, records the new embedder, clears
   * the stage and tombstones. Fails (changing nothing) if a memory has no staged vector.
   */
  commitStaged(embedderId: string, dim: number, journal?: JournalContext): Promise<{ generation: number }>;
  /** Stored vectors by label. */
  vectorsOf(labels: number[]): Promise<Map<number, Float32Array>>;
}

/** The persistent lexical index (core/domain/lexical-index.ts decides what goes in it and how it is read). */
export interface LexicalPostings {
  /** Corpus statistics of the persistent lexical index. */
  lexicalStats(): Promise<{ documents: number; averageLength: number }>;
  /**
   * The best `limit` memories by corpus BM25 for these terms (used as a set), best first, ties by
   * label — leaving out the labels in `exclude` and the memories `accept` refuses — and how many
   * memories contain each term (BM25's IDF). Exact once the lexical index is in memory
   * (core/storage/read-cache.ts); until then nominated from the postings in storage: the
   * `CORPUS_CANDIDATES_PER_SLOT`·limit memories with the highest summed IDF of the query terms
   * they hold (terms in more than a quarter of the memories nominate none), which may include
   * excluded or refused ones, so callers score and filter what they get.
   */
  lexicalCandidates(terms: string[], limit: number, options?: LexicalCandidateOptions): Promise<{ candidates: LexicalCandidate[]; documentFrequencies: Map<string, number> }>;
  /** Stored term statistics of the memories behind these labels. */
  lexicalTermsOf(labels: number[]): Promise<Map<number, { terms: string[]; termCounts: number[]; termLength: number }>>;
  /**
   * Brings the stored terms of a store written under an earlier definition of the lexical terms
   * (`StoreMeta.lexicalVersion`) up to today's, a page a transaction, and records the version with
   * the last page; nothing to do (0 scanned) when they are current. `onProgress(done, total)`:
   * rows read of the store's memories.
   */
  rederiveLexicalTerms(options?: { pageSize?: number; onProgress?: (done: number, total: number) => void }): Promise<{ scanned: number; rewritten: number }>;
}

/** Links, supersede state and the review queue's records. */
export interface GraphStore {
  /** Links pointing at `id`, from the multi-entry link-target index (no scan). */
  incoming(id: string): Promise<{ from: string; rel: string }[]>;
  /**
   * Optional fast path: links pointing at any of `ids`, in one index read, by target (a target
   * with none may be absent). Without it, callers ask `incoming` once per id.
   */
  incomingMany?(ids: string[], rel?: string): Promise<Map<string, { from: string; rel: string }[]>>;
  /** Whether a superseded memory's pin moved to its superseder. */
  pinMoved(id: string): Promise<boolean>;
  /** Applies a graph write in one transaction (text never changes here). */
  applyGraphChanges(changes: GraphChanges, journal?: JournalContext): Promise<IndexDelta>;
  listConflicts(status?: 'pending' | 'resolved'): Promise<PendingConflict[]>;
  getConflict(id: string): Promise<PendingConflict | undefined>;
}

/** The journal, written inside each write's transaction; read, appended to and compacted here. */
export interface JournalStore {
  /**
   * Journal entries, oldest first: of one memory, one group, up to a time, after a time, or the
   * newest n. A creation is stored without its memory (`compactEntry`); here its `after` is
   * filled in from the memory's later entries or the memory itself (`createdState`).
   */
  journalRead(query: { seq?: number; id?: string; group?: string; untilTs?: number; afterTs?: number; newest?: number }): Promise<JournalEntry[]>;
  /**
   * Entries with `seq > afterSeq`, oldest first, at most `limit` (a reader that keeps its place by
   * seq: sync's outbox). Entries as stored: a creation has `created` and no `after` (read its
   * effect with `entryEffect`).
   */
  journalAfter(afterSeq: number, limit: number): Promise<JournalEntry[]>;
  /**
   * Journal sequence numbers, newest first and keys only (cheap over a big import): the `limit`
   * newest below `belowSeq` (from the top when omitted), or every entry of one call (`group`).
   */
  journalKeys(query: { belowSeq?: number; limit: number } | { group: string }): Promise<number[]>;
  /** Appends entries on their own (for operations that change no memory, like export or undo). */
  journalAppend(journal: JournalContext, entries: { id: string; before: Memory | null; after: Memory | null; op?: string }[]): Promise<void>;
  /**
   * Compaction, in one transaction: drops the oldest entries, those written before `olderThanTs`
   * that are not among the newest `keepLast`, always a prefix in `seq` order and never part of a
   * call (a group with an entry that stays keeps all its entries). When something was dropped it
   * records the new horizon and appends a `compact` entry (`journal`); returns how many went.
   */
  journalCompact(query: { olderThanTs: number; keepLast: number }, journal: JournalContext): Promise<{ removed: number; horizon: JournalHorizon | null }>;
  /** The horizon left by the last compaction, or null when the journal is complete. */
  journalHorizon(): Promise<JournalHorizon | null>;
}

/** The trash: what forget-by-decay, quota and undo removed, with its vector. */
export interface TrashStore {
  /** Moves memories (with their vectors) to the trash, in one transaction. */
  moveToTrash(ids: string[], journal: JournalContext): Promise<IndexDelta>;
  listTrash(): Promise<TrashEntry[]>;
  /**
   * Restores the newest trash entry of `id`: null when there is none or the id is live again;
   * `needsVector` when the entry has no vector (the caller embeds and inserts it).
   */
  restoreFromTrash(id: string, journal: JournalContext): Promise<{ memory: Memory; delta: IndexDelta } | { needsVector: Memory } | null>;
  /** The newest trash entry's text and vector of each id that has one with a vector. */
  trashVectors(ids: string[]): Promise<Map<string, { text: string; vector: Float32Array }>>;
  /** Irreversible: one id's entries, several ids' entries (one transaction), entries deleted before a time, or all; returns how many. */
  purgeTrash(query: { id?: string; ids?: string[]; before?: number }): Promise<number>;
}

/** Imports in progress: their leases and undo logs (core/services/import-lease.ts). */
export interface ImportLog {
  /**
   * Writes one import batch in one transaction, in order (a later write of an id replaces an
   * earlier one), and logs what it replaced under `importId` so `rollbackImport` can undo it.
   * @throws MemoryError ABORTED (`reason: 'lease-lost'`) when the import's lease is gone; BUSY when an id is held by another import in progress.
   */
  importBatch(importId: string, writes: { memory: Memory; vector: Float32Array }[], journal?: JournalContext): Promise<IndexDelta>;
  /** Undoes everything an import logged and drops its lease, in one transaction. */
  rollbackImport(importId: string): Promise<IndexDelta>;
  /**
   * Forgets an import's undo log and lease: the import is final.
   * @throws MemoryError ABORTED (`details.reason: 'lease-lost'`) when its lease is gone (another owner rolled it back).
   */
  finishImport(importId: string): Promise<void>;
  /** Records the lease of an import about to write (see core/services/import-lease.ts). */
  beginImport(lease: ImportLease): Promise<void>;
  /** Renews a lease's heartbeat; false when the lease is gone. */
  renewImport(importId: string, heartbeatAt: number): Promise<boolean>;
  /**
   * Imports that started and neither finished nor rolled back, with their lease (null for an
   * undo log without one): rolled back once their owner is gone.
   */
  pendingImports(): Promise<{ importId: string; lease: ImportLease | null }[]>;
}

/** Small named settings and the durability canary beside the metadata row. */
export interface SettingsStore {
  /** A small named setting (e.g. maintenance last-run times) beside the store's metadata. */
  getSetting(key: string): Promise<unknown>;
  putSetting(key: string, value: unknown): Promise<void>;
  /**
   * Plants the store's canary (a random id in the store's own database) unless one is there;
   * returns the canary the database holds afterwards.
   */
  plantCanary(candidate: string): Promise<string>;
  /**
   * One consistent read (a single read transaction) of what the durability check compares: the
   * canary, the number of memories and the number the metadata row books, the newest journal seq,
   * and whether an import is in progress.
   */
  durabilitySnapshot(): Promise<DurabilitySnapshot>;
}

export interface MemoryStorage
  extends MetaStore, MemoryRows, VectorLog, LexicalPostings, GraphStore, JournalStore, TrashStore, ImportLog, SettingsStore {
  close(): void;
}
