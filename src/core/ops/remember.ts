/**
 * Writing memories: validate everything first, embed, make room under the quota, write each
 * batch in one storage transaction, commit the index, then apply the conflict policy.
 */
import { checkPolicy, type ConflictPolicy } from '../domain/conflicts.ts';
import { embed, journalFor, reportChanged, requireVectors, type Using } from '../context.ts';
import { evictionCandidates } from '../domain/decay.ts';
import { MemoryError, invalid, throwIfAborted } from '../errors.ts';
import { contentHash } from '../domain/text.ts';
import type { LongRunOptions, Memory, MemoryInput, RememberItem, RememberManyOptions, RememberResult } from '../types.ts';
import { checkCreatedAt, checkInteger, checkKnownKeys, checkMemoryInput, checkObject, checkText, checkValidity, type CheckedMemoryInput } from '../domain/validate.ts';
import { applyWritePolicy, judgeFor, markOutdated, scanForWrite } from './conflicts.ts';

const MANY_KEYS = new Set(['batchSize', 'signal', 'onProgress', 'onConflict', 'judge']);

/** A new memory row for validated input (fresh id, both timestamps `now`). */
export async function buildMemory(ctx: Using, text: string, input: CheckedMemoryInput, now: number): Promise<Memory> {
  const memory: Memory = {
    id: ctx.ids.next(),
    text,
    type: input.type ?? 'semantic',
    tags: input.tags ?? [],
    importance: input.importance ?? 0.5,
    createdAt: input.createdAt ?? now,
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
    surfacesWhen: input.surfacesWhen ?? [],
  };
  checkValidity(memory.validFrom, memory.validUntil);
  return memory;
}

function validateItem(item: unknown, where: string, now: number): { text: string; input: CheckedMemoryInput } {
  if (typeof item === 'string') return { text: checkText(item, where), input: {} };
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw invalid(`${where} must be a string or an object with a text field`, { field: where });
  }
  const { text, ...rest } = item as RememberItem;
  const input = checkMemoryInput(rest, where);
  // 'raise' must be decided before anything is written, and a batch writes as it goes: refused
  // per item as for the whole call (use remember() for one memory that must not conflict).
  if (input.onConflict === 'raise') throw invalid(`${where}.onConflict 'raise' is not supported by rememberMany; use remember()`, { field: `${where}.onConflict` });
  // Checked here, for every item, before the first batch is written (not per batch).
  checkValidity(input.validFrom ?? 0, input.validUntil ?? 0);
  checkCreatedAt(input.createdAt, now, `${where}.createdAt`);
  return { text: checkText(text, `${where}.text`), input };
}

/** Enforces the quota before a write of `incoming` memories: evict to the trash, or refuse. */
async function makeRoom(ctx: Using<'rows' | 'trash'>, incoming: number): Promise<void> {
  const quota = ctx.settings.quota!;
  if ((await ctx.storage.count()) + incoming <= quota.maxMemories) return;
  const plan = evictionCandidates(await ctx.storage.allMemories(), { ...quota, incoming, now: ctx.clock.now() });
  if (plan.rejected) {
    throw new MemoryError('STORAGE_QUOTA', `The store holds its maximum of ${quota.maxMemories} memories (${plan.outcome}); nothing was written`, {
      maxMemories: quota.maxMemories,
      outcome: plan.outcome,
      shortfall: plan.shortfall,
    });
  }
  if (plan.evict.length === 0) return;
  const evicted = plan.evict.map((m) => m.id);
  ctx.commit(await ctx.storage.moveToTrash(evicted, { ...journalFor(ctx, 'trash', { by: 'quota', policy: quota.policy }), actor: 'quota' }));
  reportChanged(ctx, evicted);
}

/** How one batch is written (all optional). */
export interface BatchWrite {
  /** The batch's vectors, already computed (else the batch is embedded here). */
  vectors?: Float32Array[];
  /** The caller already settled the quota for this write. */
  roomMade?: boolean;
  /**
   * The vectors are searchable at once (by exact scan) and go into the graph in the background,
   * while the next batch is written (core/services/deferred-index.ts).
   */
  deferIndex?: boolean;
}

/** Embeds (unless given vectors) and writes one batch; the index is updated after the transaction commits. */
export async function writeBatch(
  ctx: Using<'rows' | 'trash'>,
  prepared: { text: string; input: CheckedMemoryInput }[],
  options: LongRunOptions,
  { vectors: precomputed, roomMade = false, deferIndex = false }: BatchWrite = {},
): Promise<{ memories: Memory[]; vectors: Float32Array[] }> {
  const vectors = precomputed ?? (await embed(ctx, prepared.map((p) => p.text), options));
  if (ctx.settings.quota && !roomMade) await makeRoom(ctx, prepared.length);
  throwIfAborted(options.signal);
  const now = ctx.clock.now();
  const memories = await Promise.all(prepared.map((p) => buildMemory(ctx, p.text, p.input, now)));
  const written = await ctx.storage.insert(memories, vectors, journalFor(ctx, 'remember'));
  ctx.commit(written, deferIndex ? { deferred: true } : undefined);
  reportChanged(ctx, memories.map((m) => m.id));
  return { memories, vectors };
}

