/**
 * What surrounds the memory open in Browse: its neighbourhood graph (direct links in and out,
 * and the links among those neighbours) and its supersede chain (the newer versions that
 * replaced it, the older ones it replaced), read through the client and refreshed on changes.
 */
import type { Memory } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';
import { toasts } from './toasts.svelte.ts';

/** Most neighbours drawn; more are counted, not shown. */
export const MAX_NEIGHBOURS = 16;
/** Longest chain walked each way. */
const MAX_CHAIN = 25;

export interface GraphData {
  nodes: { id: string; text: string }[];
  edges: { from: string; to: string; rel: string }[];
  /** Neighbours left out of the picture (beyond MAX_NEIGHBOURS). */
  hidden: number;
  /** Links whose target is not in this store. */
  dangling: number;
}

export interface ChainEntry {
  /** The memory, or null when a link names one that is not in this store. */
  memory: Memory | null;
  id: string;
  role: 'newer' | 'current' | 'older';
}

export class NeighbourhoodState {
  id = $state<string | null>(null);
  status = $state<'idle' | 'loading' | 'ready' | 'error'>('idle');
  graph = $state.raw<GraphData | null>(null);
  /** Newest first; the open memory is the 'current' entry. Only the open memory when it has no other version. */
  chain = $state.raw<ChainEntry[]>([]);
  error = $state<string | null>(null);
  restoring = $state<string | null>(null);

  private token = 0;

  /** Reads the graph and the chain of `id` (again, when called after a change). */
  async load(id: string | null): Promise<void> {
    const token = ++this.token;
    const client = memory.api;
    if (this.id !== id) {
      this.graph = null;
      this.chain = [];
    }
    this.id = id;
    if (!id || !client) {
      this.status = 'idle';
      return;
    }
    if (!this.graph) this.status = 'loading';
    try {
      const [graph, chain] = await Promise.all([this.readGraph(id), this.readChain(id)]);
      if (token !== this.token) return;
      this.graph = graph;
      this.chain = chain;
      this.error = null;
      this.status = 'ready';
    } catch (error) {
      if (token !== this.token) return;
      this.error = describe(error);
      this.status = 'error';
    }
  }

  private async readGraph(id: string): Promise<GraphData> {
    const client = memory.api!;
    const around = await client.neighbors(id, { direction: 'both', depth: 1 });
    const neighbourIds: string[] = [];
    for (const hit of around.results) if (!neighbourIds.includes(hit.memory.id)) neighbourIds.push(hit.memory.id);
    const shown = neighbourIds.slice(0, MAX_NEIGHBOURS);
    const ids = [id, ...shown];
    const inPicture = new Set(ids);
    // Outgoing links of every node in the picture: the centre's links, the incoming ones (they
    // are the neighbours' outgoing links) and those among the neighbours.
    const sub = await client.subgraph(ids, { depth: 1 });
    const nodes = sub.nodes.filter((n) => inPicture.has(n.id)).map((n) => ({ id: n.id, text: n.text }));
    const edges = sub.edges.filter(([from, to]) => inPicture.has(from) && inPicture.has(to)).map(([from, to, rel]) => ({ from, to, rel }));
    return { nodes, edges, hidden: neighbourIds.length - shown.length, dangling: around.dangling.length };
  }

  private async readChain(id: string): Promise<ChainEntry[]> {
    const client = memory.api!;
    const current = await client.get(id);
    if (!current) return [];
    // Newer: follow supersededBy forward to the head.
    const newer: ChainEntry[] = [];
    const seen = new Set([id]);
    let next = current.supersededBy;
    while (next && !seen.has(next) && newer.length < MAX_CHAIN) {
      seen.add(next);
      const m = await client.get(next);
      newer.push({ id: next, memory: m, role: 'newer' });
      next = m?.supersededBy ?? '';
    }
    // Older: the memories it replaced (its `supersedes` links whose target names it), breadth first.
    const older: ChainEntry[] = [];
    let frontier: Memory[] = [current];
    while (frontier.length && older.length < MAX_CHAIN) {
      const following: Memory[] = [];
      for (const m of frontier) {
        for (const link of m.links) {
          if (link.rel !== 'supersedes' || seen.has(link.to) || older.length >= MAX_CHAIN) continue;
          seen.add(link.to);
          const o = await client.get(link.to);
          if (o && o.supersededBy !== m.id) continue; // a stale link: it was restored or re-superseded
          older.push({ id: link.to, memory: o, role: 'older' });
          if (o) following.push(o);
        }
      }
      frontier = following;
    }
    return [...newer.reverse(), { id, memory: current, role: 'current' }, ...older];
  }

  /** Makes a superseded memory active again (the store's `restore`). */
  async restore(id: string): Promise<void> {
    const client = memory.api;
    if (!client || this.restoring) return;
    this.restoring = id;
    try {
      const result = await client.restore(id);
      toasts.push(result.restored ? 'Restored: that version is active again.' : 'That version was not superseded any more.');
      await this.load(this.id);
    } catch (error) {
      toasts.push(`Not restored: ${describe(error)}`, { tone: 'error' });
    } finally {
      this.restoring = null;
    }
  }
}

export const neighbourhood = new NeighbourhoodState();
