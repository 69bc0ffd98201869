/**
 * What recall reads most, held in memory beside the engine: the lexical index (term postings
 * with an exact BM25 top-k, core/domain/term-index.ts), and the memory rows and stored vectors
 * last read or written (least recently used first out, each within a byte budget; a bulk write's
 * are not kept, see recording-tx.ts).
 *
 * All are kept current by this store's own writes: the engine is wrapped so that a committed
 * read-write transaction hands the cache what it wrote (recording-tx.ts: memory rows and vectors
 * put, memories and vectors deleted, the metadata row). What another writer does is noticed two
 * ways and drops the cache (the lexical index is then read again): another engine on the same
 * data in this realm says so when it commits, and a writer elsewhere moves the metadata row's
 * generation or lexical totals, which a corpus search compares with the cache (`check`).
 *
 * A search reads the metadata row only when it may have changed unseen (`currentMeta`): after
 * the engine announced a write to it (its `watch`: Dexie announces every commit, other realms'
 * too; a recall's touch writes rows only, so it does not count), or when the last look at storage
 * is older than a second (a writer the engine cannot hear of). Reading it before every search was
 * a storage request a search (0.11 ms in Node on fake-indexeddb, by BENCHMARKS' second-pass
 * phase timing; in a browser, a request that IndexedDB answers from another process). A change
 * that leaves that row alone (a touch, a tag edit) made in another realm is not seen until the
 * row moves: a store has one owner at a time (the SharedWorker, the elected tab, the
 * extension's offscreen document), as its vector index, which another realm's writes do not
 * reach either, assumes.
 */
import { TermIndex, type TermDoc } from '../domain/term-index.ts';
import type { StoreMeta } from '../ports.ts';
import { Lru } from './lru.ts';
import { MEMORIES } from './memory-table.ts';
import type { StorageEngine } from './port.ts';
import { recording, watched, type Change } from './recording-tx.ts';
import type { Memory } from '../types.ts';
import { strip, type MemoryRow, type StoredVector, type VectorRow } from './rows.ts';
import { StoreFacts } from './store-facts.ts';

/** How long at most a write the engine does not announce goes unseen by searches, in ms. */
export const UNANNOUNCED_WRITES_SEEN_WITHIN = 1_000;

/** Where a read of the metadata row began: what `check` needs to know what the read answers. */
export interface MetaRead {
  epoch: number;
  announced: number;
  at: number;
}

export interface ReadCacheOptions {
  /** Bytes of rows kept at most (default `ROW_CACHE_BYTES`). */
  rows?: number;
  /** Bytes of stored vectors kept at most (default `VECTOR_CACHE_BYTES`). */
  vectors?: number;
  /** Milliseconds an unannounced write goes unseen at most (default `UNANNOUNCED_WRITES_SEEN_WITHIN`; 0: read every time). */
  unannouncedWithin?: number;
}

/** Bytes of rows the cache holds at most (an estimate per row, see `rowBytes`). */
export const ROW_CACHE_BYTES = 128 * 1024 * 1024;
/** Bytes of stored vectors the cache holds at most (768 a vector at 384-d: 131,072 of them). */
export const VECTOR_CACHE_BYTES = 96 * 1024 * 1024;
/**
 * Rows read per page while the lexical index is read from storage: large when a recall waits for
 * it, small in the background so that recalls go on meanwhile (with 2,000-row pages the first
 * recall after reopening 100,000 memories took 10.0 s instead of 3.6; with 250, read after the
 * recall that asked, 3.3).
 */
const BUILD_PAGE = 2_000;
const BACKGROUND_PAGE = 250;

/**
 * What a metadata row says about the data: any text change moves the generation or the lexical
 * totals in the same transaction. The read cache and the document-frequency counts key on it.
 */
export const lexicalKey = (meta: StoreMeta | undefined): string => `${meta?.generation ?? 0}:${meta?.lexicalDocs ?? 0}:${meta?.lexicalLength ?? 0}`;

/** A rough size of a row in memory: its strings twice (UTF-16), its arrays, the object. */
function rowBytes(row: MemoryRow): number {
  let bytes = 400 + 2 * (row.text?.length ?? 0);
  for (const t of row.terms ?? []) bytes += 40 + 2 * t.length;
  for (const t of row.tags ?? []) bytes += 40 + 2 * t.length;
  bytes += 120 * (row.links?.length ?? 0);
  return bytes;
}

/**
 * The memory a cached row holds, as a storage read would give it: an object and arrays of its
 * own, so a caller that changes what it got changes nothing in the cache.
 */
export function memoryOf(row: MemoryRow): Memory {
  const memory = strip(row);
  memory.tags = [...memory.tags];
  memory.links = memory.links.map((l) => ({ ...l }));
  memory.surfacesWhen = [...memory.surfacesWhen];
  return memory;
}

