/** What a store holds and how it fares: counts, stats, aggregates and the durability report. */
import { requireOpen, type Using } from '../context.ts';
import { DeferredIndex } from '../services/deferred-index.ts';
import type { DurabilityReport } from '../services/durability.ts';
import { invalid } from '../errors.ts';
import { MEMORY_TYPES, type AggregateOptions, type MemoryType, type StoreAggregates, type StoreStats } from '../types.ts';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject } from '../domain/validate.ts';

export async function count(ctx: Using<'rows'>): Promise<number> {
  requireOpen(ctx);
  return ctx.storage.count();
}

export async function stats(ctx: Using<'meta' | 'rows'>): Promise<StoreStats> {
  requireOpen(ctx);
  const { storage, index, embedder, state } = ctx;
  const counts = await storage.counts();
  state.meta = (await storage.readMeta()) ?? state.meta;
  const byType = Object.fromEntries(MEMORY_TYPES.map((t) => [t, counts.byType[t] ?? 0])) as Record<MemoryType, number>;
  return {
    name: ctx.name,
    count: counts.total,
    active: counts.total - counts.superseded,
    superseded: counts.superseded,
    byType,
    embedder: { id: embedder.id, dim: embedder.dim, ...(embedder.queryInstruction ? { queryInstruction: embedder.queryInstruction } : {}) },
    index: { kind: index.kind, size: index.size(), pending: index instanceof DeferredIndex ? index.pendingCount : 0, snapshotGeneration: ctx.indexKeeper.snapshotGeneration, generation: state.meta.generation },
    schemaVersion: state.meta.schemaVersion,
    confidence: ctx.relevance.describe(),
    ...(ctx.storageInfo ? { storage: await ctx.storageInfo() } : {}),
  };
}

/** Exact tag counts and memories created per time bucket, over every memory (not a sample). */
export async function aggregate(ctx: Using<'rows'>, options?: AggregateOptions): Promise<StoreAggregates> {
  requireOpen(ctx);
  const o = checkObject<AggregateOptions>(options, 'options');
  checkKnownKeys(o, new Set(['topTags', 'createdEdges', 'includeSuperseded', 'countExpired']), 'options');
  const countExpired = o.countExpired === undefined ? false : checkBoolean(o.countExpired, 'countExpired');
  const topTags = o.topTags === undefined ? 12 : checkInteger(o.topTags, 'topTags', 0, 10_000);
  const includeSuperseded = o.includeSuperseded === undefined ? false : checkBoolean(o.includeSuperseded, 'includeSuperseded');
  const edges = o.createdEdges === undefined ? [] : o.createdEdges;
  if (!Array.isArray(edges) || edges.length > 1001) throw invalid('createdEdges must be an array of at most 1001 times', { field: 'createdEdges' });
  edges.forEach((edge, i) => {
    if (typeof edge !== 'number' || !Number.isFinite(edge)) throw invalid(`createdEdges[${i}] must be a finite number — got ${JSON.stringify(edge)}`, { field: 'createdEdges' });
    if (i > 0 && edge <= edges[i - 1]!) throw invalid('createdEdges must be strictly ascending', { field: 'createdEdges' });
  });
  const { tagCounts, created, counted } = await ctx.storage.aggregate({ includeSuperseded, createdEdges: [...edges] });
  const tags = [...tagCounts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
    .slice(0, topTags);
  return { tags, distinctTags: tagCounts.size, created, counted, ...(countExpired ? { expired: await ctx.storage.countExpired(ctx.clock.now()) } : {}) };
}

/** Whether the browser deleted or cleared this store (see `DurabilityMonitor`); `acknowledge` clears a reported loss. */
export async function durability(ctx: Using, options?: { acknowledge?: boolean }): Promise<DurabilityReport> {
  requireOpen(ctx);
  const o = checkObject<{ acknowledge?: boolean }>(options, 'options');
  checkKnownKeys(o, new Set(['acknowledge']), 'options');
  return ctx.durability.check({ acknowledge: o.acknowledge === undefined ? false : checkBoolean(o.acknowledge, 'acknowledge') });
}
