/** Plain reads of memories: one by id, or a page of the newest (no touch). */
import { requireOpen, type Using } from '../context.ts';
import type { ListOptions, Memory } from '../types.ts';
import { checkBoolean, checkId, checkInteger, checkKnownKeys, checkObject, checkTimestamp } from '../domain/validate.ts';

const LIST_KEYS = new Set(['limit', 'includeSuperseded', 'includeExpired', 'before', 'beforeId']);

export async function get(ctx: Using<'rows'>, id: string): Promise<Memory | null> {
  requireOpen(ctx);
  checkId(id);
  return (await ctx.storage.get(id)) ?? null;
}

/** Newest first, with a keyset cursor (`before`, `beforeId`) for the next page. */
export async function listRecent(ctx: Using<'rows'>, options?: ListOptions): Promise<Memory[]> {
  requireOpen(ctx);
  const opts = checkObject<ListOptions>(options, 'options');
  checkKnownKeys(opts, LIST_KEYS, 'options');
  return ctx.storage.list({
    limit: opts.limit === undefined ? 20 : checkInteger(opts.limit, 'limit', 0),
    ...(opts.before === undefined ? {} : { before: checkTimestamp(opts.before, 'before') }),
    ...(opts.beforeId === undefined ? {} : { beforeId: checkId(opts.beforeId, 'beforeId') }),
    includeSuperseded: opts.includeSuperseded === undefined ? false : checkBoolean(opts.includeSuperseded, 'includeSuperseded'),
    includeExpired: opts.includeExpired === undefined ? false : checkBoolean(opts.includeExpired, 'includeExpired'),
    now: ctx.clock.now(),
  });
}
