/**
 * Contradictions against a store: the conflict scan (vector neighbours, never a pairwise scan),
 * the policies applied at write time, and the review queue that asks the user instead of
 * resolving anything by itself.
 */
import type { ConflictScanOptions, PendingConflictView } from '../api.ts';
import {
  CONFLICT_CANDIDATES,
  classifyIncoming,
  decidePolicy,
  detectConflicts,
  patternGateFor,
  type Classifier,
  type ConflictPolicy,
  type ContradictionFn,
} from '../domain/conflicts.ts';
import { withClassifierConflicts } from '../domain/classifier-policy.ts';
import { calibrationFor } from '../domain/calibrations.ts';
import { embed, journalFor, reportChanged, requireOpen, requireVectors, vectorOf, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import { JUDGE_BAND, JUDGE_BUDGET, JUDGE_TIMEOUT_MS, judgeRun, type ConflictJudge, type JudgeRun } from '../domain/judge.ts';
import { DeferredIndex } from '../services/deferred-index.ts';
import { planSupersede } from '../domain/graph.ts';
import { applyResolution, checkResolution, pendingFromConflict, pendingKey, supersededRecords, type PendingConflict, type ProposedMemory } from '../domain/review.ts';
import type { Conflict, Memory } from '../types.ts';
import { checkId, checkInteger, checkKnownKeys, checkObject } from '../domain/validate.ts';
import { link, mustGet, supersedeMemory, unlink } from './graph.ts';
import { currentOf, mayOutdate, UPDATES_REL } from '../domain/current.ts';

/** The vector neighbours of a memory with their cosine (the conflict candidates). */
async function candidatesFor(ctx: Using<'rows'>, vector: Float32Array, selfId?: string): Promise<{ memory: Memory; similarity: number }[]> {
  const found = ctx.index.search(vector, Math.min(ctx.index.size(), CONFLICT_CANDIDATES + 1));
  const rows = await ctx.storage.getByLabels(found.map((h) => h.label));
  return found
    .map((h) => ({ memory: rows.get(h.label), similarity: h.similarity }))
    .filter((c): c is { memory: Memory; similarity: number } => c.memory !== undefined && c.memory.id !== selfId)
    .slice(0, CONFLICT_CANDIDATES);
}

/**
 * Conflicts of one memory, or of the whole store: each memory's top vector neighbours are
 * checked (not all pairs), so a 10k-memory scan is 10k index searches. The store's
 * contradiction function (when it has one) takes part.
 */
export async function findConflicts(ctx: Using<'rows' | 'vectors'>, options: ConflictScanOptions = {}): Promise<Conflict[]> {
  requireVectors(ctx);
  const o = checkObject<ConflictScanOptions & { contradictionFn?: unknown }>(options, 'options');
  checkKnownKeys(o, new Set(['memoryId', 'threshold', 'contradictionFn']), 'options');
  const contradictionFn = ctx.settings.conflicts.contradictionFn;
  const scan = async (memory: Memory, vector: Float32Array): Promise<Conflict[]> =>
    detectConflicts(memory, await candidatesFor(ctx, vector, memory.id), {
      ...(o.threshold === undefined ? {} : { threshold: o.threshold }),
      patternGate: patternGate(ctx),
      contradictionFn,
    });
  if (o.memoryId !== undefined) {
    const memory = await mustGet(ctx.storage, o.memoryId, 'memoryId');
    const vector = await vectorOf(ctx, memory.id);
    return vector ? scan(memory, vector) : [];
  }
  // A search per memory: over vectors still pending (a large import or first sync just landed)
  // each would scan all of them, n × pending; the graph, once built, answers each in log time.
  if (ctx.index instanceof DeferredIndex) await ctx.index.whenDrained();
  const out: Conflict[] = [];
  const seen = new Set<string>();
  await ctx.storage.scanVectors(async (labels, vectors) => {
    const rows = await ctx.storage.getByLabels(labels);
    for (const [i, label] of labels.entries()) {
      const memory = rows.get(label);
      if (!memory || memory.supersededBy !== '') continue;
      for (const c of await scan(memory, vectors[i]!)) {
        const key = [c.a.id, c.b.id].sort().join('\u0000');
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(c);
      }
    }
  });
  return out;
}

export interface WriteConflictOptions {
  policy: ConflictPolicy;
  threshold?: number;
  contradictionFn?: ContradictionFn | null;
  classifier?: Classifier | null;
  /** This call's judge and what is left of its budget (domain/judge.ts). */
  judgeRun?: JudgeRun | null;
}

/**
 * The judge of one `remember`/`rememberMany` call: the call's own `judge` (a function: through
 * the worker, a proxied one) or the store's, with the store's band, budget and timeout (or the
 * defaults); null when there is none.
 */
export function judgeFor(ctx: Pick<Using, 'settings'>, callJudge: unknown): JudgeRun | null {
  if (callJudge !== undefined && typeof callJudge !== 'function') throw invalid('judge must be a function', { field: 'judge' });
  const base = ctx.settings.conflicts.judge;
  const judge = (callJudge as ConflictJudge | undefined) ?? base?.judge;
  if (!judge) return null;
  return judgeRun({ judge, band: base?.band ?? JUDGE_BAND, budget: base?.budget ?? JUDGE_BUDGET, timeoutMs: base?.timeoutMs ?? JUDGE_TIMEOUT_MS });
}

/** The cosine below which no lexical pattern is tried, in this store's embedder's units. */
function patternGate(ctx: Pick<Using, 'embedder'>): number {
  return patternGateFor(calibrationFor(ctx.embedder)?.background);
}

/** Scans the neighbours of a memory about to be (or just) written. */
export async function scanForWrite(ctx: Using<'rows'>, memory: Memory, vector: Float32Array, options: WriteConflictOptions): Promise<Conflict[]> {
  if (options.policy === 'ignore') return [];
  const candidates = await candidatesFor(ctx, vector, memory.id);
  const detected = await detectConflicts(memory, candidates, {
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    patternGate: patternGate(ctx),
    contradictionFn: options.contradictionFn ?? null,
    now: ctx.clock.now(),
    judge: options.judgeRun ?? null,
  });
  // Under every policy but 'supersede' the classifier's verdicts are conflicts like the others
  // (reported, refused or queued: see classifier-policy.ts); 'supersede' applies them itself.
  if (!options.classifier || options.policy === 'supersede') return detected;
  return withClassifierConflicts(memory, await classifyIncoming(memory, candidates, options.classifier), detected);
}

/**
 * Carries out a policy after the new memory was written. Returns the memory to report (the
 * merge target when the new one was merged away) and the action taken.
 */
export async function applyWritePolicy(
  ctx: Using<'graph' | 'rows'>,
  memory: Memory,
  vector: Float32Array,
  conflicts: Conflict[],
  options: WriteConflictOptions,
): Promise<{ memory: Memory; action: 'stored' | 'merged' | 'superseded' | 'queued' }> {
  let current = memory;
  let action: 'stored' | 'merged' | 'superseded' | 'queued' = 'stored';
  if (options.classifier && options.policy === 'supersede') {
    // The seed-002 hook refines the decision: CONTRADICTION/UPDATE supersede, demote pins, inherit importance.
    const plan = await classifyIncoming(memory, await candidatesFor(ctx, vector, memory.id), options.classifier);
    if (plan.supersede.length || plan.unpin.length) {
      const put: Memory[] = [];
      const now = ctx.clock.now();
      let next: Memory = { ...memory, importance: plan.newImportance, pinned: memory.pinned || plan.pinNew };
      for (const id of new Set([...plan.supersede, ...plan.unpin])) {
        const old = (await ctx.storage.get(id))!;
        let updated: Memory = plan.unpin.includes(id) ? { ...old, pinned: false } : old;
        if (plan.supersede.includes(id)) {
          const p = planSupersede(updated, next, now, { movePin: false });
          updated = p.old;
          next = p.new;
        }
        put.push(updated);
      }
      await ctx.storage.applyGraphChanges({ put: [...put, next] }, journalFor(ctx, 'supersede', { classifier: true }));
      reportChanged(ctx, put.map((m) => m.id));
      return { memory: next, action: 'superseded' };
    }
  }
  for (const step of decidePolicy(options.policy, conflicts)) {
    if (step.type === 'merge') {
      const into = await ctx.storage.get(step.intoId);
      if (!into) continue;
      const merged: Memory = { ...into, importance: step.importance, lastAccessed: ctx.clock.now(), accessCount: into.accessCount + 1 };
      const delta = await ctx.storage.applyGraphChanges({ put: [merged], forget: [step.fromId] }, journalFor(ctx, 'merge', { from: step.fromId, into: step.intoId }));
      ctx.commit(delta);
      reportChanged(ctx, [step.fromId, step.intoId]);
      current = merged;
      action = 'merged';
    } else if (step.type === 'supersede') {
      await supersedeMemory(ctx, step.oldId, step.newId);
      if (action === 'stored') action = 'superseded';
      if (step.newId === current.id) current = (await ctx.storage.get(current.id)) ?? current;
    } else if (step.type === 'queue') {
      const existing = new Set((await ctx.storage.listConflicts('pending')).map(pendingKey));
      const record = pendingFromConflict({ a: { id: step.newId }, b: { id: step.oldId }, kind: step.kind, reason: step.reason, similarity: step.similarity }, ctx.ids.next(), ctx.clock.now());
      if (!existing.has(pendingKey(record))) await ctx.storage.applyGraphChanges({ conflicts: [record] });
      action = 'queued';
    }
  }
  return { memory: current, action };
}

/**
 * Marks what the write's updates made outdated: for each `update` conflict, the later event
 * (`createdAt`; the new memory on a tie) gets an `updates` link to the other, journaled as a link
 * (undo removes it), exported and synced with the memory. Recall then ranks it first and marks the
 * other `outdatedBy` (domain/current.ts). Under 'supersede' the policy replaces the older memory
 * outright, and under 'ignore' nothing was scanned.
 */
export async function markOutdated(ctx: Using<'graph' | 'rows'>, conflicts: readonly Conflict[]): Promise<void> {
  for (const c of conflicts) {
    if (c.kind !== 'update') continue;
    const { current, outdated } = currentOf(c.b, c.a);
    const [from, to] = await Promise.all([ctx.storage.get(current.id), ctx.storage.get(outdated.id)]);
    // Gone since (merged away), or already replaced: nothing to mark.
    if (!from || !to || from.supersededBy !== '' || to.supersededBy !== '') continue;
    // A less trusted memory never outdates a more trusted one (a page's content script cannot
    // push the person's own fact down): the pair stays a reported conflict.
    if (!mayOutdate(from, to)) continue;
    await link(ctx, from.id, to.id, UPDATES_REL);
  }
}

export async function listPendingConflicts(ctx: Using<'graph' | 'rows'>, options: { limit?: number } = {}): Promise<PendingConflictView[]> {
  requireOpen(ctx);
  const o = checkObject<{ limit?: number }>(options, 'options');
  checkKnownKeys(o, new Set(['limit']), 'options');
  const limit = o.limit === undefined ? 100 : checkInteger(o.limit, 'limit', 0, 10_000);
  return (await reviewable(ctx)).slice(0, limit);
}

/**
 * The pending records a person can decide, with both sides: the new one a memory or held in the
 * record (`proposed`: a sync conflict's losing edit), the old one a memory. What `syncStatus`
 * counts as waiting is this list too.
 */
export async function reviewable(ctx: Using<'graph' | 'rows'>): Promise<PendingConflictView[]> {
  const records = await ctx.storage.listConflicts('pending');
  const memories = await ctx.storage.getMany([...new Set(records.flatMap((r) => (r.proposed ? [r.oldId] : [r.newId, r.oldId])))]);
  return records
    .map((r) => {
      const { proposed, ...rest } = r;
      return { ...rest, ...(proposed ? { held: true as const } : {}), new: proposed ? proposed.memory : (memories.get(r.newId) ?? null), old: memories.get(r.oldId) ?? null };
    })
    .filter((r) => r.new !== null && r.old !== null);
}

/** Stores a held memory the person chose to keep: with its own vector when the store's model made it. */
async function storeProposed(ctx: Using<'rows'>, proposed: ProposedMemory): Promise<void> {
  if (await ctx.storage.get(proposed.memory.id)) return;
  const own = proposed.vector && proposed.model === ctx.embedder.id && proposed.vector.length === ctx.embedder.dim;
  const [vector] = own ? [proposed.vector!] : await embed(ctx, [proposed.memory.text]);
  const now = ctx.clock.now();
  const memory = { ...proposed.memory, lastAccessed: now, accessCount: 0 };
  ctx.commit(await ctx.storage.insert([memory], [vector!], journalFor(ctx, 'remember', { from: 'review' })));
  reportChanged(ctx, [memory.id]);
}

/** Applies the user's decision on a pending conflict, and settles records it makes moot. */
export async function resolveConflict(ctx: Using<'graph' | 'rows'>, id: string, resolution: string): Promise<PendingConflict> {
  requireOpen(ctx);
  checkId(id);
  checkResolution(resolution);
  const record = await ctx.storage.getConflict(id);
  if (!record) throw new MemoryError('NOT_FOUND', `No pending conflict with id ${JSON.stringify(id)}`, { id });
  const now = ctx.clock.now();
  const { record: resolved, mutations } = applyResolution(record, resolution, now);
  if (mutations.some((m) => m.type === 'insert')) requireVectors(ctx);
  for (const m of mutations) {
    if (m.type === 'insert') await storeProposed(ctx, m.proposed);
    else if (m.type === 'supersede') await supersedeMemory(ctx, m.oldId, m.newId);
    else if (m.type === 'link') await link(ctx, m.from, m.to, m.rel);
    else if (m.type === 'unlink') await unlink(ctx, m.from, m.to, m.rel);
  }
  const forget = mutations.filter((m) => m.type === 'forget').map((m) => (m as { id: string }).id);
  const moot = supersededRecords(await ctx.storage.listConflicts('pending'), mutations, id).map((r) => ({
    ...r,
    status: 'resolved' as const,
    resolution: 'keep_both' as const,
    resolvedAt: now,
  }));
  const delta = await ctx.storage.applyGraphChanges({ forget, conflicts: [resolved, ...moot] }, journalFor(ctx, 'resolve', { conflict: id, resolution }));
  if (delta.removedLabels.length) ctx.commit(delta);
  reportChanged(ctx, forget);
  return resolved;
}
