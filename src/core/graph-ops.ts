/**
 * The memory graph and contradictions against a store: typed links, supersede chains, the
 * conflict scan (vector neighbours, never a pairwise scan), policies at write time, and the
 * review queue that asks the user instead of resolving anything by itself.
 */
import { applyIndexDelta } from './archive/store-ops.ts';
import {
  CONFLICT_CANDIDATES,
  classifyIncoming,
  decidePolicy,
  detectConflicts,
  type Classifier,
  type ConflictPolicy,
  type ContradictionFn,
} from './conflicts.ts';
import { withClassifierConflicts } from './classifier-policy.ts';
import { MemoryError, invalid } from './errors.ts';
import {
  addLink,
  checkDepth,
  checkDirection,
  checkLinkRequest,
  checkRel,
  findPath,
  neighbors,
  planRestore,
  planSupersede,
  removeLinks,
  subgraph,
  type GraphReader,
  type NeighborsResult,
  type PathResult,
  type SubgraphResult,
} from './graph.ts';
import type { Clock, IdSource, JournalContext, MemoryStorage, VectorIndex } from './ports.ts';
import { applyResolution, checkResolution, pendingFromConflict, pendingKey, supersededRecords, type PendingConflict } from './review.ts';
import type { Conflict, Memory } from './types.ts';
import { checkId, checkInteger, checkKnownKeys, checkObject } from './validate.ts';

export interface GraphDeps {
  storage: MemoryStorage;
  index: VectorIndex;
  clock: Clock;
  ids: IdSource;
  /** Vector of a stored memory (for the conflict scan of existing memories). */
  vectorOf(id: string): Promise<Float32Array | undefined>;
  changed(generation: number): void;
  /** A journal context for one call (op and meta). */
  journal(op: string, meta?: Record<string, unknown>): JournalContext;
}

export function graphReader(storage: MemoryStorage): GraphReader {
  return {
    get: (ids) => storage.getMany(ids),
    outgoing: async (id) => (await storage.get(id))?.links ?? [],
    incoming: (id) => storage.incoming(id),
  };
}

async function must(storage: MemoryStorage, id: string, field: string): Promise<Memory> {
  const memory = await storage.get(checkId(id, field));
  if (!memory) throw new MemoryError('NOT_FOUND', `No memory with id ${JSON.stringify(id)}`, { id, field });
  return memory;
}

/** Adds `src → dst (rel)`; idempotent. Self-links and missing ends are rejected. */
export async function link(deps: GraphDeps, src: string, dst: string, rel?: string): Promise<{ added: boolean }> {
  const edge = checkLinkRequest(src, dst, rel === undefined ? 'related' : rel);
  const from = await must(deps.storage, edge.from, 'src');
  await must(deps.storage, edge.to, 'dst');
  const { links, added } = addLink(from.links, edge.to, edge.rel);
  if (added) await deps.storage.applyGraphChanges({ put: [{ ...from, links }] }, deps.journal('link', { src: edge.from, dst: edge.to, rel: edge.rel }));
  return { added };
}

/** Removes `src → dst` links (every rel, or one); returns how many were removed. */
export async function unlink(deps: GraphDeps, src: string, dst: string, rel?: string): Promise<number> {
  checkId(src, 'src');
  checkId(dst, 'dst');
  const relation = rel === undefined ? undefined : checkRel(rel);
  const from = await deps.storage.get(src);
  if (!from) return 0;
  const { links, removedRels } = removeLinks(from.links, dst, relation);
  if (removedRels.length) await deps.storage.applyGraphChanges({ put: [{ ...from, links }] }, deps.journal('unlink', { src, dst, removedRels }));
  return removedRels.length;
}

export async function graphNeighbors(
  deps: GraphDeps,
  id: string,
  options: { rel?: string; direction?: 'out' | 'in' | 'both'; depth?: number } = {},
): Promise<NeighborsResult> {
  const o = checkObject<typeof options>(options, 'options');
  checkKnownKeys(o, new Set(['rel', 'direction', 'depth']), 'options');
  await must(deps.storage, id, 'id');
  return neighbors(graphReader(deps.storage), id, {
    ...(o.rel === undefined ? {} : { rel: checkRel(o.rel) }),
    ...(o.direction === undefined ? {} : { direction: checkDirection(o.direction) }),
    ...(o.depth === undefined ? {} : { depth: checkDepth(o.depth) }),
  });
}

export async function graphSubgraph(deps: GraphDeps, ids: string[], options: { depth?: number } = {}): Promise<SubgraphResult> {
  if (!Array.isArray(ids)) throw invalid('ids must be an array', { field: 'ids' });
  ids.forEach((id) => checkId(id, 'ids'));
  return subgraph(graphReader(deps.storage), ids, options);
}

