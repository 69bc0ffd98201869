/**
 * The memory store: remember / recall / forget / edit over the ports. Pure orchestration:
 * validate, embed first, then write each mutation in one storage transaction, then update the
 * in-memory index. Nothing here knows about Dexie, hnswlib or a model.
 */
import { MemoryError, invalid, throwIfAborted } from './errors.ts';
import { IndexSync, type IndexOpenOutcome } from './index-sync.ts';
import type { Clock, Embedder, IdSource, MemoryStorage, StoreMeta, VectorIndex } from './ports.ts';
import { contentHash } from './text.ts';
import {
  MEMORY_TYPES,
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
} from './types.ts';
import {
  checkBoolean,
  checkId,
  checkImportance,
  checkInteger,
  checkKnownKeys,
  checkMemoryInput,
  checkObject,
  checkTag,
  checkText,
  checkTimestamp,
  checkType,
  checkValidity,
} from './validate.ts';

/** The operations every surface (in-process, worker, agents) exposes. */
export interface MemoryApi {
  /** Stores one memory. @throws MemoryError INVALID_ARGUMENT on bad input (nothing is written). */
  remember(text: string, options?: MemoryInput): Promise<RememberResult>;
  /** Stores many memories: all validated before any write, embedded and written per batch. */
  rememberMany(items: (string | RememberItem)[], options?: RememberManyOptions): Promise<RememberResult[]>;
  /** Nearest memories to `query` by cosine similarity, best first; touches each hit. */
  recall(query: string, options?: RecallOptions): Promise<RecallHit[]>;
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
  /** Re-embeds every memory with the store's current embedder; resumable and cancellable. */
  reindex(options?: LongRunOptions): Promise<{ reembedded: number }>;
  /** Persists the index snapshot now (it is otherwise written after a quiet period). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreDeps {
  name: string;
  storage: MemoryStorage;
  index: VectorIndex;
  embedder: Embedder;
  clock?: Clock;
  ids?: IdSource;
  schemaVersion: number;
}

export interface StoreOpenOptions extends LongRunOptions {
  /** What to do when the store's vectors were made by another embedder. Default 'error'. */
  onEmbedderChange?: 'error' | 'reindex';
  snapshotDelayMs?: number;
}

const systemClock: Clock = { now: () => Date.now() / 1000 };
const randomIds: IdSource = { next: () => crypto.randomUUID() };

const RECALL_KEYS = new Set(['k', 'type', 'tag', 'minImportance', 'includeSuperseded', 'includeExpired', 'overfetch', 'touch', 'signal']);
const LIST_KEYS = new Set(['limit', 'includeSuperseded', 'includeExpired', 'before']);
const MANY_KEYS = new Set(['batchSize', 'signal', 'onProgress']);
const LONG_KEYS = new Set(['signal', 'onProgress']);

function isExpired(memory: Memory, now: number): boolean {
  return memory.expiresAt > 0 && memory.expiresAt <= now;
}

/** Best score first; ties by importance, then newest. */
function byScore(a: RecallHit, b: RecallHit): number {
  return b.score - a.score || b.memory.importance - a.memory.importance || b.memory.createdAt - a.memory.createdAt;
}

