/**
 * The bridge between a store and its replica: local changes out (the journal is the outbox),
 * replicated changes in (through the store's own writes, as actor `sync:<remote>`, so the
 * journal, undo, the index and change events stay right), and concurrent edits folded together
 * (merge.ts) with the losing texts queued for review. Orchestration over ports only: the
 * replica is whatever `SyncReplica` the composition root hands in.
 */
import { embed, journalFor, reportChanged, type StoreContext, type Using } from '../context.ts';
import { throwIfAborted } from '../errors.ts';
import { DeferredIndex } from '../services/deferred-index.ts';
import type { Memory, ProgressEvent, Trust } from '../types.ts';
import { lowerTrust } from '../domain/trust.ts';
import { docId, fromDocument, memoryIdOf, toDocument, tombstone, type MemoryDocument, type SyncedMemory, type TombstoneDocument } from './document.ts';
import { mergeRevisions } from './merge.ts';
import { entryEffect } from '../domain/journal-patch.ts';
import type { ReplicaChange, ReplicaDocument, SyncCheckpoint, SyncReplica } from './ports.ts';
import { checkPendingConflict } from '../domain/review.ts';
import { cosine } from '../domain/vector-math.ts';

/** Documents read and written per batch (one storage transaction per batch of inserts). */
const BATCH = 256;
/** Vector bytes a pull may leave pending for the background graph build (see applyReplica). */
const PENDING_BYTES = 128 * 2 ** 20;

