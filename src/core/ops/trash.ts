/** The trash: memories moved aside by prune, quota eviction or the user, restorable until purged. */
import type { TrashPurgeOptions } from '../api.ts';
import { embedOne, journalFor, reportChanged, requireOpen, requireVectors, type Using } from '../context.ts';
import { invalid } from '../errors.ts';
import type { TrashEntry } from '../ports.ts';
import type { Memory } from '../types.ts';
import { checkId, checkInteger, checkKnownKeys, checkObject } from '../domain/validate.ts';

export async function trashList(ctx: Using<'trash'>): Promise<TrashEntry[]> {
  requireOpen(ctx);
  return ctx.storage.listTrash();
}

/** Brings the newest trashed copy of `id` back (re-embedded when it was trashed without its vector). */
export async function trashRestore(ctx: Using<'rows' | 'trash'>, id: string): Promise<Memory | null> {
  requireVectors(ctx);
  checkId(id);
  const journal = { ...journalFor(ctx, 'restore_trash'), actor: 'trash' };
  const result = await ctx.storage.restoreFromTrash(id, journal);
  if (!result) return null;
  reportChanged(ctx, [id]);
  if ('needsVector' in result) {
    const vector = await embedOne(ctx, result.needsVector.text);
    const written = await ctx.storage.insert([result.needsVector], [vector], journal);
    ctx.commit(written);
    await ctx.storage.purgeTrash({ id });
    return result.needsVector;
  }
  ctx.commit(result.delta);
  return result.memory;
}

/** Irreversible: one id, entries older than `olderThanDays`, or everything. */
export async function trashPurge(ctx: Using<'trash'>, options?: TrashPurgeOptions): Promise<number> {
  requireOpen(ctx);
  const o = checkObject<TrashPurgeOptions>(options, 'options');
  checkKnownKeys(o, new Set(['id', 'olderThanDays']), 'options');
  if (o.id !== undefined && o.olderThanDays !== undefined) throw invalid('Give id or olderThanDays, not both', { field: 'olderThanDays' });
  if (o.id !== undefined) return ctx.storage.purgeTrash({ id: checkId(o.id) });
  if (o.olderThanDays !== undefined) {
    const days = checkInteger(o.olderThanDays, 'olderThanDays', 0);
    return ctx.storage.purgeTrash({ before: ctx.clock.now() - days * 86_400 });
  }
  return ctx.storage.purgeTrash({});
}