export async function remember(ctx: Using<'graph' | 'rows' | 'trash'>, text: string, options?: MemoryInput): Promise<RememberResult> {
  requireVectors(ctx);
  // The call's judge is a function, not a field of the memory (the arguments are plain copies here: boundary.ts).
  const proto: unknown = options !== null && typeof options === 'object' ? Object.getPrototypeOf(options) : undefined;
  const isOptions = !Array.isArray(options) && (proto === Object.prototype || proto === null);
  const { judge, ...fields } = (isOptions ? options : { judge: undefined }) as MemoryInput;
  const input = checkMemoryInput(isOptions ? fields : options);
  checkCreatedAt(input.createdAt, ctx.clock.now());
  const defaults = ctx.settings.conflicts;
  const policy = input.onConflict ?? defaults.policy;
  const settings = { ...defaults, policy, judgeRun: judgeFor(ctx, judge) };
  const prepared = { text: checkText(text), input };
  const [vector] = await embed(ctx, [prepared.text]);
  if (policy === 'raise') {
    // Scanned before writing: a rejected memory is neither stored nor indexed.
    const candidate = await buildMemory(ctx, prepared.text, input, ctx.clock.now());
    const conflicts = await scanForWrite(ctx, candidate, vector!, settings);
    if (conflicts.length) {
      throw new MemoryError('CONFLICT', `The memory conflicts with ${conflicts.length} existing one(s); nothing was stored`, {
        conflicts: conflicts.map((c) => ({ kind: c.kind, reason: c.reason, similarity: c.similarity, otherId: c.b.id, otherText: c.b.text.slice(0, 120) })),
      });
    }
  }
  const {
    memories: [memory],
  } = await writeBatch(ctx, [prepared], {}, { vectors: [vector!] });
  // 'raise' found nothing before the write; 'ignore' does not look.
  if (policy === 'raise' || policy === 'ignore') return { memory: memory!, conflicts: [], action: 'stored' };
  const conflicts = await scanForWrite(ctx, memory!, vector!, settings);
  // An update makes the older memory outdated under every policy that looks (the current truth first).
  if (policy !== 'supersede') await markOutdated(ctx, conflicts);
  // A classifier changes existing memories only under 'supersede' (see classifier-policy.ts).
  if (policy === 'warn') return { memory: memory!, conflicts, action: 'stored' };
  const outcome = await applyWritePolicy(ctx, memory!, vector!, conflicts, settings);
  return { memory: outcome.memory, conflicts, action: outcome.action };
}

export async function rememberMany(ctx: Using<'graph' | 'rows' | 'trash'>, items: (string | RememberItem)[], options?: RememberManyOptions): Promise<RememberResult[]> {
  requireVectors(ctx);
  if (!Array.isArray(items)) throw invalid('items must be an array', { field: 'items' });
  const opts = checkObject<RememberManyOptions>(options, 'options');
  checkKnownKeys(opts, MANY_KEYS, 'options');
  const batchSize = opts.batchSize === undefined ? 128 : checkInteger(opts.batchSize, 'batchSize', 1, 10_000);
  // Bulk ingestion scans for conflicts only when asked ('raise' is refused, as in the reference).
  const manyPolicy: ConflictPolicy = opts.onConflict === undefined ? 'ignore' : checkPolicy(opts.onConflict);
  if (manyPolicy === 'raise') throw invalid("rememberMany does not support onConflict 'raise'", { field: 'onConflict' });
  // All-or-nothing validation: one bad item rejects the call before anything is embedded.
  const checkedAt = ctx.clock.now();
  const prepared = items.map((item, i) => validateItem(item, `items[${i}]`, checkedAt));
  const defaults = ctx.settings.conflicts;
  // One judge budget for the whole call.
  const judgeRun = judgeFor(ctx, opts.judge);
  const total = prepared.length;
  const results: RememberResult[] = [];
  // The quota is settled for the whole call before the first write: 'reject' refuses it
  // whole, 'decay'/'lru' make room for all of it at once.
  if (ctx.settings.quota && total > 0) await makeRoom(ctx, total);
  opts.onProgress?.({ kind: 'write', done: 0, total });
  for (let start = 0; start < total; start += batchSize) {
    throwIfAborted(opts.signal, { written: results.length, total });
    const batch = prepared.slice(start, start + batchSize);
    const { memories: stored, vectors: batchVectors } = await writeBatch(
      ctx,
      batch,
      {
        ...(opts.signal ? { signal: opts.signal } : {}),
        onProgress: (e) => {
          if (e.kind === 'embed') opts.onProgress?.({ kind: 'embed', done: start + e.done, total });
        },
      },
      // A call of several batches: each batch's graph insertion overlaps the next one's writes.
      { roomMade: true, deferIndex: total > batchSize },
    );
    for (const [i, memory] of stored.entries()) {
      const policy = batch[i]!.input.onConflict ?? manyPolicy;
      if (policy === 'ignore') {
        results.push({ memory, conflicts: [], action: 'stored' });
        continue;
      }
      const settings = { ...defaults, policy, judgeRun };
      const v = batchVectors[i]!;
      const conflicts = await scanForWrite(ctx, memory, v, settings);
      if (policy !== 'supersede') await markOutdated(ctx, conflicts);
      const outcome = policy === 'warn' ? { memory, action: 'stored' as const } : await applyWritePolicy(ctx, memory, v, conflicts, settings);
      results.push({ memory: outcome.memory, conflicts, action: outcome.action });
    }
    opts.onProgress?.({ kind: 'write', done: results.length, total });
  }
  return results;
}
