/**
 * The index keeper (named `IndexSync` before: it has nothing to do with CouchDB sync, core/sync/):
 * keeps the vector index (a cache) consistent with storage (the truth). On open it loads the
 * index snapshot, replays the writes made after it (vectors and tombstones newer than the
 * snapshot's generation), checks the live count against storage, and rebuilds from the stored
 * vectors when anything does not add up. Snapshots are written on a debounce, never per write.
 *
 * Over a `DeferredIndex`, the replay is deferred (searchable at once by exact scan, inserted
 * into the graph in the background), and so is a rebuild at open (no snapshot, or one that does
 * not add up): the store is usable as soon as the vectors are read, not once the graph is built.
 * No snapshot is written while vectors are pending (the snapshot then always covers every vector
 * up to its generation, so a store closed or killed mid-drain replays the rest at its next open),
 * and one is written as soon as the drain ends.
 */
import { vectorProblem } from '../domain/record.ts';
import { DeferredIndex } from './deferred-index.ts';
import { throwIfAborted } from '../errors.ts';
import type { MemoryStorage, VectorIndex } from '../ports.ts';
import type { LongRunOptions } from '../types.ts';

export interface IndexKeeperOptions {
  /** Quiet period after the last write before a snapshot is persisted. */
  snapshotDelayMs?: number;
}

export type IndexOpenOutcome = 'snapshot' | 'snapshot+replay' | 'rebuilt' | 'empty';

