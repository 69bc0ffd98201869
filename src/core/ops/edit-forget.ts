/** Changing and deleting one memory: `edit` (re-embedded when its text changes) and `forget`. */
import type { EditChanges } from '../api.ts';
import { embedOne, journalFor, reportChanged, requireOpen, requireVectors, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import { contentHash } from '../domain/text.ts';
import type { Memory } from '../types.ts';
import { checkId, checkMemoryInput, checkObject, checkText, checkValidity, checkCreatedAt } from '../domain/validate.ts';

/** Hard delete; false when there is no such memory. */
export async function forget(ctx: Using<'rows'>, id: string): Promise<boolean> {
  requireOpen(ctx);
  checkId(id);
  const removed = await ctx.storage.remove(id, journalFor(ctx, 'forget'));
  if (!removed) return false;
  ctx.commit(removed);
  reportChanged(ctx, [id]);
  return true;
}

/**
 * Changes fields in place, keeping id, links and access tracking. The write is conditional on
 * the memory being unchanged since it was read (retried a few times when something else wrote).
 */
export async function edit(ctx: Using<'rows'>, id: string, changes: EditChanges): Promise<Memory> {
  requireVectors(ctx);
  checkId(id);
  const raw = checkObject<EditChanges>(changes, 'changes');
  const { text: rawText, ...rest } = raw;
  const input = checkMemoryInput(rest, 'changes');
  if (input.onConflict !== undefined) throw invalid('onConflict applies to remember, not edit', { field: 'onConflict' });
  checkCreatedAt(input.createdAt, ctx.clock.now(), 'changes.createdAt');
  const text = rawText === undefined ? undefined : checkText(rawText);
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await ctx.storage.get(id);
    if (!current) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(id)}`, { id });
    const next: Memory = { ...current, ...input };
    if (text !== undefined && text !== current.text) {
      next.text = text;
      next.contentHash = await contentHash(text);
    }
    checkValidity(next.validFrom, next.validUntil);
    reportChanged(ctx, [id]);
    if (JSON.stringify(next) === JSON.stringify(current)) return current; // a no-op writes nothing
    const vector = next.text !== current.text ? await embedOne(ctx, next.text) : undefined;
    const result = await ctx.storage.replace(current, next, vector, journalFor(ctx, 'edit'));
    if (!result) continue; // changed underneath us: re-read and retry
    // A change without a new vector leaves the index as it was (an empty delta schedules no snapshot).
    if (result.added.length || result.removedLabels.length) ctx.commit(result);
    return next;
  }
  throw new MemoryError('STORAGE_FAILURE', `Memory ${id} kept changing during edit; try again`, { id });
}