export async function graphPath(deps: GraphDeps, from: string, to: string, options: { maxDepth?: number } = {}): Promise<PathResult> {
  checkId(from, 'from');
  checkId(to, 'to');
  return findPath(graphReader(deps.storage), from, to, options);
}

/** `supersede(old, new)`: soft-deletes old (kept for audit and restore); the pin follows. */
export async function supersede(deps: GraphDeps, oldId: string, newId: string, options: { movePin?: boolean } = {}): Promise<{ ok: boolean; noop: boolean }> {
  const old = await must(deps.storage, oldId, 'oldId');
  const next = await must(deps.storage, newId, 'newId');
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
    cursor = await deps.storage.get(cursor.supersededBy);
  }
  const plan = planSupersede(old, next, deps.clock.now(), options);
  if (plan.noop) return { ok: true, noop: true };
  await deps.storage.applyGraphChanges({ put: [plan.old, plan.new], pinMoved: { [old.id]: plan.pinMoved } }, deps.journal('supersede', { oldId, newId, pinnedFrom: plan.pinMoved }));
  return { ok: true, noop: false };
}

/** Undoes a supersede: the memory is active again and gets its pin back if it had moved. */
export async function restore(deps: GraphDeps, id: string): Promise<{ restored: boolean; wasSupersededBy: string }> {
  checkId(id);
  const memory = await deps.storage.get(id);
  if (!memory || memory.supersededBy === '') return { restored: false, wasSupersededBy: '' };
  const superseder = (await deps.storage.get(memory.supersededBy)) ?? null;
  const plan = planRestore(memory, superseder, { pinnedFrom: await deps.storage.pinMoved(id) });
  if (!plan) return { restored: false, wasSupersededBy: '' };
  await deps.storage.applyGraphChanges(
    { put: plan.superseder ? [plan.memory, plan.superseder] : [plan.memory], pinMoved: { [id]: false } },
    deps.journal('restore', { supersederId: plan.supersederId }),
  );
  return { restored: true, wasSupersededBy: plan.supersederId };
}

/** The vector neighbours of a memory with their cosine (the conflict candidates). */
async function candidatesFor(deps: GraphDeps, vector: Float32Array, selfId?: string): Promise<{ memory: Memory; similarity: number }[]> {
  const found = deps.index.search(vector, Math.min(deps.index.size(), CONFLICT_CANDIDATES + 1));
  const rows = await deps.storage.getByLabels(found.map((h) => h.label));
  return found
    .map((h) => ({ memory: rows.get(h.label), similarity: h.similarity }))
    .filter((c): c is { memory: Memory; similarity: number } => c.memory !== undefined && c.memory.id !== selfId)
    .slice(0, CONFLICT_CANDIDATES);
}

export interface ConflictScanOptions {
  memoryId?: string;
  threshold?: number;
  contradictionFn?: ContradictionFn | null;
}

/**
 * Conflicts of one memory, or of the whole store: each memory's top vector neighbours are
 * checked (not all pairs), so a 10k-memory scan is 10k index searches.
 */
