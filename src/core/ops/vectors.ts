/** The store's vectors as a whole: re-embedding with the current embedder, and persisting the index snapshot. */
import { embed, journalFor, requireOpen, type Using } from '../context.ts';
import { throwIfAborted } from '../errors.ts';
import type { LongRunOptions } from '../types.ts';
import { checkKnownKeys, checkObject } from '../domain/validate.ts';

const LONG_KEYS = new Set(['signal', 'onProgress']);

/**
 * Re-embeds every memory with the store's current embedder. New vectors are staged beside the
 * old ones, which stay authoritative until one transaction swaps them, so an interrupted reindex
 * loses nothing and resumes later.
 */
export async function reindex(ctx: Using<'meta' | 'rows' | 'vectors'>, options?: LongRunOptions): Promise<{ reembedded: number }> {
  requireOpen(ctx);
  const opts = checkObject<LongRunOptions>(options, 'options');
  checkKnownKeys(opts, LONG_KEYS, 'options');
  const { storage, embedder, state } = ctx;
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
    const vectors = await embed(ctx, batch.map((m) => m.text), opts.signal ? { signal: opts.signal } : {});
    await storage.stageVectors(
      batch.map((m, i) => ({ id: m.id, contentHash: m.contentHash, vector: vectors[i]! })),
      embedder.id,
    );
    done += batch.length;
    opts.onProgress?.({ kind: 'reindex', done, total });
  }
  throwIfAborted(opts.signal, { done, total });
  const { generation } = await storage.commitStaged(embedder.id, embedder.dim, journalFor(ctx, 'reindex', { embedder: embedder.id }));
  state.meta = (await storage.readMeta()) ?? state.meta;
  state.mismatch = false;
  await ctx.index.dropSnapshot();
  await ctx.indexKeeper.rebuild(generation, undefined, opts);
  state.opened = 'rebuilt';
  return { reembedded: todo.length };
}

/** Persists the index snapshot now (it is otherwise written after a quiet period). */
export async function flush(ctx: Using): Promise<void> {
  requireOpen(ctx);
  await ctx.indexKeeper.flush();
}
