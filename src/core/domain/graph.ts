/**
 * The memory graph, pure: the link vocabulary, link validation and editing, and the traversals
 * (`neighbors`, `subgraph`, `findPath`, recall expansion) over an abstract async adjacency port.
 * No storage here: the store supplies a {@link GraphReader} (outgoing edges come from each
 * memory's `links`, incoming edges from an edge index it maintains) and applies the plans.
 *
 * Semantics follow AI-Houkai (`link`/`unlink`/`neighbors`/`subgraph`/`supersede`/
 * `restore`, curation `find_path`, recall's link expansion) and the linking proposal,
 * with the edge kinds of the topology request (seed 003) added to the vocabulary.
 */
import { invalid } from '../errors.ts';
import { checkBoolean, checkId, checkObject } from './validate.ts';
import type { Link, Memory } from '../types.ts';

// ---------------------------------------------------------------------------------------------
// Vocabulary and validation
// ---------------------------------------------------------------------------------------------

/**
 * Relations the engine itself emits or documents. AI-Houkai's `LINK_RELS` (`related`, `refines`,
 * `derived_from`, `example_of`, `contradicts`, `supersedes`) plus seed 003's edge kinds (`causes`,
 * `supports`, `promoted_from`) and `updates` (a newer memory holds the current value of an
 * older one's fact: domain/current.ts). "`rel` is a string, not an enum, so users may add
 * their own", so any other non-blank rel is accepted too (see {@link checkRel}).
 */
export const LINK_VOCABULARY = [
  'supersedes',
  'refines',
  'derived_from',
  'example_of',
  'contradicts',
  'related',
  'causes',
  'supports',
  'promoted_from',
  'updates',
] as const;
export type LinkRel = (typeof LINK_VOCABULARY)[number];

/** Longest accepted `rel`, in UTF-16 units. */
export const MAX_REL_LENGTH = 64;

/** The default relation of `link(src, dst)` (reference: `rel="related"`). */
export const DEFAULT_REL: LinkRel = 'related';

/** Traversal directions (reference `DIRECTIONS`). */
export const DIRECTIONS = ['out', 'in', 'both'] as const;
export type Direction = (typeof DIRECTIONS)[number];

// Control characters (C0, DEL, C1) and the line/paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/** True when `rel` is one of {@link LINK_VOCABULARY}. */
export function isVocabularyRel(rel: string): rel is LinkRel {
  return (LINK_VOCABULARY as readonly string[]).includes(rel);
}

/**
 * Validates a relation name: a string, not blank, without control characters, at most
 * {@link MAX_REL_LENGTH} characters. It is returned unchanged (no trimming: `rel` is an identifier
 * and is compared exactly). Throws INVALID_ARGUMENT naming `field`.
 */
export function checkRel(rel: unknown, field = 'rel'): string {
  if (typeof rel !== 'string') throw invalid(`${field} must be a string — got ${JSON.stringify(rel)}`, { field });
  if (rel.trim().length === 0) throw invalid(`${field} must not be blank`, { field });
  if (CONTROL.test(rel)) throw invalid(`${field} must not contain control characters`, { field });
  if (rel.length > MAX_REL_LENGTH) {
    throw invalid(`${field} must be at most ${MAX_REL_LENGTH} characters — got ${rel.length}`, { field, limit: MAX_REL_LENGTH });
  }
  return rel;
}

export function checkDirection(value: unknown, field = 'direction'): Direction {
  if (typeof value !== 'string' || !(DIRECTIONS as readonly string[]).includes(value)) {
    throw invalid(`${field} must be one of: ${DIRECTIONS.join(', ')} — got ${JSON.stringify(value)}`, { field });
  }
  return value as Direction;
}

/**
 * A traversal depth: a whole number. Values ≤ 0 are accepted and mean "no hops" (the reference:
 * `neighbors(depth ≤ 0) → []`, `subgraph(depth=0)` → the seeds only).
 */
export function checkDepth(value: unknown, field = 'depth'): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalid(`${field} must be a whole number — got ${JSON.stringify(value)}`, { field });
  }
  return Math.max(0, value);
}