export class IndexKeeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private dirtyGeneration = 0;
  private savedGeneration: number | null = null;
  private readonly delay: number;
  private readonly deferred: DeferredIndex | null;

  constructor(
    readonly index: VectorIndex,
    private readonly storage: MemoryStorage,
    options: IndexKeeperOptions = {},
  ) {
    this.delay = options.snapshotDelayMs ?? 2000;
    this.deferred = index instanceof DeferredIndex ? index : null;
    // The drain's end is the moment a snapshot can hold everything: write it then, unless writes
    // go on (a debounced snapshot is already due: a bulk rememberMany drains after every batch,
    // and a snapshot per batch cost more than the writes themselves).
    if (this.deferred) {
      this.deferred.onDrained = () => {
        if (this.timer === undefined) void this.persist(this.dirtyGeneration).catch(() => undefined);
      };
    }
  }

  get snapshotGeneration(): number | null {
    return this.savedGeneration;
  }

  /**
   * Brings the index in line with storage at `generation`. `memories`: the count the metadata
   * row keeps (every write moves it in its own transaction, and each memory has one vector).
   * When the loaded snapshot agrees with it, the vectors are not counted: a row count is linear
   * in browsers (about 2 s at a million), and beside the snapshot's reads it slowed them (a
   * million-memory store opened in 8.2 s with it, 6.3 s without: BENCHMARKS.md, issue #30).
   * When they disagree, the vectors are counted and the count decides.
   */
  async open(generation: number, options: LongRunOptions & { memories?: number } = {}): Promise<IndexOpenOutcome> {
    // Without a kept count, the rows are counted beside the snapshot's reads, as before.
    const onProgress = options.onProgress;
    const load = this.index.loadSnapshot(onProgress ? { onProgress: (done, total) => onProgress({ kind: 'index-load', done, total }) } : {});
    const [snapshot, kept] = await Promise.all([load.catch((): null => null), options.memories ?? this.storage.vectorCount()]);
    let expected = kept;
    let counted = options.memories === undefined;
    const count = async (): Promise<void> => {
      if (counted) return;
      expected = await this.storage.vectorCount();
      counted = true;
    };
    if (snapshot !== null && snapshot <= generation) {
      let replayed = false;
      if (snapshot < generation) {
        const deferred = this.deferred;
        await this.storage.scanVectors(
          (labels, vectors) => {
            const [l, v] = usable(labels, vectors);
            return deferred ? deferred.addDeferred(l, v) : this.index.add(l, v);
          },
          { afterGeneration: snapshot },
        );
        const removed = await this.storage.tombstonesAfter(snapshot);
        this.index.remove(removed);
        replayed = true;
      }
      if (this.index.size() !== expected) await count();
      if (this.index.size() === expected) {
        this.savedGeneration = snapshot;
        this.dirtyGeneration = generation;
        if (replayed) this.schedule(generation);
        return replayed ? 'snapshot+replay' : 'snapshot';
      }
    }
    await count(); // a rebuild reads every vector: its total is the rows counted
    if (this.deferred && this.index.kind !== 'exact' && expected > 0) {
      // A snapshot that did not add up must not be loaded again if the store closes mid-drain.
      if (snapshot !== null) await this.index.dropSnapshot().catch(() => undefined);
      await this.rebuildDeferred(this.deferred, generation, expected, options);
      return 'rebuilt';
    }
    await this.rebuild(generation, expected, options);
    return expected === 0 ? 'empty' : 'rebuilt';
  }

  /**
   * Reads every stored vector into the deferred index's pending set (searched exactly at once)
   * and leaves the graph to the background drain; the snapshot follows the drain.
   */
  private async rebuildDeferred(deferred: DeferredIndex, generation: number, total: number, options: LongRunOptions): Promise<void> {
    this.index.clear();
    let done = 0;
    options.onProgress?.({ kind: 'index-rebuild', done, total });
    const release = deferred.hold(); // read first, then build the graph: the open waits only for the reads
    try {
      await this.storage.scanVectors((labels, vectors) => {
        throwIfAborted(options.signal, { done, total });
        deferred.addDeferred(...usable(labels, vectors));
        done += labels.length;
        options.onProgress?.({ kind: 'index-rebuild', done, total });
      });
    } finally {
      release();
    }
    this.savedGeneration = null;
    this.dirtyGeneration = generation;
  }

  /** Rebuilds the whole index from the stored vectors, with progress. */
  async rebuild(generation: number, expected?: number, options: LongRunOptions = {}): Promise<void> {
    const total = expected ?? (await this.storage.vectorCount());
    this.index.clear();
    let done = 0;
    options.onProgress?.({ kind: 'index-rebuild', done, total });
    await this.storage.scanVectors((labels, vectors) => {
      throwIfAborted(options.signal, { done, total });
      this.index.add(...usable(labels, vectors));
      done += labels.length;
      options.onProgress?.({ kind: 'index-rebuild', done, total });
    });
    this.savedGeneration = null;
    this.dirtyGeneration = generation;
    if (total > 0) await this.persist(generation);
  }

  /** Records a write at `generation`; a snapshot follows after a quiet period. */
  schedule(generation: number): void {
    this.dirtyGeneration = Math.max(this.dirtyGeneration, generation);
    if (this.index.kind === 'exact') return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.persist(this.dirtyGeneration).catch(() => undefined);
    }, this.delay);
  }

  /**
   * Persists a snapshot now if the index changed since the last one, after the background
   * drain (if any) has put every pending vector into the graph.
   */
  async flush(generation = this.dirtyGeneration): Promise<void> {
    await this.deferred?.whenDrained();
    return this.persist(Math.max(generation, this.dirtyGeneration));
  }

  /** Writes the snapshot unless one at `generation` exists (the index refuses while vectors are pending). */
  private async persist(generation: number): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const previous = this.saving;
    this.saving = (async () => {
      await previous.catch(() => undefined);
      if (this.savedGeneration !== null && this.savedGeneration >= generation) return;
      const saved = await this.index.saveSnapshot(generation);
      if (saved) {
        this.savedGeneration = generation;
        await this.storage.pruneTombstones(generation);
      }
    })();
    return this.saving;
  }

  /** Stops a background drain (what it did not insert is replayed at the next open), persists if complete, disposes. */
  async close(): Promise<void> {
    this.deferred?.stop();
    await this.persist(this.dirtyGeneration).catch(() => undefined);
    this.index.dispose();
  }
}

/**
 * The stored vectors an index can take: one nothing can be searched with (a non-finite component,
 * a zero or vanishing norm: record.ts `vectorProblem`) is left out, so a store holding such a row
 * — written by a version that did not check what a sync or import brought — still opens. Its
 * memory stays readable; it is not found by meaning until its text is re-embedded (`reindex`).
 */
function usable(labels: readonly number[], vectors: readonly Float32Array[]): [number[], Float32Array[]] {
  const keep = vectors.map((v) => vectorProblem(v) === null);
  if (keep.every(Boolean)) return [labels as number[], vectors as Float32Array[]];
  return [labels.filter((_, i) => keep[i]), vectors.filter((_, i) => keep[i])];
}