export async function findConflicts(deps: GraphDeps, options: ConflictScanOptions = {}): Promise<Conflict[]> {
  const o = checkObject<ConflictScanOptions>(options, 'options');
  checkKnownKeys(o, new Set(['memoryId', 'threshold', 'contradictionFn']), 'options');
  const scan = async (memory: Memory, vector: Float32Array): Promise<Conflict[]> =>
    detectConflicts(memory, await candidatesFor(deps, vector, memory.id), {
      ...(o.threshold === undefined ? {} : { threshold: o.threshold }),
      contradictionFn: o.contradictionFn ?? null,
    });
  if (o.memoryId !== undefined) {
    const memory = await must(deps.storage, o.memoryId, 'memoryId');
    const vector = await deps.vectorOf(memory.id);
    return vector ? scan(memory, vector) : [];
  }
  const out: Conflict[] = [];
  const seen = new Set<string>();
  await deps.storage.scanVectors(async (labels, vectors) => {
    const rows = await deps.storage.getByLabels(labels);
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
}

/** Scans the neighbours of a memory about to be (or just) written. */
export async function scanForWrite(deps: GraphDeps, memory: Memory, vector: Float32Array, options: WriteConflictOptions): Promise<Conflict[]> {
  if (options.policy === 'ignore') return [];
  const candidates = await candidatesFor(deps, vector, memory.id);
  const detected = await detectConflicts(memory, candidates, {
    ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    contradictionFn: options.contradictionFn ?? null,
    now: deps.clock.now(),
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
  deps: GraphDeps,
  memory: Memory,
  vector: Float32Array,
  conflicts: Conflict[],
  options: WriteConflictOptions,
): Promise<{ memory: Memory; action: 'stored' | 'merged' | 'superseded' | 'queued' }> {
  let current = memory;
  let action: 'stored' | 'merged' | 'superseded' | 'queued' = 'stored';
  if (options.classifier && options.policy === 'supersede') {
    // The seed-002 hook refines the decision: CONTRADICTION/UPDATE supersede, demote pins, inherit importance.
    const plan = await classifyIncoming(memory, await candidatesFor(deps, vector, memory.id), options.classifier);
    if (plan.supersede.length || plan.unpin.length) {
      const put: Memory[] = [];
      const now = deps.clock.now();
      let next: Memory = { ...memory, importance: plan.newImportance, pinned: memory.pinned || plan.pinNew };
      for (const id of new Set([...plan.supersede, ...plan.unpin])) {
        const old = (await deps.storage.get(id))!;
        let updated: Memory = plan.unpin.includes(id) ? { ...old, pinned: false } : old;
        if (plan.supersede.includes(id)) {
          const p = planSupersede(updated, next, now, { movePin: false });
          updated = p.old;
          next = p.new;
        }
        put.push(updated);
      }
      await deps.storage.applyGraphChanges({ put: [...put, next] }, deps.journal('supersede', { classifier: true }));
      return { memory: next, action: 'superseded' };
    }
  }
  for (const step of decidePolicy(options.policy, conflicts)) {
    if (step.type === 'merge') {
      const into = await deps.storage.get(step.intoId);
      if (!into) continue;
      const merged: Memory = { ...into, importance: step.importance, lastAccessed: deps.clock.now(), accessCount: into.accessCount + 1 };
      const delta = await deps.storage.applyGraphChanges({ put: [merged], forget: [step.fromId] }, deps.journal('merge', { from: step.fromId, into: step.intoId }));
      applyIndexDelta(deps.index, delta);
      deps.changed(delta.generation);
      current = merged;
      action = 'merged';
    } else if (step.type === 'supersede') {
      await supersede(deps, step.oldId, step.newId);
      if (action === 'stored') action = 'superseded';
      if (step.newId === current.id) current = (await deps.storage.get(current.id)) ?? current;
    } else if (step.type === 'queue') {
      const existing = new Set((await deps.storage.listConflicts('pending')).map(pendingKey));
      const record = pendingFromConflict({ a: { id: step.newId }, b: { id: step.oldId }, kind: step.kind, reason: step.reason, similarity: step.similarity }, deps.ids.next(), deps.clock.now());
      if (!existing.has(pendingKey(record))) await deps.storage.applyGraphChanges({ conflicts: [record] });
      action = 'queued';
    }
  }
  return { memory: current, action };
}

export async function listPendingConflicts(deps: GraphDeps, options: { limit?: number } = {}): Promise<(PendingConflict & { new: Memory | null; old: Memory | null })[]> {
  const o = checkObject<{ limit?: number }>(options, 'options');
  checkKnownKeys(o, new Set(['limit']), 'options');
  const limit = o.limit === undefined ? 100 : checkInteger(o.limit, 'limit', 0, 10_000);
  const records = (await deps.storage.listConflicts('pending')).slice(0, limit);
  const memories = await deps.storage.getMany([...new Set(records.flatMap((r) => [r.newId, r.oldId]))]);
  return records.map((r) => ({ ...r, new: memories.get(r.newId) ?? null, old: memories.get(r.oldId) ?? null }));
}

/** Applies the user's decision on a pending conflict, and settles records it makes moot. */
export async function resolveConflict(deps: GraphDeps, id: string, resolution: string): Promise<PendingConflict> {
  checkId(id);
  checkResolution(resolution);
  const record = await deps.storage.getConflict(id);
  if (!record) throw new MemoryError('NOT_FOUND', `No pending conflict with id ${JSON.stringify(id)}`, { id });
  const now = deps.clock.now();
  const { record: resolved, mutations } = applyResolution(record, resolution, now);
  for (const m of mutations) {
    if (m.type === 'supersede') await supersede(deps, m.oldId, m.newId);
    else if (m.type === 'link') await link(deps, m.from, m.to, m.rel);
  }
  const forget = mutations.filter((m) => m.type === 'forget').map((m) => (m as { id: string }).id);
  const moot = supersededRecords(await deps.storage.listConflicts('pending'), mutations, id).map((r) => ({
    ...r,
    status: 'resolved' as const,
    resolution: 'keep_both' as const,
    resolvedAt: now,
  }));
  const delta = await deps.storage.applyGraphChanges({ forget, conflicts: [resolved, ...moot] }, deps.journal('resolve', { conflict: id, resolution }));
  if (delta.removedLabels.length) {
    applyIndexDelta(deps.index, delta);
    deps.changed(delta.generation);
  }
  return resolved;
}
