/**
 * One pass of the sync bridge: what it works on (the store, the replica, the checkpoint), what it
 * counts, and the helpers its parts share — the session's trust ceiling, the namespace scope,
 * local rows read with their vectors, and vectors for replicated texts.
 */
import { embed, type StoreContext, type Using } from '../context.ts';
import type { Memory, ProgressEvent, Trust } from '../types.ts';
import { lowerTrust } from '../domain/trust.ts';
import type { SyncedMemory } from './document.ts';
import type { SyncCheckpoint, SyncReplica } from './ports.ts';

/** What one pass of the bridge did. */
export interface BridgeCounts {
  /** Memories written to the replica (new revisions). */
  pushed: number;
  /** Replicated memories written to the store (new or changed). */
  applied: number;
  /** Replicated deletions carried out (forgets). */
  deleted: number;
  /** Concurrent edits merged (their differing texts went to the review queue), and forgets carried over live branches. */
  conflicts: number;
  /** Replicated memories whose vector came from another model, embedded here. */
  reembedded: number;
}

export const emptyCounts = (): BridgeCounts => ({ pushed: 0, applied: 0, deleted: 0, conflicts: 0, reembedded: 0 });

export interface BridgeRun {
  ctx: StoreContext;
  replica: SyncReplica;
  checkpoint: SyncCheckpoint;
  counts: BridgeCounts;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** The most a replicated memory is trusted here (absent: as the remote says). */
  maxTrust?: Trust;
}

/** Counts a replicated document that cannot be taken in, with why. */
export type OnUnreadable = (id: string, reason: string) => void;

/** A replicated memory under the session's trust ceiling: lowered to it, and unpinned below `trusted`. */
export function capped(run: BridgeRun, memory: SyncedMemory): SyncedMemory {
  const ceiling = run.maxTrust;
  if (ceiling === undefined || ceiling === 'trusted') return memory;
  const trust = lowerTrust(memory.trust, ceiling);
  return trust === memory.trust && !memory.pinned ? memory : { ...memory, trust, pinned: false };
}

/** Whether a memory is synced: every memory, or one tagged with a synced namespace (`ns:<name>`). */
export function inScope(checkpoint: SyncCheckpoint, tags: readonly string[]): boolean {
  const tagsOf = checkpoint.namespaces;
  return !tagsOf || tags.some((t) => tagsOf.includes(t));
}

export type LocalRows = Map<string, { memory: Memory; vector: Float32Array | undefined }>;

/** Local memories and their vectors, by id (absent ids are not in the map). */
export async function readLocal(ctx: Using<'rows' | 'vectors'>, ids: string[]): Promise<LocalRows> {
  const memories = await ctx.storage.getMany(ids);
  const present = ids.filter((id) => memories.has(id));
  const labels = await ctx.storage.labelsOf(present);
  const vectors = await ctx.storage.vectorsOf(labels.filter((l): l is number => l !== undefined));
  const out: LocalRows = new Map();
  present.forEach((id, i) => out.set(id, { memory: memories.get(id)!, vector: labels[i] === undefined ? undefined : vectors.get(labels[i]!) }));
  return out;
}

/** Vectors for replicated texts: the document's own when it was made by this store's model, else embedded here. */
export async function vectorsFor(run: BridgeRun, items: { text: string; vector: Float32Array | null }[]): Promise<Float32Array[]> {
  const missing = items.map((it, i) => (it.vector ? -1 : i)).filter((i) => i >= 0);
  const out = items.map((it) => it.vector);
  if (missing.length) {
    const made = await embed(run.ctx, missing.map((i) => items[i]!.text), run.signal ? { signal: run.signal } : {});
    missing.forEach((i, k) => (out[i] = made[k]!));
    run.counts.reembedded += missing.length;
  }
  return out as Float32Array[];
}
