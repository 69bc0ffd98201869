/**
 * The life of memories over time: decay scores and pruning, TTL expiry, reflection
 * (consolidating episodic clusters into summaries) and the health report.
 */
import type { HealthResult, PruneOptions, PruneResult, PurgeExpiredOptions, PurgeExpiredResult, ReflectResult, ReflectRunOptions } from '../api.ts';
import { journalFor, reportChanged, requireOpen, requireVectors, type Using } from '../context.ts';
import { checkDecayOptions, expiredMemories, pruneCandidates, scoreAll, type DecayOptions, type ScoredMemory } from '../domain/decay.ts';
import { healthLists } from '../domain/attention.ts';
import { analyzeAll, DEFAULT_STALE_DAYS } from '../domain/health.ts';
import { planReflection } from '../domain/reflect.ts';
import { checkBoolean, checkKnownKeys, checkObject, checkTimestamp } from '../domain/validate.ts';
import { link, supersedeMemory } from './graph.ts';
import { writeBatch } from './remember.ts';

/** Every live memory with its decay score, highest first. */
export async function decayScores(ctx: Using<'rows'>, options?: DecayOptions & { now?: number }): Promise<ScoredMemory[]> {
  requireOpen(ctx);
  const { now, ...rest } = checkObject<DecayOptions & { now?: number }>(options, 'options');
  const at = now === undefined ? ctx.clock.now() : checkTimestamp(now, 'now');
  // As the reference's score_all: superseded rows included, expired ones not (scoreAll skips them).
  return scoreAll(await ctx.storage.allMemories(), at, checkDecayOptions(rest));
}

/** Moves memories whose decay score fell below `minScore` to the trash; a dry run (the default) only lists them. */
export async function prune(ctx: Using<'rows' | 'trash'>, options?: PruneOptions): Promise<PruneResult> {
  requireOpen(ctx);
  const { now, dryRun, ...rest } = checkObject<PruneOptions>(options, 'options');
  const at = now === undefined ? ctx.clock.now() : checkTimestamp(now, 'now');
  const dry = dryRun === undefined ? true : checkBoolean(dryRun, 'dryRun');
  const candidates = pruneCandidates(await ctx.storage.allMemories(), at, checkDecayOptions(rest));
  if (dry || candidates.length === 0) return { candidates, trashed: 0, dryRun: dry };
  const ids = candidates.map((c) => c.memory.id);
  const delta = await ctx.storage.moveToTrash(ids, { ...journalFor(ctx, 'trash', { by: 'decay' }), actor: 'decay' });
  ctx.commit(delta);
  reportChanged(ctx, ids);
  return { candidates, trashed: delta.removedLabels.length, dryRun: false };
}

/** Removes memories whose `expiresAt` has passed. */
export async function purgeExpired(ctx: Using<'rows'>, options?: PurgeExpiredOptions): Promise<PurgeExpiredResult> {
  requireOpen(ctx);
  const o = checkObject<PurgeExpiredOptions>(options, 'options');
  checkKnownKeys(o, new Set(['now', 'dryRun']), 'options');
  const { now, dryRun } = o;
  const at = now === undefined ? ctx.clock.now() : checkTimestamp(now, 'now');
  const dry = dryRun === undefined ? false : checkBoolean(dryRun, 'dryRun');
  const expired = expiredMemories(await ctx.storage.allMemories(), at).map((m) => m.id);
  if (dry || expired.length === 0) return { purged: 0, ids: expired, dryRun: dry };
  let purged = 0;
  for (const id of expired) {
    const removed = await ctx.storage.remove(id, { ...journalFor(ctx, 'forget', { expired: true }), actor: 'purge' });
    if (!removed) continue;
    ctx.commit(removed);
    reportChanged(ctx, [id]);
    purged += 1;
  }
  return { purged, ids: expired, dryRun: false };
}

/**
 * Consolidates clusters of similar episodic memories into semantic summaries: 'soft' supersedes
 * the sources by the summary (linked `derived_from`), 'hard' forgets them, 'none' keeps them.
 */
export async function reflect(ctx: Using<'graph' | 'rows' | 'trash' | 'vectors'>, options?: ReflectRunOptions): Promise<ReflectResult> {
  requireVectors(ctx);
  const { dryRun, consolidate, summarizer, ...rest } = checkObject<ReflectRunOptions>(options, 'options');
  const dry = dryRun === undefined ? true : checkBoolean(dryRun, 'dryRun');
  const { storage } = ctx;
  const now = ctx.clock.now();
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
  const clusters: ReflectResult['clusters'] = [];
  for (const item of plan) {
    const ids = item.cluster.map((m) => m.id);
    if (dry) {
      clusters.push({ ids, summary: item.summary.text, summaryId: null });
      continue;
    }
    // Every write of one cluster is the reflection's (actor 'reflection') and one call for
    // undo (one journal group): the summary, the supersedes, the links, the forgets.
    const reflection: typeof ctx = { ...ctx, actor: 'reflection', group: journalFor(ctx, 'reflect').group };
    const { links: _links, ...fields } = item.summary;
    const {
      memories: [summary],
    } = await writeBatch(reflection, [{ text: item.summary.text, input: fields }], {});
    for (const id of item.supersede) {
      await supersedeMemory(reflection, id, summary!.id, { movePin: false });
      await link(reflection, summary!.id, id, 'derived_from');
    }
    for (const id of item.forget) {
      const removed = await storage.remove(id, journalFor(reflection, 'forget', { reflection: summary!.id }));
      if (removed) {
        ctx.commit(removed);
        reportChanged(ctx, [id]);
      }
    }
    clusters.push({ ids, summary: item.summary.text, summaryId: summary!.id });
  }
  return { clusters, dryRun: dry };
}

/** One status per memory (at_risk, stale, orphan, healthy) with reasons, soft potential-conflict flags, and the report. */
export async function health(ctx: Using<'graph' | 'rows'>, options?: { staleDays?: number }): Promise<HealthResult> {
  requireOpen(ctx);
  const o = checkObject<{ staleDays?: number }>(options, 'options');
  checkKnownKeys(o, new Set(['staleDays']), 'options');
  const pending = new Map<string, number>();
  for (const c of await ctx.storage.listConflicts('pending')) {
    for (const id of [c.newId, c.oldId]) pending.set(id, (pending.get(id) ?? 0) + 1);
  }
  const all = await ctx.storage.allMemories();
  const now = ctx.clock.now();
  const analysis = analyzeAll(all, {
    now,
    pendingConflictIds: pending,
    ...(o.staleDays === undefined ? {} : { staleDays: o.staleDays }),
  });
  const attention = healthLists(all, {
    now,
    staleDays: analysis.report.staleDays ?? DEFAULT_STALE_DAYS,
    pending,
    potential: analysis.potentialConflictIds,
    pruning: ctx.state.scheduler?.status().config.decay ?? false,
  });
  return {
    statuses: Object.fromEntries(analysis.statuses),
    counts: analysis.counts,
    potentialConflicts: analysis.potentialConflicts,
    potentialConflictsCapped: analysis.potentialConflictsCapped,
    report: analysis.report,
    lists: attention.lists,
    attention: attention.attention,
    needsAttention: attention.needsAttention,
  };
}