/** Opens a store over the given adapters; the composition roots (`createMemory`, the worker) call this. */
export async function openStore(deps: StoreDeps, options: StoreOpenOptions = {}): Promise<MemoryApi & { opened: IndexOpenOutcome | 'pending-reindex' }> {
  const { storage, index, embedder, name } = deps;
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  if (!Number.isInteger(embedder.dim) || embedder.dim <= 0) {
    throw invalid('embedder.dim must be a positive whole number', { field: 'embedder' });
  }

  let meta: StoreMeta = await storage.initMeta({
    schemaVersion: deps.schemaVersion,
    embedderId: embedder.id,
    dim: embedder.dim,
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

  async function embed(texts: string[], opts: LongRunOptions = {}): Promise<Float32Array[]> {
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
    return { text: checkText(text, `${where}.text`), input: checkMemoryInput(rest, where) };
  }

  /** Embeds and writes one batch; index updated only after the transaction commits. */
  async function writeBatch(prepared: { text: string; input: MemoryInput }[], opts: LongRunOptions): Promise<Memory[]> {
    const vectors = await embed(prepared.map((p) => p.text), opts);
    throwIfAborted(opts.signal);
    const now = clock.now();
    const memories = await Promise.all(prepared.map((p) => buildMemory(p.text, p.input, now)));
    const { labels, generation } = await storage.insert(memories, vectors);
    index.add(labels, vectors);
    sync.schedule(generation);
    return memories;
  }

  const api: MemoryApi = {
    async remember(text, options) {
      ensureVectors();
      const prepared = { text: checkText(text), input: checkMemoryInput(options) };
      const [memory] = await writeBatch([prepared], {});
      return { memory: memory!, conflicts: [], action: 'stored' };
    },

    async rememberMany(items, options) {
      ensureVectors();
      if (!Array.isArray(items)) throw invalid('items must be an array', { field: 'items' });
      const opts = checkObject<RememberManyOptions>(options, 'options');
      checkKnownKeys(opts, MANY_KEYS, 'options');
      const batchSize = opts.batchSize === undefined ? 128 : checkInteger(opts.batchSize, 'batchSize', 1, 10_000);
      // All-or-nothing validation: one bad item rejects the call before anything is embedded.
      const prepared = items.map((item, i) => validateItem(item, `items[${i}]`));
      const total = prepared.length;
      const results: RememberResult[] = [];
      opts.onProgress?.({ kind: 'write', done: 0, total });
      for (let start = 0; start < total; start += batchSize) {
        throwIfAborted(opts.signal, { written: results.length, total });
        const batch = prepared.slice(start, start + batchSize);
        const stored = await writeBatch(batch, {
          ...(opts.signal ? { signal: opts.signal } : {}),
          onProgress: (e) => {
            if (e.kind === 'embed') opts.onProgress?.({ kind: 'embed', done: start + e.done, total });
          },
        });
        for (const memory of stored) results.push({ memory, conflicts: [], action: 'stored' });
        opts.onProgress?.({ kind: 'write', done: results.length, total });
      }
      return results;
    },

    async recall(query, options) {
      ensureVectors();
      const text = checkText(query, 'query');
      const opts = checkObject<RecallOptions>(options, 'options');
      checkKnownKeys(opts, RECALL_KEYS, 'options');
      const k = opts.k === undefined ? 5 : checkInteger(opts.k, 'k', 1, 10_000);
      const type = opts.type === undefined ? undefined : checkType(opts.type);
      const tag = opts.tag === undefined ? undefined : checkTag(opts.tag);
      const minImportance = opts.minImportance === undefined ? undefined : checkImportance(opts.minImportance, 'minImportance');
      const includeSuperseded = opts.includeSuperseded === undefined ? false : checkBoolean(opts.includeSuperseded, 'includeSuperseded');
      const includeExpired = opts.includeExpired === undefined ? false : checkBoolean(opts.includeExpired, 'includeExpired');
      const overfetch = opts.overfetch === undefined ? 4 : checkInteger(opts.overfetch, 'overfetch', 1, 100);
      const touch = opts.touch === undefined ? true : checkBoolean(opts.touch, 'touch');

      const live = index.size();
      if (live === 0) return [];
      const [vector] = await embed([text], opts.signal ? { signal: opts.signal } : {});
      const now = clock.now();
      const accept = (m: Memory): boolean =>
        (includeSuperseded || m.supersededBy === '') &&
        (includeExpired || !isExpired(m, now)) &&
        (type === undefined || m.type === type) &&
        (tag === undefined || m.tags.includes(tag)) &&
        (minImportance === undefined || m.importance >= minImportance);

      // Over-fetch, filter against storage, and widen the pool until k survive or the index is exhausted.
      let fetch = Math.min(live, k * overfetch);
      let hits: RecallHit[] = [];
      for (;;) {
        const found = index.search(vector!, fetch);
        const rows = await storage.getByLabels(found.map((h) => h.label));
        hits = [];
        for (const h of found) {
          const memory = rows.get(h.label);
          if (memory && accept(memory)) hits.push({ memory, score: h.similarity });
        }
        if (hits.length >= k || fetch >= live) break;
        fetch = Math.min(live, fetch * 4);
      }
      hits.sort(byScore);
      hits = hits.slice(0, k);
      if (touch && hits.length > 0) {
        const touched = new Map((await storage.touch(hits.map((h) => h.memory.id), now)).map((m) => [m.id, m]));
        hits = hits.map((h) => ({ memory: touched.get(h.memory.id) ?? h.memory, score: h.score }));
      }
      return hits;
    },

    async forget(id) {
      ensureOpen();
      checkId(id);
      const removed = await storage.remove(id);
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
        const result = await storage.replace(current, next, vector);
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
        embedder: { id: embedder.id, dim: embedder.dim },
        index: { kind: index.kind, size: index.size(), snapshotGeneration: sync.snapshotGeneration, generation: meta.generation },
        schemaVersion: meta.schemaVersion,
      };
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
      const { generation } = await storage.commitStaged(embedder.id, embedder.dim);
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
  return Object.defineProperty(api, 'opened', { get: () => opened, enumerable: false }) as MemoryApi & {
    opened: IndexOpenOutcome | 'pending-reindex';
  };
}
