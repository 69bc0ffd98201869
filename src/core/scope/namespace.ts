/**
 * Namespace scopes: a connection opened with `scope: { namespace: 'x' }` lives inside the tag
 * `ns:x`. Everything it writes carries the tag and no other `ns:` tag (it cannot place a memory
 * in another namespace); it cannot change a memory that lacks the tag (PERMISSION_DENIED); its
 * reads only see memories that have it. Methods that work on the whole store (export, import,
 * undo, maintenance, counts…) are refused with PERMISSION_DENIED, and so is anything that
 * cannot be kept inside the namespace (a conflict policy that would change or reveal memories
 * outside it, a `tag` filter other than the namespace's, `expand` in a pack). Which method is
 * which is the `namespace` column of `SCOPE_POLICY` (policy.ts).
 *
 * The memories outside are invisible rather than forbidden: `get` answers null, and a write that
 * names an id the connection cannot see is refused the same way whether the id exists or not.
 */
import { MemoryError, invalid } from '../errors.ts';
import type { MemoryApi } from '../api.ts';
import type { Conflict, Memory, RecallHit, RememberResult } from '../types.ts';
import type { NeighborsResult, PathResult, SubgraphResult } from '../domain/graph.ts';
import type { Suggestion } from '../domain/suggest.ts';
import { SCOPE_POLICY, type ApiMethod } from './policy.ts';

const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The tag of a namespace. @throws MemoryError INVALID_ARGUMENT for a malformed name. */
export function namespaceTag(namespace: unknown): string {
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw invalid('scope.namespace must be 1–64 letters, digits, dots, dashes or underscores, starting with a letter or digit', { field: 'scope.namespace' });
  }
  return `ns:${namespace}`;
}

function denied(method: string, why: string, details: Record<string, unknown> = {}): MemoryError {
  return new MemoryError('PERMISSION_DENIED', `This connection is scoped to a namespace: ${why}`, { method, ...details });
}

type Options = Record<string, unknown>;
const optionsAt = (args: unknown[], i: number): Options => ({ ...((args[i] as object | null | undefined) ?? {}) });

/** Writes may report conflicts with memories of the namespace only, and change nothing else. */
function conflictPolicy(method: string, value: unknown): 'ignore' | 'warn' {
  if (value === undefined) return 'warn';
  if (value === 'ignore' || value === 'warn') return value;
  throw denied(method, `onConflict ${JSON.stringify(value)} could change or reveal memories outside it; use 'warn' or 'ignore'`, { field: 'onConflict' });
}

/** Whether a tag names a namespace, however it is spelled (case, width, surrounding blanks). */
export function isNamespaceTag(tag: string): boolean {
  return tag.normalize('NFKC').trim().toLowerCase().startsWith('ns:');
}

/** The tags of a write, with the namespace's own tag added; another namespace's tag is refused. */
function withTag(method: string, tags: unknown, tag: string): unknown {
  if (tags === undefined) return [tag];
  if (!Array.isArray(tags)) return tags; // the store rejects it with INVALID_ARGUMENT
  const foreign = tags.find((t) => typeof t === 'string' && t !== tag && isNamespaceTag(t));
  if (foreign !== undefined) throw denied(method, `it cannot write the tag ${JSON.stringify(foreign)} (memories stay in ${JSON.stringify(tag)})`, { field: 'tags', tag: foreign });
  return tags.includes(tag) ? tags : [...tags, tag];
}

function tagItem(method: string, item: unknown, tag: string): unknown {
  if (typeof item === 'string') return { text: item, tags: [tag], onConflict: 'warn' };
  if (item === null || typeof item !== 'object') return item;
  const o = item as Options;
  return { ...o, tags: withTag(method, o.tags, tag), ...('onConflict' in o ? { onConflict: conflictPolicy(method, o.onConflict) } : {}) };
}