/** Engines on the same data in this realm, by id, so a commit on one drops the others' caches. */
const peers = new Map<string, Set<WeakRef<ReadCache>>>();

export class ReadCache {
  private readonly rows: Lru<MemoryRow>;
  private readonly vectors: Lru<StoredVector>;
  private terms = new TermIndex();
  private lexical: 'empty' | 'building' | 'ready' = 'empty';
  private building: Promise<void> | null = null;
  /** Changes committed while the lexical index is read, applied after. */
  private pending: Change[] | null = null;
  /** The metadata key the cache mirrors (null: not yet seen). */
  private key: string | null = null;
  /** Bumped by every change and drop: a read that started before one does not fill the cache. */
  private epoch = 0;
  /** The metadata row as last read from storage or committed here, and when (null: not known). */
  private meta: { row: StoreMeta | undefined; at: number } | null = null;
  /** Writes the engine announced, and how many of them a read of the metadata row has answered. */
  private announced = 0;
  private answered = 0;
  private readonly unwatch: () => void;
  private readonly unannouncedWithin: number;
  private readonly self = new WeakRef(this);
  /** Whole-store facts recall asks every time (store-facts.ts), kept and dropped with the rest. */
  readonly facts = new StoreFacts();

  constructor(private readonly engine: StorageEngine, options: ReadCacheOptions = {}) {
    this.rows = new Lru(options.rows ?? ROW_CACHE_BYTES, rowBytes);
    this.vectors = new Lru(options.vectors ?? VECTOR_CACHE_BYTES, (v) => v.byteLength + 64);
    this.unannouncedWithin = options.unannouncedWithin ?? UNANNOUNCED_WRITES_SEEN_WITHIN;
    // Held weakly: a store dropped without being closed does not keep its cache alive.
    if (engine.id !== undefined) (peers.get(engine.id) ?? peers.set(engine.id, new Set()).get(engine.id)!).add(this.self);
    const self = this.self;
    // Only a write to the metadata row can change what `check` compares.
    const stop = engine.watch?.((tables) => {
      const cache = self.deref();
      if (!cache) stop?.();
      else if (tables.includes('meta')) cache.announced++;
    });
    this.unwatch = stop ?? (() => undefined);
  }

  /** The engine with its read-write transactions reporting what they committed to this cache. */
  wrap(): StorageEngine {
    const { engine } = this;
    return {
      ...(engine.id === undefined ? {} : { id: engine.id }),
      mapError: (error, operation) => engine.mapError(error, operation),
      close: () => {
        this.drop();
        this.leavePeers();
        this.unwatch();
        engine.close();
      },
      transaction: async (mode, tables, body, options) => {
        if (mode !== 'rw' || !tables.some(watched)) return engine.transaction(mode, tables, body, options);
        const changes: Change[] = [];
        const result = await engine.transaction(mode, tables, (tx) => body(recording(tx, changes)), options);
        if (changes.length > 0) this.commit(changes);
        return result;
      },
    };
  }

  private leavePeers(): void {
    if (this.engine.id === undefined) return;
    const others = peers.get(this.engine.id);
    others?.delete(this.self);
    if (others?.size === 0) peers.delete(this.engine.id);
  }

  /**
   * The metadata row, when nothing can have changed it unseen since it was last read or
   * committed here: no write announced since, and read within the unannounced writes' bound.
   * Null: read it (`beginMetaRead`, then `check`).
   */
  currentMeta(): { row: StoreMeta | undefined } | null {
    const known = this.meta;
    if (known === null || this.answered !== this.announced || performance.now() - known.at >= this.unannouncedWithin) return null;
    return known;
  }

  /** To be taken just before the metadata row is read from storage, and handed to `check`. */
  beginMetaRead(): MetaRead {
    return { epoch: this.epoch, announced: this.announced, at: performance.now() };
  }

  /**
   * Compares the metadata row, read from storage since `read` began, with what the cache mirrors:
   * when another writer changed it, drops the cache. A read that a commit of ours overtook says
   * nothing (the commit told the cache more).
   */
  check(meta: StoreMeta | undefined, read: MetaRead): void {
    if (read.epoch !== this.epoch) return;
    const key = lexicalKey(meta);
    if (this.key !== null && this.key !== key) this.drop();
    this.key = key;
    this.meta = { row: meta, at: read.at };
    this.answered = read.announced;
  }

  /** Forgets everything (another writer changed the data). */
  drop(): void {
    this.epoch++;
    this.meta = null;
    this.rows.clear();
    this.vectors.clear();
    this.terms = new TermIndex();
    this.lexical = 'empty';
    this.pending = null;
    this.building = null;
    this.facts.clear();
  }

  /**
   * The cached row at each label (undefined where not cached). Shared with the cache: read it,
   * never change it, and hand callers `memoryOf(row)`.
   */
  cachedRows(labels: readonly number[]): (MemoryRow | undefined)[] {
    return labels.map((label) => this.rows.get(label));
  }