function checkOptions(value: unknown, field: string, allowed: readonly string[]): Record<string, unknown> {
  if (value === undefined) return {};
  checkObject(value, field); // a plain object (not a Date or a Map)
  for (const key of Object.keys(value as object)) {
    if (!allowed.includes(key)) throw invalid(`${field} has an unknown field ${JSON.stringify(key)}`, { field, key });
  }
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Link editing (pure plans for `link` / `unlink`)
// ---------------------------------------------------------------------------------------------

/** One directed edge `from → to`. */
export interface Edge {
  from: string;
  to: string;
  rel: string;
}

/**
 * Validates a `link(src, dst, rel)` call before the store looks the endpoints up: ids non-empty,
 * `rel` valid, and no self-link (reference: "Self-link → ValueError"; here INVALID_ARGUMENT).
 * The store then throws NOT_FOUND for a missing src or dst ("no dangling edges via the API").
 */
export function checkLinkRequest(srcId: unknown, dstId: unknown, rel: unknown = DEFAULT_REL): Edge {
  const from = checkId(srcId, 'srcId');
  const to = checkId(dstId, 'dstId');
  const checkedRel = checkRel(rel);
  if (from === to) throw invalid('Cannot link a memory to itself', { field: 'dstId', id: from });
  return { from, to, rel: checkedRel };
}

/**
 * `links` with `{to, rel}` appended, unless that exact pair is already there (reference: "Idempotent
 * per (dst, rel)"). Returns the new array (the input is not mutated) and whether an edge was added.
 */
export function addLink(links: readonly Link[], to: string, rel: string): { links: Link[]; added: boolean } {
  if (links.some((l) => l.to === to && l.rel === rel)) return { links: links.slice(), added: false };
  return { links: [...links, { to, rel }], added: true };
}

/**
 * `links` without the edges to `to` (all of them when `rel` is undefined, reference
 * `unlink(rel=None)`), and the removed rels in their stored order (journaled as `removed_rels`, so
 * an undo can re-link each).
 */
export function removeLinks(links: readonly Link[], to: string, rel?: string): { links: Link[]; removedRels: string[] } {
  const removedRels: string[] = [];
  const kept: Link[] = [];
  for (const l of links) {
    if (l.to === to && (rel === undefined || l.rel === rel)) removedRels.push(l.rel);
    else kept.push(l);
  }
  return { links: kept, removedRels };
}

/** The edge rows of one memory's outgoing links (for an edge index keyed on `to`). */
export function edgesOf(memory: Pick<Memory, 'id' | 'links'>): Edge[] {
  return memory.links.map((l) => ({ from: memory.id, to: l.to, rel: l.rel }));
}

/**
 * What an edge index must change when a memory's links go from `before` to `after` (either may be
 * absent: a new or a deleted memory). Duplicated `{to, rel}` pairs count once.
 */
export function diffLinks(
  id: string,
  before: readonly Link[] | null | undefined,
  after: readonly Link[] | null | undefined,
): { added: Edge[]; removed: Edge[] } {
  const key = (l: Link): string => `${l.rel}\u0000${l.to}`;
  const b = new Map((before ?? []).map((l) => [key(l), l]));
  const a = new Map((after ?? []).map((l) => [key(l), l]));
  const added: Edge[] = [];
  const removed: Edge[] = [];
  for (const [k, l] of a) if (!b.has(k)) added.push({ from: id, to: l.to, rel: l.rel });
  for (const [k, l] of b) if (!a.has(k)) removed.push({ from: id, to: l.to, rel: l.rel });
  return { added, removed };
}

// ---------------------------------------------------------------------------------------------
// Supersede / restore (pure plans)
// ---------------------------------------------------------------------------------------------

export interface SupersedePlan {
  /** True when `old` is already superseded by `new`: nothing to write (reference: "no-op"). */
  noop: boolean;
  /** The updated old memory: `supersededBy = new.id`, `supersededAt = now`, pin moved away if `pinMoved`. */
  old: Memory;
  /** The updated new memory: a `supersedes` link to old added, pinned if `pinMoved`. */
  new: Memory;
  /** True when the pin moved from old to new (journal it as an edit with meta `pinned_from`). */
  pinMoved: boolean;
}

/**
 * Plans `supersede(old, new)`: self → INVALID_ARGUMENT; `new.supersededBy ===
 * old.id` → INVALID_ARGUMENT ("Cycle"); `old.supersededBy === new.id` → no-op. Otherwise the old
 * row gets `supersededBy`/`supersededAt`, the new row gets the link `new → old supersedes`, and
 * "the pin follows": if the old row is pinned and the new one is not, the new one is pinned and the
 * old one unpinned (`movePin: false` keeps both pins as they are: a seed-002 UPDATE, see
 * `resolutionFor`). Trust is not inherited. Inputs are not mutated.
 */
export function planSupersede(old: Memory, next: Memory, now: number, options: { movePin?: boolean } = {}): SupersedePlan {
  if (old.id === next.id) throw invalid('Cannot supersede a memory with itself', { field: 'newId', id: old.id });
  if (next.supersededBy === old.id) {
    throw invalid(`Cycle: ${JSON.stringify(next.id)} is already superseded by ${JSON.stringify(old.id)}`, {
      field: 'newId',
      oldId: old.id,
      newId: next.id,
    });
  }
  if (old.supersededBy === next.id) return { noop: true, old, new: next, pinMoved: false };
  const movePin = options.movePin ?? true;
  const pinMoved = movePin && old.pinned && !next.pinned;
  const updatedOld: Memory = { ...old, supersededBy: next.id, supersededAt: now, pinned: pinMoved ? false : old.pinned };
  const updatedNew: Memory = {
    ...next,
    links: addLink(next.links, old.id, 'supersedes').links,
    pinned: pinMoved ? true : next.pinned,
  };
  return { noop: false, old: updatedOld, new: updatedNew, pinMoved };
}

export interface RestorePlan {
  /** The memory with its superseded state cleared (and its pin back when `pinReturned`). */
  memory: Memory;
  /** The superseder without its `supersedes` link to the memory (and unpinned when `pinReturned`); null when it no longer exists. */
  superseder: Memory | null;
  /** The id the memory had been superseded by (journal meta `superseder_id`). */
  supersederId: string;
  pinReturned: boolean;
}

/**
 * Plans `restore(id)`: returns null when the memory is not superseded (the store
 * returns false). Clears `supersededBy`/`supersededAt`, removes the superseder's `supersedes` link
 * and "hands the pin back" when `pinnedFrom` says the pin had moved at supersede time (the store
 * knows that from its journal's `pinned_from` entry).
 */
export function planRestore(memory: Memory, superseder: Memory | null, options: { pinnedFrom?: boolean } = {}): RestorePlan | null {
  if (memory.supersededBy === '') return null;
  const supersederId = memory.supersededBy;
  const pinReturned = options.pinnedFrom === true && superseder !== null && superseder.pinned;
  const restored: Memory = { ...memory, supersededBy: '', supersededAt: 0, pinned: pinReturned ? true : memory.pinned };
  let updatedSuperseder: Memory | null = null;
  if (superseder !== null) {
    updatedSuperseder = {
      ...superseder,
      links: removeLinks(superseder.links, memory.id, 'supersedes').links,
      pinned: pinReturned ? false : superseder.pinned,
    };
  }
  return { memory: restored, superseder: updatedSuperseder, supersederId, pinReturned };
}

// ---------------------------------------------------------------------------------------------
// The adjacency port
// ---------------------------------------------------------------------------------------------

/**
 * What the traversals read. `get` returns the memories that exist (missing ids are simply absent
 * from the map). `outgoing(id)` is the memory's own `links` in stored order (`[]` for an unknown
 * id). `incoming(id)` lists the edges pointing at `id`, from an edge index; every `from` must be
 * an existing memory (the index drops a memory's rows when it is forgotten), but its `to` may be
 * a forgotten id (links elsewhere are not cleaned up, as AI-Houkai's `forget`).
 */
export interface GraphReader {
  get(ids: string[]): Promise<Map<string, Memory>>;
  outgoing(id: string): Promise<Link[]>;
  incoming(id: string): Promise<{ from: string; rel: string }[]>;
}

/** The reads of a store's storage (`MemoryStorage`) a graph walk needs. */
export interface GraphStorage {
  get(id: string): Promise<Memory | undefined>;
  getMany(ids: string[]): Promise<Map<string, Memory>>;
  incoming(id: string): Promise<{ from: string; rel: string }[]>;
}

/** A {@link GraphReader} over a store's storage (incoming links from its link-target index). */
export function storageGraphReader(storage: GraphStorage): GraphReader {
  return {
    get: (ids) => storage.getMany(ids),
    outgoing: async (id) => (await storage.get(id))?.links ?? [],
    incoming: (id) => storage.incoming(id),
  };
}

/**
 * A {@link GraphReader} over an in-memory collection (tests, exports, small stores). The incoming
 * index is built once from the memories' links, in collection order.
 */
export function createMemoryGraphReader(memories: Iterable<Memory>): GraphReader {
  const byId = new Map<string, Memory>();
  for (const m of memories) byId.set(m.id, m);
  const incoming = new Map<string, { from: string; rel: string }[]>();
  for (const m of byId.values()) {
    for (const l of m.links) {
      let list = incoming.get(l.to);
      if (!list) incoming.set(l.to, (list = []));
      list.push({ from: m.id, rel: l.rel });
    }
  }
  return {
    async get(ids) {
      const out = new Map<string, Memory>();
      for (const id of ids) {
        const m = byId.get(id);
        if (m) out.set(id, m);
      }
      return out;
    },
    async outgoing(id) {
      return (byId.get(id)?.links ?? []).map((l) => ({ to: l.to, rel: l.rel }));
    },
    async incoming(id) {
      return (incoming.get(id) ?? []).map((e) => ({ ...e }));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// neighbors
// ---------------------------------------------------------------------------------------------

export interface NeighborsOptions {
  /** Only follow edges with this relation (any valid rel). */
  rel?: string;
  /** Default `'both'`. */
  direction?: Direction;
  /** Hops, default 1; ≤ 0 gives no results. */
  depth?: number;
}

export interface NeighborHit {
  memory: Memory;
  /** The relation of the edge that reached it. */
  rel: string;
  /** 1 for direct neighbours. */
  hop: number;
  /** `'out'`: reached along an edge's direction; `'in'`: against it (an incoming edge). */
  direction: 'out' | 'in';
}

export interface NeighborsResult {
  results: NeighborHit[];
  /** Outgoing edges whose target does not resolve (the `dangling` audit list). */
  dangling: Edge[];
}

/**
 * Breadth-first neighbours of `id`, as AI-Houkai's `neighbors`: each node is visited (and expanded)
 * once, but a node joined by several parallel edges is reported once per edge (one result per
 * matching rel, all at the hop where the node is first reached). Per frontier node, outgoing
 * edges are scanned before incoming ones (`direction: 'both'`); the start node is never reported;
 * cycles terminate. Targets that do not resolve are skipped and listed in `dangling` instead of
 * throwing. An unknown start id is not an error here: it has no outgoing links, though incoming
 * edges pointing at it may still be found (the store decides whether to throw NOT_FOUND first).
 */
export async function neighbors(reader: GraphReader, id: string, options?: NeighborsOptions): Promise<NeighborsResult> {
  const start = checkId(id);
  const opts = checkOptions(options, 'options', ['rel', 'direction', 'depth']);
  const rel = opts.rel === undefined ? undefined : checkRel(opts.rel);
  const direction = opts.direction === undefined ? 'both' : checkDirection(opts.direction);
  const depth = opts.depth === undefined ? 1 : checkDepth(opts.depth);

  const results: NeighborHit[] = [];
  const dangling: Edge[] = [];
  const danglingSeen = new Set<string>();
  const visited = new Set<string>([start]);
  let frontier = [start];
  const matches = (r: string): boolean => rel === undefined || r === rel;

  for (let hop = 1; hop <= depth && frontier.length > 0; hop++) {
    const next: string[] = [];
    for (const mid of frontier) {
      if (direction !== 'in') {
        const links = (await reader.outgoing(mid)).filter((l) => matches(l.rel));
        const wanted = [...new Set(links.map((l) => l.to).filter((to) => !visited.has(to)))];
        const found = wanted.length ? await reader.get(wanted) : new Map<string, Memory>();
        for (const link of links) {
          if (visited.has(link.to)) continue;
          const target = found.get(link.to);
          if (!target) {
            const key = `${mid}\u0000${link.to}\u0000${link.rel}`;
            if (!danglingSeen.has(key)) {
              danglingSeen.add(key);
              dangling.push({ from: mid, to: link.to, rel: link.rel });
            }
            continue;
          }
          // Report every parallel edge to this target, then visit it once.
          for (const parallel of links) {
            if (parallel.to === link.to) results.push({ memory: target, rel: parallel.rel, hop, direction: 'out' });
          }
          visited.add(link.to);
          next.push(link.to);
        }
      }
      if (direction !== 'out') {
        const edges = (await reader.incoming(mid)).filter((e) => matches(e.rel) && !visited.has(e.from));
        const sources = [...new Set(edges.map((e) => e.from))];
        const found = sources.length ? await reader.get(sources) : new Map<string, Memory>();
        for (const from of sources) {
          const source = found.get(from);
          // A stale index row (its source is gone) is skipped: the edge no longer exists.
          if (!source) continue;
          for (const e of edges) if (e.from === from) results.push({ memory: source, rel: e.rel, hop, direction: 'in' });
          visited.add(from);
          next.push(from);
        }
      }
    }
    frontier = next;
  }
  return { results, dangling };
}

// ---------------------------------------------------------------------------------------------
// subgraph
// ---------------------------------------------------------------------------------------------

export interface SubgraphResult {
  /** Every resolved node reached, in first-visit (depth-first) order, seeds included. */
  nodes: Memory[];
  /** `[src, dst, rel]`, each once, in discovery order; edges to unresolved targets are kept (as the reference does). */
  edges: [string, string, string][];
  /** Ids reached (seeds or targets) that do not resolve. */
  dangling: string[];
}

/**
 * AI-Houkai's `subgraph(ids, depth)`: follows **outgoing** links only, depth-first from each seed,
 * tracking the best remaining hop budget per node, so a node first reached by a long path is
 * expanded again when a shorter path reaches it with budget to spare (diamonds: `a→b→c, a→c,
 * c→d` at depth 2 includes `c→d` and `d`). `depth = 0` gives the seed nodes only.
 */
export async function subgraph(reader: GraphReader, ids: readonly string[], options?: { depth?: number }): Promise<SubgraphResult> {
  if (!Array.isArray(ids)) throw invalid('ids must be an array of memory ids', { field: 'ids' });
  const seeds = ids.map((id) => checkId(id, 'ids'));
  const opts = checkOptions(options, 'options', ['depth']);
  const depth = opts.depth === undefined ? 1 : checkDepth(opts.depth);

  const nodes = new Map<string, Memory>();
  const missing = new Set<string>();
  const edges: [string, string, string][] = [];
  const edgeKeys = new Set<string>();
  const bestRemaining = new Map<string, number>();

  const resolve = async (id: string): Promise<Memory | undefined> => {
    const known = nodes.get(id);
    if (known || missing.has(id)) return known;
    const found = (await reader.get([id])).get(id);
    if (found) nodes.set(id, found);
    else missing.add(id);
    return found;
  };

  // Iterative DFS with an explicit stack, so long chains cannot overflow the call stack. Each
  // entry carries the edge that reached it, recorded when the entry is popped: that reproduces the
  // recursive reference's order (edge, then the target's whole subtree, then the next edge).
  const visit = async (seed: string): Promise<void> => {
    const stack: { id: string; remaining: number; edge?: [string, string, string] }[] = [{ id: seed, remaining: depth }];
    while (stack.length) {
      const { id, remaining, edge } = stack.pop()!;
      if (edge) {
        const key = edge.join('\u0000');
        if (!edgeKeys.has(key)) {
          edgeKeys.add(key);
          edges.push(edge);
        }
      }
      const prev = bestRemaining.get(id);
      if (prev !== undefined && prev >= remaining) continue;
      bestRemaining.set(id, remaining);
      if (!(await resolve(id))) continue;
      if (remaining <= 0) continue;
      const links = await reader.outgoing(id);
      for (let i = links.length - 1; i >= 0; i--) {
        const l = links[i]!;
        stack.push({ id: l.to, remaining: remaining - 1, edge: [id, l.to, l.rel] });
      }
    }
  };
  for (const seed of seeds) await visit(seed);
  return { nodes: [...nodes.values()], edges, dangling: [...missing] };
}

// ---------------------------------------------------------------------------------------------
// findPath
// ---------------------------------------------------------------------------------------------

export interface PathStep {
  id: string;
  /** The relation used to reach this node, `''` for the start. */
  rel: string;
  /** Whether that edge points along the path (`'out'`) or against it (`'in'`); `''` for the start. */
  direction: 'out' | 'in' | '';
}

export interface PathResult {
  found: boolean;
  /** Number of edges, 0 for `from === to`, −1 when not found. */
  length: number;
  path: PathStep[];
}

/**
 * Shortest **undirected** link path (curation `find_path`): breadth-first over outgoing and
 * incoming edges, neighbours of each node taken in `(id, rel)` order (the reference sorts its
 * adjacency), at most `maxDepth` edges. Same id → `length 0`. An unknown endpoint, or no path
 * within `maxDepth`, → `found: false` with an empty path. Unlike the reference, a path never runs
 * *through* an id that no longer resolves (two memories linking to the same forgotten memory are
 * not thereby connected).
 */
export async function findPath(reader: GraphReader, from: string, to: string, options?: { maxDepth?: number }): Promise<PathResult> {
  const src = checkId(from, 'from');
  const dst = checkId(to, 'to');
  const opts = checkOptions(options, 'options', ['maxDepth']);
  const maxDepth = opts.maxDepth === undefined ? 6 : checkDepth(opts.maxDepth, 'maxDepth');
  const none: PathResult = { found: false, length: -1, path: [] };

  const ends = await reader.get(src === dst ? [src] : [src, dst]);
  if (!ends.has(src) || !ends.has(dst)) return none;
  if (src === dst) return { found: true, length: 0, path: [{ id: src, rel: '', direction: '' }] };

  const parent = new Map<string, PathStep & { prev: string }>();
  const visited = new Set<string>([src]);
  let frontier = [src];
  const build = (end: string): PathResult => {
    const steps: PathStep[] = [];
    let cur = end;
    while (cur !== src) {
      const p = parent.get(cur)!;
      steps.push({ id: p.id, rel: p.rel, direction: p.direction });
      cur = p.prev;
    }
    steps.push({ id: src, rel: '', direction: '' });
    steps.reverse();
    return { found: true, length: steps.length - 1, path: steps };
  };

  for (let hop = 1; hop <= maxDepth && frontier.length > 0; hop++) {
    const discovered: string[] = [];
    for (const node of frontier) {
      const adjacency: { id: string; rel: string; direction: 'out' | 'in' }[] = [
        ...(await reader.outgoing(node)).map((l) => ({ id: l.to, rel: l.rel, direction: 'out' as const })),
        ...(await reader.incoming(node)).map((e) => ({ id: e.from, rel: e.rel, direction: 'in' as const })),
      ];
      adjacency.sort((a, b) => cmp(a.id, b.id) || cmp(a.rel, b.rel) || cmp(a.direction, b.direction));
      for (const step of adjacency) {
        if (visited.has(step.id)) continue;
        visited.add(step.id);
        parent.set(step.id, { ...step, prev: node });
        if (step.id === dst) return build(dst);
        discovered.push(step.id);
      }
    }
    if (hop === maxDepth) break;
    const present = discovered.length ? await reader.get(discovered) : new Map<string, Memory>();
    frontier = discovered.filter((id) => present.has(id));
  }
  return none;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Recall expansion
// ---------------------------------------------------------------------------------------------

export interface ExpandOptions {
  /** Relations to follow, default `['refines', 'example_of']`. */
  rels?: string[];
  /** Hops, default 1. */
  depth?: number;
  /** Most nodes added, default 5; ≤ 0 adds none. */
  cap?: number;
  /** Score of a hop-1 node, default 0.7. */
  score?: number;
  /** Per-hop multiplier beyond the first hop, default 1.0. */
  decay?: number;
  /** Also add superseded targets, default false. */
  includeSuperseded?: boolean;
  /** Extra admission test (expiry, trust); a rejected target is skipped like a superseded one. */
  accept?: (memory: Memory) => boolean;
}

export interface ExpandedHit {
  memory: Memory;
  /** `score · decay^(hop − 1)`. */
  score: number;
  rel: string;
  hop: number;
  /** The node whose link reached it. */
  from: string;
}

/** The defaults of AI-Houkai's `ExpandSpec`. */
export const DEFAULT_EXPAND = { rels: ['refines', 'example_of'], depth: 1, cap: 5, score: 0.7, decay: 1.0 } as const;

/**
 * Recall expansion (AI-Houkai's `_expand_links`): breadth-first along **outgoing**
 * links of the chosen rels from the hits (in hit order, then link order), up to `depth` hops and
 * at most `cap` new nodes, skipping ids already seen (the hits included) and superseded targets
 * unless `includeSuperseded`. Missing targets are skipped. Returns only the added nodes; the
 * caller appends them **after** the hits, so a result can exceed k (and bypass `minCosine`).
 */
/** Validates expansion options whole (recall checks them before it touches anything) and fills the defaults. */
export function checkExpandOptions(options: ExpandOptions | undefined): {
  rels: string[];
  depth: number;
  cap: number;
  score: number;
  decay: number;
  includeSuperseded: boolean;
  accept: ((memory: Memory) => boolean) | undefined;
} {
  const opts = checkOptions(options, 'options', ['rels', 'depth', 'cap', 'score', 'decay', 'includeSuperseded', 'accept']);
  let rels: string[] = [...DEFAULT_EXPAND.rels];
  if (opts.rels !== undefined) {
    if (!Array.isArray(opts.rels)) throw invalid('rels must be an array of relation names', { field: 'rels' });
    rels = opts.rels.map((r) => checkRel(r, 'rels'));
  }
  const depth = opts.depth === undefined ? DEFAULT_EXPAND.depth : checkDepth(opts.depth);
  const cap = opts.cap === undefined ? DEFAULT_EXPAND.cap : checkDepth(opts.cap, 'cap');
  const score = opts.score === undefined ? DEFAULT_EXPAND.score : checkFinite(opts.score, 'score');
  const decay = opts.decay === undefined ? DEFAULT_EXPAND.decay : checkFinite(opts.decay, 'decay');
  const includeSuperseded = opts.includeSuperseded === undefined ? false : checkBoolean(opts.includeSuperseded, 'includeSuperseded');
  const accept = opts.accept;
  if (accept !== undefined && typeof accept !== 'function') throw invalid('accept must be a function', { field: 'accept' });
  return { rels, depth, cap, score, decay, includeSuperseded, accept: accept as ((memory: Memory) => boolean) | undefined };
}

export async function expandHits(
  reader: GraphReader,
  hits: readonly { memory: Pick<Memory, 'id'> }[],
  options?: ExpandOptions,
): Promise<ExpandedHit[]> {
  const { rels, depth, cap, score, decay, includeSuperseded, accept } = checkExpandOptions(options);
  if (!Array.isArray(hits)) throw invalid('hits must be an array', { field: 'hits' });

  const relSet = new Set(rels);
  const seen = new Set(hits.map((h) => h.memory.id));
  const out: ExpandedHit[] = [];
  let frontier = hits.map((h) => h.memory.id);
  for (let hop = 1; hop <= depth && out.length < cap && frontier.length > 0; hop++) {
    const hopScore = score * decay ** (hop - 1);
    const next: string[] = [];
    for (const id of frontier) {
      if (out.length >= cap) break;
      const links = (await reader.outgoing(id)).filter((l) => relSet.has(l.rel) && !seen.has(l.to));
      if (!links.length) continue;
      const found = await reader.get([...new Set(links.map((l) => l.to))]);
      for (const link of links) {
        if (seen.has(link.to)) continue;
        const target = found.get(link.to);
        if (!target) continue;
        if (!includeSuperseded && target.supersededBy !== '') continue;
        if (accept && !(accept as (m: Memory) => boolean)(target)) continue;
        out.push({ memory: target, score: hopScore, rel: link.rel, hop, from: id });
        seen.add(link.to);
        next.push(link.to);
        if (out.length >= cap) break;
      }
    }
    frontier = next;
  }
  return out;
}

function checkFinite(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${field} must be a finite number — got ${JSON.stringify(value)}`, { field });
  return value;
}