/** One namespaced call: checks the targets, rewrites the arguments, filters what comes back. */
export async function namespacedCall(store: MemoryApi, tag: string, method: ApiMethod, args: unknown[], run: (args: unknown[]) => Promise<unknown>): Promise<unknown> {
  const rule = SCOPE_POLICY[method].namespace;
  if (rule === 'refused') throw denied(method, `${method} works on the whole store and is not available`);
  if (rule === 'free') return run(args);

  const has = (m: Memory | null | undefined): m is Memory => !!m && Array.isArray(m.tags) && m.tags.includes(tag);
  const visible = async (id: unknown): Promise<boolean> => typeof id === 'string' && has(await store.get(id));
  const requireVisible = async (...ids: unknown[]): Promise<void> => {
    for (const id of ids) {
      if (!(await visible(id))) throw denied(method, `memory ${JSON.stringify(id)} is not in it`, { id: typeof id === 'string' ? id : null });
    }
  };
  const keepConflicts = (conflicts: Conflict[]): Conflict[] => conflicts.filter((c) => has(c.a) && has(c.b));
  const ownTagFilter = (options: Options): Options => {
    if (options.tag !== undefined && options.tag !== tag) throw denied(method, `its recalls filter on the tag ${JSON.stringify(tag)}`, { field: 'tag' });
    return { ...options, tag };
  };

  switch (method) {
    case 'remember': {
      const o = optionsAt(args, 1);
      args[1] = { ...o, tags: withTag(method, o.tags, tag), onConflict: conflictPolicy(method, o.onConflict) };
      const result = (await run(args)) as RememberResult;
      return { ...result, conflicts: keepConflicts(result.conflicts) };
    }
    case 'rememberMany': {
      if (Array.isArray(args[0])) args[0] = args[0].map((item: unknown) => tagItem(method, item, tag));
      const o = optionsAt(args, 1);
      args[1] = { ...o, onConflict: conflictPolicy(method, o.onConflict) };
      const results = (await run(args)) as RememberResult[];
      return results.map((r) => ({ ...r, conflicts: keepConflicts(r.conflicts) }));
    }
    case 'edit': {
      await requireVisible(args[0]);
      const o = args[1];
      if (o !== null && typeof o === 'object' && 'tags' in o) args[1] = { ...o, tags: withTag(method, (o as Options).tags, tag) };
      return run(args);
    }
    case 'forget':
      await requireVisible(args[0]);
      return run(args);
    case 'restore': {
      // A restore changes the memory that superseded this one too (its link, its pin).
      await requireVisible(args[0]);
      const by = (await store.get(args[0] as string))?.supersededBy;
      if (by) await requireVisible(by);
      return run(args);
    }
    case 'link':
    case 'unlink':
    case 'supersede':
      await requireVisible(args[0], args[1]);
      return run(args);
    case 'history':
      await requireVisible(args[0]);
      return run(args);
    case 'get': {
      const memory = (await run(args)) as Memory | null;
      return has(memory) ? memory : null;
    }
    case 'recall': {
      args[1] = ownTagFilter(optionsAt(args, 1));
      // `expand` may bring linked neighbours from outside.
      return ((await run(args)) as RecallHit[]).filter((hit) => has(hit.memory));
    }
    case 'recallPack': {
      const o = ownTagFilter(optionsAt(args, 1));
      if (o.expand !== undefined && o.expand !== false && o.expand !== 0) throw denied(method, 'expand could pack linked memories from outside it', { field: 'expand' });
      args[1] = o;
      return run(args);
    }
    case 'suggest':
      return ((await run(args)) as Suggestion[]).filter((s) => has(s.memory));
    case 'findConflicts': {
      const o = optionsAt(args, 0);
      if (o.memoryId !== undefined) await requireVisible(o.memoryId);
      return keepConflicts((await run(args)) as Conflict[]);
    }
    case 'neighbors': {
      await requireVisible(args[0]);
      const result = (await run(args)) as NeighborsResult;
      return { results: result.results.filter((r) => has(r.memory)), dangling: result.dangling.filter((e) => e.from === args[0]) };
    }
    case 'subgraph': {
      if (!Array.isArray(args[0])) return run(args); // the store rejects it
      await requireVisible(...(args[0] as unknown[]));
      const result = (await run(args)) as SubgraphResult;
      const nodes = result.nodes.filter(has);
      const ids = new Set(nodes.map((m) => m.id));
      const dangling = new Set(result.dangling);
      const edges = result.edges.filter(([src, dst]) => ids.has(src) && (ids.has(dst) || dangling.has(dst)));
      const kept = new Set(edges.map(([, dst]) => dst));
      return { nodes, edges, dangling: result.dangling.filter((id) => kept.has(id)) };
    }
    case 'findPath': {
      await requireVisible(args[0], args[1]);
      const result = (await run(args)) as PathResult;
      for (const step of result.path) {
        if (!(await visible(step.id))) return { found: false, length: -1, path: [] } satisfies PathResult;
      }
      return result;
    }
    case 'listRecent':
      return listInNamespace(store, optionsAt(args, 0), has);
  }
  throw denied(method, `${method} is not available`);
}

/** `listRecent` inside the namespace: pages through the store with its keyset cursor until `limit` are found. */
async function listInNamespace(store: MemoryApi, options: Options, has: (m: Memory) => boolean): Promise<Memory[]> {
  const limit = options.limit === undefined ? 20 : options.limit;
  // Let the store validate every option (and the limit) once, on a first page of the asked size.
  const first = await store.listRecent({ ...options, limit } as Parameters<MemoryApi['listRecent']>[0]);
  const found = first.filter(has);
  const wanted = limit as number;
  let page = first;
  const batch = Math.max(wanted * 4, 100);
  while (found.length < wanted && page.length > 0 && page.length >= (page === first ? wanted : batch)) {
    const last = page[page.length - 1]!;
    page = await store.listRecent({ ...options, limit: batch, before: last.createdAt, beforeId: last.id } as Parameters<MemoryApi['listRecent']>[0]);
    found.push(...page.filter(has));
  }
  return found.slice(0, wanted);
}
