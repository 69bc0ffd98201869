/**
 * The memory graph against a store: typed links, traversal (neighbours, subgraph, path) and
 * supersede chains. The graph logic itself is pure (`graph.ts`); here it meets storage.
 */
import { journalFor, reportChanged, requireOpen, type Using } from '../context.ts';
import { MemoryError, invalid } from '../errors.ts';
import {
  addLink,
  checkDepth,
  checkDirection,
  checkLinkRequest,
  checkRel,
  findPath as findGraphPath,
  neighbors as graphNeighbors,
  planRestore,
  planSupersede,
  removeLinks,
  storageGraphReader as graphReader,
  subgraph as graphSubgraph,
  type NeighborsResult,
  type PathResult,
  type SubgraphResult,
} from '../domain/graph.ts';
import type { MemoryRows } from '../ports.ts';
import type { Memory } from '../types.ts';
import { checkId, checkKnownKeys, checkObject } from '../domain/validate.ts';

/** The memory `id`, or NOT_FOUND naming the argument. */
export async function mustGet(storage: Pick<MemoryRows, 'get'>, id: string, field: string): Promise<Memory> {
  const memory = await storage.get(checkId(id, field));
  if (!memory) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(id)}`, { id, field });
  return memory;
}

/** Adds `src → dst (rel)`; idempotent. Self-links and missing ends are rejected. */
export async function link(ctx: Using<'graph' | 'rows'>, src: string, dst: string, rel?: string): Promise<{ added: boolean }> {
  requireOpen(ctx);
  const edge = checkLinkRequest(src, dst, rel === undefined ? 'related' : rel);
  const from = await mustGet(ctx.storage, edge.from, 'src');
  await mustGet(ctx.storage, edge.to, 'dst');
  const { links, added } = addLink(from.links, edge.to, edge.rel);
  if (added) await ctx.storage.applyGraphChanges({ put: [{ ...from, links }] }, journalFor(ctx, 'link', { src: edge.from, dst: edge.to, rel: edge.rel }));
  reportChanged(ctx, [src, dst]);
  return { added };
}

/** Removes `src → dst` links (every rel, or one); returns how many were removed. */
export async function unlink(ctx: Using<'graph' | 'rows'>, src: string, dst: string, rel?: string): Promise<number> {
  requireOpen(ctx);
  checkId(src, 'src');
  checkId(dst, 'dst');
  const relation = rel === undefined ? undefined : checkRel(rel);
  reportChanged(ctx, [src, dst]);
  const from = await ctx.storage.get(src);
  if (!from) return 0;
  const { links, removedRels } = removeLinks(from.links, dst, relation);
  if (removedRels.length) await ctx.storage.applyGraphChanges({ put: [{ ...from, links }] }, journalFor(ctx, 'unlink', { src, dst, removedRels }));
  return removedRels.length;
}

export async function neighbors(
  ctx: Using<'graph' | 'rows'>,
  id: string,
  options: { rel?: string; direction?: 'out' | 'in' | 'both'; depth?: number } = {},
): Promise<NeighborsResult> {
  requireOpen(ctx);
  const o = checkObject<typeof options>(options, 'options');
  checkKnownKeys(o, new Set(['rel', 'direction', 'depth']), 'options');
  await mustGet(ctx.storage, id, 'id');
  return graphNeighbors(graphReader(ctx.storage), id, {
    ...(o.rel === undefined ? {} : { rel: checkRel(o.rel) }),
    ...(o.direction === undefined ? {} : { direction: checkDirection(o.direction) }),
    ...(o.depth === undefined ? {} : { depth: checkDepth(o.depth) }),
  });
}

export async function subgraph(ctx: Using<'graph' | 'rows'>, ids: string[], options: { depth?: number } = {}): Promise<SubgraphResult> {
  requireOpen(ctx);
  if (!Array.isArray(ids)) throw invalid('ids must be an array', { field: 'ids' });
  ids.forEach((id) => checkId(id, 'ids'));
  return graphSubgraph(graphReader(ctx.storage), ids, options);
}

export async function findPath(ctx: Using<'graph' | 'rows'>, from: string, to: string, options: { maxDepth?: number } = {}): Promise<PathResult> {
  requireOpen(ctx);
  checkId(from, 'from');
  checkId(to, 'to');
  return findGraphPath(graphReader(ctx.storage), from, to, options);
}

/** `supersede(old, new)`: soft-deletes old (kept for audit and restore); the pin follows. */
export async function supersede(ctx: Using<'graph' | 'rows'>, oldId: string, newId: string): Promise<{ ok: boolean; noop: boolean }> {
  requireOpen(ctx);
  return supersedeMemory(ctx, oldId, newId);
}

/** `supersede` for the store's own use: `movePin: false` keeps the pin where it is (reflection). */
export async function supersedeMemory(ctx: Using<'graph' | 'rows'>, oldId: string, newId: string, options: { movePin?: boolean } = {}): Promise<{ ok: boolean; noop: boolean }> {
  const old = await mustGet(ctx.storage, oldId, 'oldId');
  const next = await mustGet(ctx.storage, newId, 'newId');
  // Walk the new memory's chain: superseding by a memory that old (transitively) replaced is a cycle.
  let cursor: Memory | undefined = next;
  for (let hops = 0; cursor && cursor.supersededBy !== '' && hops < 1000; hops++) {
    if (cursor.supersededBy === old.id) {
      throw invalid(`Cycle: ${JSON.stringify(next.id)} is already superseded (through its chain) by ${JSON.stringify(old.id)}`, {
        field: 'newId',
        oldId,
        newId,
      });
    }
    cursor = await ctx.storage.get(cursor.supersededBy);
  }
  reportChanged(ctx, [oldId, newId]);
  const plan = planSupersede(old, next, ctx.clock.now(), options);
  if (plan.noop) return { ok: true, noop: true };
  await ctx.storage.applyGraphChanges({ put: [plan.old, plan.new], pinMoved: { [old.id]: plan.pinMoved } }, journalFor(ctx, 'supersede', { oldId, newId, pinnedFrom: plan.pinMoved }));
  return { ok: true, noop: false };
}

/** Undoes a supersede: the memory is active again and gets its pin back if it had moved. */
export async function restore(ctx: Using<'graph' | 'rows'>, id: string): Promise<{ restored: boolean; wasSupersededBy: string }> {
  requireOpen(ctx);
  checkId(id);
  reportChanged(ctx, [id]);
  const memory = await ctx.storage.get(id);
  if (!memory || memory.supersededBy === '') return { restored: false, wasSupersededBy: '' };
  const superseder = (await ctx.storage.get(memory.supersededBy)) ?? null;
  const plan = planRestore(memory, superseder, { pinnedFrom: await ctx.storage.pinMoved(id) });
  if (!plan) return { restored: false, wasSupersededBy: '' };
  await ctx.storage.applyGraphChanges(
    { put: plan.superseder ? [plan.memory, plan.superseder] : [plan.memory], pinMoved: { [id]: false } },
    journalFor(ctx, 'restore', { supersederId: plan.supersederId }),
  );
  return { restored: true, wasSupersededBy: plan.supersederId };
}