/** What one pass of the bridge did. */
export interface BridgeCounts {
  /** Memories written to the replica (new revisions). */
  pushed: number;
  /** Replicated memories written to the store (new or changed). */
  applied: number;
  /** Replicated deletions carried out (forgets). */
  deleted: number;
  /** Concurrent edits merged; their differing texts went to the review queue. */
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

/** A replicated memory under the session's trust ceiling: lowered to it, and unpinned below `trusted`. */
function capped(run: BridgeRun, memory: SyncedMemory): SyncedMemory {
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

/** The synced fields in a fixed order: two memories are the same replicated state when these match. */
const FIELDS: readonly (keyof SyncedMemory)[] = [
  'id', 'text', 'type', 'tags', 'importance', 'createdAt', 'source', 'links', 'supersededBy', 'supersededAt',
  'polarity', 'expiresAt', 'pinned', 'trust', 'contentHash', 'validFrom', 'validUntil', 'surfacesWhen',
];

export function sameMemory(a: SyncedMemory, b: SyncedMemory): boolean {
  return FIELDS.every((f) => JSON.stringify(a[f]) === JSON.stringify(b[f]));
}

const stripAccess = (m: Memory): SyncedMemory => {
  const { lastAccessed: _l, accessCount: _c, ...rest } = m;
  return rest;
};

type LocalRows = Map<string, { memory: Memory; vector: Float32Array | undefined }>;

/** Local memories and their vectors, by id (absent ids are not in the map). */
async function readLocal(ctx: Using<'rows' | 'vectors'>, ids: string[]): Promise<LocalRows> {
  const memories = await ctx.storage.getMany(ids);
  const present = ids.filter((id) => memories.has(id));
  const labels = await ctx.storage.labelsOf(present);
  const vectors = await ctx.storage.vectorsOf(labels.filter((l): l is number => l !== undefined));
  const out = new Map<string, { memory: Memory; vector: Float32Array | undefined }>();
  present.forEach((id, i) => out.set(id, { memory: memories.get(id)!, vector: labels[i] === undefined ? undefined : vectors.get(labels[i]!) }));
  return out;
}

/**
 * Writes the current state of these memories to the replica where it differs from the replica's
 * winning revision: a live memory as its document, a missing one as a deletion (when the replica
 * has it). A superseded memory's superseder goes too when the replica lacks it (a review copy
 * restored by the user, say). Returns how many documents were written.
 */
async function pushIds(run: BridgeRun, ids: string[], rows?: LocalRows): Promise<number> {
  const { ctx, replica, checkpoint } = run;
  const local = rows ?? (await readLocal(ctx, ids));
  const extra = [...local.values()].map((l) => l.memory.supersededBy).filter((id) => id !== '' && !ids.includes(id));
  if (extra.length) {
    const known = await replica.getDocs(extra.map(docId));
    const missing = extra.filter((id) => !known.has(docId(id)));
    for (const [id, row] of await readLocal(ctx, missing)) (ids.push(id), local.set(id, row));
  }
  for (let attempt = 0; attempt < 3 && ids.length; attempt++) {
    const current = await replica.getDocs(ids.map(docId));
    const writes: (MemoryDocument | TombstoneDocument)[] = [];
    for (const id of ids) {
      const have = current.get(docId(id));
      const row = local.get(id);
      if (!row) {
        // Gone here: deleted there too, when the replica holds it inside the synced namespaces.
        if (have && !have._deleted && Array.isArray(have.memory?.tags) && inScope(checkpoint, have.memory.tags)) {
          writes.push(tombstone(have._id, have._rev, checkpoint.replicaId));
        }
        continue;
      }
      // Outside the synced namespaces: not sent (one that left them stays on the server as it was).
      if (!inScope(checkpoint, row.memory.tags)) continue;
      const doc = toDocument(row.memory, row.vector ?? null, ctx.embedder.id, checkpoint.replicaId);
      // Unchanged content is not written again, whatever model made the replica's vector: a
      // device on another model re-embedded it for itself, and the vector travels with edits only.
      if (have && !have._deleted && have.memory && sameMemory(have.memory, doc.memory)) continue;
      writes.push(have ? { ...doc, _rev: have._rev } : doc);
    }
    if (!writes.length) return 0;
    const lost = await replica.putDocs(writes);
    const written = writes.length - lost.length;
    if (!lost.length) return written;
    ids = lost.map((d) => memoryIdOf(d)!).filter((id): id is string => id !== null);
    if (attempt === 2) return written;
  }
  return 0;
}

/**
 * Local changes out: every memory a journal entry after the checkpoint touched (but the
 * replicated ones, written by `sync:` actors), in journal order, a page at a time. With no
 * checkpoint, or when compaction dropped entries the checkpoint has not seen, every live memory
 * is compared with the replica instead (the journal no longer says what changed).
 */
export async function pushOutbox(run: BridgeRun): Promise<void> {
  const { ctx, checkpoint } = run;
  const [newest = 0] = await ctx.storage.journalKeys({ limit: 1 });
  if (newest <= checkpoint.pushedSeq) {
    // Nothing written here since: an empty store's first comparison is done too.
    if (newest === 0) checkpoint.compared = true;
    return;
  }
  const horizon = await ctx.storage.journalHorizon();
  let done = 0;
  const compared = checkpoint.compared ?? (checkpoint.pushedSeq > 0 || checkpoint.appliedSeq !== 0);
  const total = compared ? newest - checkpoint.pushedSeq : null;
  if (!compared || (horizon !== null && horizon.seq > checkpoint.pushedSeq + 1)) {
    for await (const page of ctx.storage.pagesByCreated(BATCH)) {
      throwIfAborted(run.signal);
      // The page already holds each memory and its vector: no second read.
      run.counts.pushed += await pushIds(run, page.map((p) => p.memory.id), new Map(page.map((p) => [p.memory.id, p])));
      done += page.length;
      run.onProgress?.({ kind: 'sync', phase: 'push', done, total: null });
    }
    // A comparison of live memories cannot see a forget: the journal since the last push can (a
    // checkpoint started over for other namespaces keeps where the previous one had pushed to).
    if (checkpoint.pushedSeq > 0) await pushForgets(run, checkpoint.pushedSeq);
    checkpoint.pushedSeq = newest;
    checkpoint.compared = true;
    return;
  }
  let after = checkpoint.pushedSeq;
  for (;;) {
    throwIfAborted(run.signal);
    const entries = await ctx.storage.journalAfter(after, BATCH);
    if (!entries.length) break;
    const ids = [...new Set(entries.filter((e) => e.id !== '*' && !e.actor.startsWith('sync:')).map((e) => e.id))];
    if (ids.length) run.counts.pushed += await pushIds(run, ids);
    after = entries[entries.length - 1]!.seq!;
    checkpoint.pushedSeq = after;
    done += entries.length;
    run.onProgress?.({ kind: 'sync', phase: 'push', done: Math.min(done, total ?? done), total });
    if (entries.length < BATCH) break;
  }
}

/** The memories forgotten here after `after` (journal entries not written by sync), sent as deletions where the replica holds them. */
async function pushForgets(run: BridgeRun, after: number): Promise<void> {
  const { ctx } = run;
  for (let seq = after; ; ) {
    throwIfAborted(run.signal);
    const entries = await ctx.storage.journalAfter(seq, BATCH);
    if (!entries.length) return;
    const ids = [...new Set(entries.filter((e) => entryEffect(e) === 'removed' && !e.actor.startsWith('sync:')).map((e) => e.id))];
    const gone = ids.length ? (await ctx.storage.exists(ids)).flatMap((held, i) => (held ? [] : [ids[i]!])) : [];
    if (gone.length) run.counts.pushed += await pushIds(run, gone, new Map());
    seq = entries[entries.length - 1]!.seq!;
    if (entries.length < BATCH) return;
  }
}

/** A review copy of a losing revision: its own id, no links or pin, held in the review queue beside the winner. */
function reviewCopy(loser: SyncedMemory, rev: string, now: number): Memory {
  return { ...loser, id: `${loser.id}~${rev}`, links: [], supersededBy: '', supersededAt: 0, pinned: false, lastAccessed: now, accessCount: 0 };
}

/**
 * Losing leaves of one document read and folded per round. Two or three devices leave one or two;
 * a document with more was crafted: the leaves past this many are removed unread and counted as
 * unreadable (a thousand leaves once cost 54 s, 530 MB and a thousand review copies).
 */
export const MAX_FOLDED_LEAVES = 16;

/**
 * A document with losing revisions beside its winner. The device that wrote a losing revision
 * folds it in (so the person who made the edit that lost finds it in their review queue, and it
 * is queued once, not on every device): its tags and links join the winner (a new revision,
 * replicated), its text, when it differs, waits in the review queue as a held memory against the
 * winner — not a memory until the person keeps it — and the revision is removed so every replica
 * converges on one document. Revisions of no live device (merges) are folded by whoever sees
 * them. Another device's losing revision is left for that device. Returns the winner to apply.
 */
async function foldConflicts(run: BridgeRun, change: ReplicaChange, winner: ReplicaDocument, onUnreadable: (id: string, reason: string) => void): Promise<ReplicaDocument> {
  const { ctx, replica, checkpoint } = run;
  const losers: { rev: string; doc: ReplicaDocument }[] = [];
  const beyond = change.conflicts.slice(MAX_FOLDED_LEAVES);
  for (const rev of change.conflicts.slice(0, MAX_FOLDED_LEAVES)) {
    const doc = await replica.getRevision(change.id, rev);
    if (doc && !doc._deleted && (doc.by === checkpoint.replicaId || doc.by === 'merge' || doc.by === undefined)) losers.push({ rev, doc });
  }
  if (beyond.length) {
    await replica.removeRevisions(change.id, beyond);
    for (const _ of beyond) onUnreadable(change.id, `more than ${MAX_FOLDED_LEAVES} conflicting revisions`);
  }
  if (!losers.length) return winner;
  const readable = losers.flatMap((l) => {
    try {
      return [{ rev: l.rev, read: fromDocument(l.doc, ctx.embedder.id, ctx.embedder.dim) }];
    } catch {
      return []; // an unreadable losing revision is dropped with the others; the winner stands
    }
  });
  const merge = mergeRevisions(winner.memory, readable.map((r) => r.read.memory));
  let result = winner;
  if (merge.merged) {
    const doc: MemoryDocument = { ...winner, memory: merge.merged, by: 'merge' };
    const lost = await replica.putDocs([doc]);
    if (lost.length === 0) result = (await replica.getDocs([winner._id])).get(winner._id) ?? winner;
  }
  await replica.removeRevisions(change.id, losers.map((l) => l.rev));
  if (merge.review.length) await holdForReview(run, winner.memory.id, merge.review.map((m) => {
    const from = readable.find((r) => r.read.memory.text === m.text)!;
    return { loser: capped(run, m), rev: from.rev, vector: from.read.vector };
  }));
  run.counts.conflicts += 1;
  return result;
}

/** Queues losing texts for review against the winner, each once (a copy already waiting is not queued again). */
async function holdForReview(run: BridgeRun, winnerId: string, losing: { loser: SyncedMemory; rev: string; vector: Float32Array | null }[]): Promise<void> {
  const { ctx } = run;
  const now = ctx.clock.now();
  const waiting = new Set((await ctx.storage.listConflicts('pending')).map((c) => c.newId));
  const fresh = losing.map((l) => ({ ...l, copy: reviewCopy(l.loser, l.rev, now) })).filter((l) => !waiting.has(l.copy.id));
  if (!fresh.length) return;
  const vectors = await vectorsFor(run, fresh.map((l) => ({ text: l.copy.text, vector: l.vector })));
  const winnerVector = (await readLocal(ctx, [winnerId])).get(winnerId)?.vector;
  const conflicts = fresh.map((l, i) =>
    checkPendingConflict({
      id: ctx.ids.next(),
      newId: l.copy.id,
      oldId: winnerId,
      kind: 'update',
      reason: 'sync_conflict',
      similarity: winnerVector ? Math.max(-1, Math.min(1, Number(cosine(winnerVector, vectors[i]!).toFixed(4)))) : 0,
      createdAt: now,
      status: 'pending',
      proposed: { memory: l.copy, vector: vectors[i]!, model: ctx.embedder.id },
    }),
  );
  await ctx.storage.applyGraphChanges({ conflicts }, journalFor(ctx, 'sync-conflict', { remote: run.replica.remote, of: winnerId }));
  reportChanged(ctx, [winnerId]);
}

/** Vectors for replicated texts: the document's own when it was made by this store's model, else embedded here. */
async function vectorsFor(run: BridgeRun, items: { text: string; vector: Float32Array | null }[]): Promise<Float32Array[]> {
  const missing = items.map((it, i) => (it.vector ? -1 : i)).filter((i) => i >= 0);
  const out = items.map((it) => it.vector);
  if (missing.length) {
    const made = await embed(run.ctx, missing.map((i) => items[i]!.text), run.signal ? { signal: run.signal } : {});
    missing.forEach((i, k) => (out[i] = made[k]!));
    run.counts.reembedded += missing.length;
  }
  return out as Float32Array[];
}

/**
 * Replicated changes in: the replica's changes feed after the checkpoint, a page at a time.
 * Revisions this replica wrote are skipped (they are the store's own state); deletions forget;
 * new memories are inserted a batch per transaction; changed ones replaced (re-embedded only
 * when the text changed and the document's vector is another model's). A document this version
 * cannot read is skipped and counted in the status, never half-applied.
 */
export async function applyReplica(run: BridgeRun, onUnreadable: (id: string, reason: string) => void): Promise<void> {
  const { ctx } = run;
  // Forgotten here and not sent yet: the replica's copy must not bring them back (a checkpoint
  // started over for other namespaces reads the replica from its start).
  const forgotten = await forgottenSincePush(run);
  // New memories join the index's pending set (searchable at once by exact scan) and the graph
  // is built after the round, in the background: a first sync of many documents is not paced by
  // HNSW insertion, and the store answers meanwhile (as after an import). Up to 128 MiB of
  // vectors wait (50,000 at 512 dimensions); beyond that the oldest join the graph at once.
  const release = ctx.index instanceof DeferredIndex ? ctx.index.hold(PENDING_BYTES) : () => undefined;
  try {
    await applyPages(run, forgotten, onUnreadable);
  } finally {
    release();
  }
}

async function applyPages(run: BridgeRun, forgotten: Set<string>, onUnreadable: (id: string, reason: string) => void): Promise<void> {
  const { ctx, replica, checkpoint } = run;
  let done = 0;
  for (;;) {
    throwIfAborted(run.signal);
    const { results, lastSeq } = await replica.changes(checkpoint.appliedSeq, BATCH);
    if (!results.length) {
      checkpoint.appliedSeq = lastSeq;
      break;
    }
    const inserts: { memory: Memory; vector: Float32Array | null }[] = [];
    for (const change of results) {
      const id = memoryIdOf(change.id);
      if (id === null) continue;
      if (change.deleted || !change.doc) {
        // This replica's own deletion, and the store holds the memory again by a change of its own
        // not yet pushed (an undo of the forget): that change goes out next and wins. Otherwise the
        // tombstone is the replicated state — even our own old one, winning again after the memory
        // came back from elsewhere and was forgotten there.
        if (change.doc?.by === checkpoint.replicaId && (await changedHereSincePush(run, id))) continue;
        // With namespaces, a deletion reaches only a memory inside them (a personal memory is not
        // forgotten because a whole-store device forgot its copy, nor by a crafted tombstone).
        if (checkpoint.namespaces) {
          const here = await ctx.storage.get(id);
          if (here && !inScope(checkpoint, here.tags)) continue;
        }
        const removed = await ctx.storage.remove(id, journalFor(ctx, 'sync', { remote: replica.remote }));
        if (removed) {
          ctx.commit(removed);
          reportChanged(ctx, [id]);
          run.counts.deleted += 1;
        }
        continue;
      }
      let doc = change.doc;
      if (!Array.isArray(doc.memory?.tags)) {
        // Not a memory this version can read (no memory, one sealed under another key): counted.
        if (doc.by !== checkpoint.replicaId) onUnreadable(change.id, readProblem(doc, ctx.embedder.id, ctx.embedder.dim));
        continue;
      }
      if (!inScope(checkpoint, doc.memory.tags)) continue;
      if (change.conflicts.length) doc = await foldConflicts(run, change, doc, onUnreadable);
      else if (doc.by === checkpoint.replicaId) continue;
      let read;
      try {
        read = fromDocument(doc, ctx.embedder.id, ctx.embedder.dim);
      } catch (error) {
        onUnreadable(change.id, (error as Error).message);
        continue;
      }
      read = { ...read, memory: capped(run, read.memory) };
      const current = await ctx.storage.get(id);
      if (current && sameMemory(stripAccess(current), read.memory)) continue;
      // A document in the namespaces whose id is a memory here outside them: never overwritten.
      if (current && checkpoint.namespaces && !inScope(checkpoint, current.tags)) {
        onUnreadable(change.id, 'its id is a memory outside the synced namespaces');
        continue;
      }
      if (!current) {
        if (forgotten.has(id)) continue;
        inserts.push({ memory: { ...read.memory, lastAccessed: read.memory.createdAt, accessCount: 0 }, vector: read.vector });
        continue;
      }
      await replaceWith(run, current, read.memory, read.vector);
    }
    if (inserts.length) {
      const vectors = await vectorsFor(run, inserts.map((i) => ({ text: i.memory.text, vector: i.vector })));
      const journal = journalFor(ctx, 'sync', { remote: replica.remote });
      ctx.commit(await ctx.storage.insert(inserts.map((i) => i.memory), vectors, journal), { deferred: true });
      reportChanged(ctx, inserts.map((i) => i.memory.id));
      run.counts.applied += inserts.length;
    }
    checkpoint.appliedSeq = lastSeq;
    done += results.length;
    run.onProgress?.({ kind: 'sync', phase: 'apply', done, total: null });
  }
}

/** Why a replicated document cannot be read here. */
function readProblem(doc: unknown, model: string, dim: number): string {
  try {
    fromDocument(doc, model, dim);
    return 'not a memory document';
  } catch (error) {
    return (error as Error).message;
  }
}

/** Ids the store forgot itself (not through sync) after the last push. */
async function forgottenSincePush(run: BridgeRun): Promise<Set<string>> {
  const out = new Set<string>();
  // Never pushed to this remote: its replica holds nothing this store sent, so nothing to keep out.
  if (run.checkpoint.pushedSeq === 0) return out;
  for (let seq = run.checkpoint.pushedSeq; ; ) {
    const entries = await run.ctx.storage.journalAfter(seq, BATCH);
    for (const e of entries) {
      if (e.id === '*' || e.actor.startsWith('sync:')) continue;
      const effect = entryEffect(e);
      if (effect === 'removed') out.add(e.id);
      else if (effect === 'created') out.delete(e.id);
    }
    if (entries.length < BATCH) return out;
    seq = entries[entries.length - 1]!.seq!;
  }
}

/** Whether the store wrote this memory itself (not through sync) after the last push. */
async function changedHereSincePush(run: BridgeRun, id: string): Promise<boolean> {
  const entries = await run.ctx.storage.journalRead({ id });
  return entries.some((e) => (e.seq ?? 0) > run.checkpoint.pushedSeq && !e.actor.startsWith('sync:'));
}

/**
 * Replaces a local memory by its replicated state, keeping access tracking. When the store wrote
 * the memory since it was read, that write is newer: it stays, and goes out with the next push.
 */
async function replaceWith(run: BridgeRun, current: Memory, synced: SyncedMemory, vector: Float32Array | null): Promise<void> {
  const { ctx, replica } = run;
  const next: Memory = { ...synced, lastAccessed: current.lastAccessed, accessCount: current.accessCount };
  const newVector = next.text === current.text ? undefined : (await vectorsFor(run, [{ text: next.text, vector }]))[0];
  const result = await ctx.storage.replace(current, next, newVector, journalFor(ctx, 'sync', { remote: replica.remote }));
  if (!result) return;
  if (result.added.length || result.removedLabels.length) ctx.commit(result);
  reportChanged(ctx, [next.id]);
  run.counts.applied += 1;
}