  /** The cached stored vector at each label (undefined where not cached). Shared: never change it. */
  cachedVectors(labels: readonly number[]): (StoredVector | undefined)[] {
    return labels.map((label) => this.vectors.get(label));
  }

  /** Keeps vectors read from storage, unless something changed since the read began. */
  rememberVectors(rows: readonly (VectorRow | undefined)[], epoch: number): void {
    if (epoch !== this.epoch) return;
    for (const row of rows) if (row) this.vectors.set(row.label, row.vector);
  }

  /** The epoch to pass to `remember` and `check` for what is read from storage now. */
  get readEpoch(): number {
    return this.epoch;
  }

  /**
   * A fact that is `known`, or else read from storage and kept (by `keep`) unless something
   * changed while it was read.
   */
  async fact<T>(known: T | null, read: () => Promise<T>, keep: (value: T) => void): Promise<T> {
    if (known !== null) return known;
    const epoch = this.epoch;
    const value = await read();
    if (epoch === this.epoch) keep(value);
    return value;
  }

  /** Keeps rows read from storage, unless something changed since the read began. */
  remember(rows: readonly (MemoryRow | undefined)[], epoch: number): void {
    if (epoch !== this.epoch) return;
    for (const row of rows) if (row) this.rows.set(row.label, { ...row });
  }

  /**
   * The lexical index when it is ready. The first call starts reading it from storage: awaited
   * when the store holds at most `awaitUpTo` memories, in the background otherwise (the caller
   * then uses the postings in storage meanwhile).
   */
  async termIndex(documents: number, awaitUpTo: number): Promise<TermIndex | null> {
    if (this.lexical === 'ready') return this.terms;
    const background = documents > awaitUpTo;
    const building = this.building ?? this.startBuild(background);
    if (background) return null;
    await building;
    return this.readyIndex();
  }

  /** The index if the read finished (a drop meanwhile, another writer, leaves it unread). */
  private readyIndex(): TermIndex | null {
    return this.lexical === 'ready' ? this.terms : null;
  }

  private startBuild(background: boolean): Promise<void> {
    const terms = new TermIndex();
    const pageSize = background ? BACKGROUND_PAGE : BUILD_PAGE;
    const pause = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 0));
    this.lexical = 'building';
    this.pending = [];
    // Declared first: the read checks, after each page, that it is still the current one.
    let build: Promise<void> | null = null;
    build = (async () => {
      // In the background, the recall that asked goes first.
      if (background) await pause();
      let after = -1;
      for (;;) {
        const from = after;
        const epoch = this.epoch;
        const page = await this.engine.transaction('r', [MEMORIES], (tx) =>
          tx.query<MemoryRow>(MEMORIES, { range: { lower: from, lowerOpen: true }, limit: pageSize }), { oneCall: true });
        if (this.building !== build) return;
        for (const row of page) terms.add(row.label, row);
        this.remember(page, epoch);
        if (page.length < pageSize) break;
        after = page[page.length - 1]!.label;
        // Yield between pages: recall and writes go on meanwhile.
        await pause();
      }
      if (this.building !== build) return;
      for (const change of this.pending ?? []) applyTo(terms, change);
      this.pending = null;
      this.terms = terms;
      this.lexical = 'ready';
    })().catch(() => {
      // A failed read leaves the index to be read again on the next recall.
      if (this.building === build) this.drop();
    });
    this.building = build;
    return build!;
  }

  private commit(changes: readonly Change[]): void {
    this.epoch++;
    for (const change of changes) {
      this.facts.note(change);
      if ('meta' in change) {
        // What storage holds now: the transaction that wrote it has committed.
        this.key = lexicalKey(change.meta);
        this.meta = { row: change.meta, at: performance.now() };
      } else if ('row' in change) {
        if (change.bulk) this.rows.delete(change.row.label);
        else this.rows.set(change.row.label, { ...change.row, ...memoryOf(change.row) });
      } else if ('vector' in change) {
        if (change.bulk) this.vectors.delete(change.vector.label);
        else this.vectors.set(change.vector.label, change.vector.vector);
      } else if ('gone' in change) {
        this.rows.delete(change.gone);
        this.vectors.delete(change.gone);
      } else continue;
      if (this.lexical === 'ready') applyTo(this.terms, change);
      else if (this.lexical === 'building') this.pending!.push(change);
    }
    const others = this.engine.id === undefined ? undefined : peers.get(this.engine.id);
    if (!others) return;
    for (const ref of others) {
      const other = ref.deref();
      if (!other) others.delete(ref);
      else if (other !== this) other.drop();
    }
  }
}

function applyTo(terms: TermIndex, change: Change): void {
  if ('row' in change) terms.add(change.row.label, change.row as TermDoc);
  else if ('gone' in change) terms.remove(change.gone);
}
