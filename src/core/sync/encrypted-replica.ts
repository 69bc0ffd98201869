/**
 * An end-to-end encrypted replica (#31, #49): a `SyncReplica` over another that seals every
 * document it writes and opens every one it reads, so the local replica, the wire and the server
 * hold ids, revisions, the writer's random replica id and ciphertext only; the bridge above reads
 * and merges plain documents as before.
 *
 * A seal (format 2) is bound to what the server must not change: the document's id, the
 * generation of the revision it was written as, its writer (`by`) and its state (a live memory, a
 * forget, or a prune). So a revision replayed elsewhere in the tree or relabelled with another
 * writer does not open, and a deletion is a forget only when a key holder sealed it as one. What
 * does not open — no seal at all (plaintext a server wrote), a seal under a key this device does
 * not hold, a seal for another revision, writer or state — is marked `refused` with why: the bridge
 * counts it unreadable, never stores it and never lets it overwrite or forget anything
 * (winner.ts). Until a database is upgraded to this format (its key document's version 2), the
 * first format's seals (bound to the id only) and its unsealed tombstones are read as before.
 * Which key, and whether at all, is decided per session (keyed-replica.ts).
 */
import type { ProgressEvent } from '../types.ts';
import { throwIfAborted } from '../errors.ts';
import { checkSealed, seal, unseal, type Sealed } from './crypto.ts';
import { DOC_KIND, DOC_VERSION, prune, tombstone, type MemoryDocument, type TombstoneDocument } from './document.ts';
import type { KeyRing } from './keys.ts';
import type { ReplicaDocument, SyncReplica } from './ports.ts';
import { generation } from './winner.ts';

/** The seal format this version writes. */
export const SEAL_FORMAT = 2;

/** A document as the server holds it when encrypted. */
interface SealedDocument {
  _id: string;
  _rev?: string;
  _deleted?: true;
  kind: typeof DOC_KIND;
  v: typeof DOC_VERSION;
  by: string;
  op?: 'forget' | 'prune';
  enc: Sealed;
}

/** What a sealed document's ciphertext holds (a deletion's: nothing). */
interface Content {
  memory: MemoryDocument['memory'];
  vector?: MemoryDocument['vector'];
}

type SealState = 'live' | 'forget' | 'prune';

/** What a format-2 seal is bound to besides its key. */
export function sealContext(id: string, gen: number, by: string, state: SealState): string {
  return JSON.stringify(['houkai-doc', SEAL_FORMAT, id, gen, by, state]);
}

/** The revision a write creates: one generation past the one it replaces (`_rev`), or the first. */
const nextGeneration = (rev: string | undefined): number => (rev === undefined ? 1 : generation(rev) + 1);

async function close(ring: KeyRing, doc: MemoryDocument | TombstoneDocument): Promise<SealedDocument> {
  const gen = nextGeneration(doc._rev);
  const by = doc.by ?? '';
  const base = { _id: doc._id, ...(doc._rev === undefined ? {} : { _rev: doc._rev }), kind: DOC_KIND as typeof DOC_KIND, v: DOC_VERSION as typeof DOC_VERSION, by };
  if (doc._deleted) {
    const op = (doc as TombstoneDocument).op ?? 'forget';
    return { ...base, _deleted: true, op, enc: await seal(ring.current, sealContext(doc._id, gen, by, op), {}, SEAL_FORMAT) };
  }
  const d = doc as MemoryDocument;
  const content: Content = { memory: d.memory, ...(d.vector ? { vector: d.vector } : {}) };
  return { ...base, enc: await seal(ring.current, sealContext(d._id, gen, by, 'live'), content, SEAL_FORMAT) };
}

/**
 * The plain document, or the document marked `refused` with why it cannot be trusted. `strict`:
 * the database is upgraded to format 2, so only format-2 seals count.
 */
async function open(ring: KeyRing, doc: ReplicaDocument, strict: boolean): Promise<ReplicaDocument> {
  // Whatever a server put beside the seal in the clear is never read as the memory.
  const { enc, memory: _memory, vector: _vector, refused: _refused, tie: _tie, ...rest } = doc as unknown as Record<string, unknown>;
  const refuse = (why: string): ReplicaDocument => ({ ...rest, refused: why }) as unknown as ReplicaDocument;
  const sealed = enc === undefined ? null : checkSealed(enc);
  if (!sealed) {
    if (enc !== undefined) return refuse('its seal is malformed');
    // A tombstone or prune written before the upgrade carried no seal.
    if (doc._deleted && !strict) return rest as unknown as ReplicaDocument;
    return refuse(doc._deleted ? 'a deletion no holder of this database\'s key sealed' : 'a memory in the clear in an end-to-end encrypted database: no holder of its key wrote it');
  }
  const key = sealed.k === ring.current.id ? ring.current : sealed.k === ring.previous?.id ? ring.previous : undefined;
  if (!key) return refuse('it is end-to-end encrypted under a key this device does not hold');
  if (sealed.f !== SEAL_FORMAT) {
    if (strict || doc._deleted) return refuse('sealed in the format before this database was upgraded (bound to its id only)');
    try {
      const content = (await unseal(key.key, doc._id, sealed)) as Content;
      if (!content || typeof content !== 'object') throw new Error('not a document');
      return { ...rest, memory: content.memory, ...(content.vector ? { vector: content.vector } : {}) } as unknown as ReplicaDocument;
    } catch {
      return refuse('its seal does not open: altered, or sealed for another document');
    }
  }
  const state = doc._deleted ? rest.op : 'live';
  if (state !== 'live' && state !== 'forget' && state !== 'prune') return refuse('a deletion that says neither forget nor prune');
  let content: Content;
  try {
    content = (await unseal(key.key, sealContext(doc._id, generation(doc._rev), typeof rest.by === 'string' ? rest.by : '', state), sealed)) as Content;
  } catch {
    return refuse('its seal does not open for this id, revision, writer and state: replayed, relabelled or altered');
  }
  if (state !== 'live') return { ...rest, tie: sealed.iv } as unknown as ReplicaDocument;
  if (!content || typeof content !== 'object') return refuse('its sealed content is not a memory');
  return { ...rest, memory: content.memory, ...(content.vector ? { vector: content.vector } : {}), tie: sealed.iv } as unknown as ReplicaDocument;
}

/**
 * The encrypted replica over `inner`. `strict()` says whether the database is upgraded to the
 * format-2 seal (it may become so during a session).
 */
export function encryptedReplica(inner: SyncReplica, ring: KeyRing, strict: () => boolean): SyncReplica {
  const read = (doc: ReplicaDocument): Promise<ReplicaDocument> => open(ring, doc, strict());
  const write = async (docs: (MemoryDocument | TombstoneDocument)[]): Promise<string[]> => {
    // A document written without a revision over a deleted one extends that deletion's branch:
    // its generation, bound in the seal, is the deletion's plus one.
    const fresh = docs.filter((d) => d._rev === undefined).map((d) => d._id);
    const known = fresh.length ? await inner.getDocs(fresh) : new Map<string, ReplicaDocument>();
    const placed = docs.map((d) => {
      const there = d._rev === undefined ? known.get(d._id) : undefined;
      return there?._deleted ? { ...d, _rev: there._rev } : d;
    });
    return inner.putDocs((await Promise.all(placed.map((d) => close(ring, d)))) as unknown as MemoryDocument[]);
  };
  return {
    remote: inner.remote,
    async getDocs(ids) {
      const docs = await inner.getDocs(ids);
      const out = new Map<string, ReplicaDocument>();
      for (const [id, doc] of docs) out.set(id, await read(doc));
      return out;
    },
    async getRevision(id, rev) {
      const doc = await inner.getRevision(id, rev);
      return doc && read(doc);
    },
    async getAncestors(id, rev, depth) {
      return Promise.all((await inner.getAncestors(id, rev, depth)).map(read));
    },
    putDocs: write,
    async removeRevisions(id, revs, by) {
      if (revs.length) await write(revs.map((rev) => prune(id, rev, by)));
    },
    async changes(since, limit) {
      const page = await inner.changes(since, limit);
      const results = await Promise.all(page.results.map(async (c) => (c.doc ? { ...c, doc: await read(c.doc) } : c)));
      return { results, lastSeq: page.lastSeq };
    },
    readCheckpoint: () => inner.readCheckpoint(),
    writeCheckpoint: (checkpoint) => inner.writeCheckpoint(checkpoint),
    replicate: (options) => inner.replicate(options),
    waitForRemote: (options) => inner.waitForRemote(options),
    inspectRemote: () => inner.inspectRemote(),
    writeRemoteKey: (doc) => inner.writeRemoteKey(doc),
    close: () => inner.close(),
  };
}

/** Documents re-sealed per batch during a passphrase change or a format upgrade. */
const REKEY_BATCH = 200;

/**
 * Seals again, under the ring's current key and in the current format, every document of the
 * replica that is not yet so (a passphrase change: sealed under the previous key; an upgrade:
 * sealed in the first format, or a tombstone written unsealed), a batch at a time, with
 * progress; each is written as a new revision over its winner, so the seal binds its place. The
 * caller replicates afterwards. Safe to stop and run again: what is done stays done. What no
 * key here opens (a forgery, another key's document) is left as it is. Returns how many
 * documents under the previous key are still left (0: a change can be completed).
 */
export async function resealReplica(
  inner: SyncReplica,
  ring: KeyRing,
  options: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void } = {},
): Promise<{ resealed: number; left: number }> {
  let since: number | string = 0;
  let resealed = 0;
  let left = 0;
  for (;;) {
    throwIfAborted(options.signal);
    const { results, lastSeq } = await inner.changes(since, REKEY_BATCH);
    if (!results.length) break;
    const writes: (MemoryDocument | TombstoneDocument)[] = [];
    for (const c of results) {
      const doc = c.doc;
      if (!doc || !doc._id.startsWith('m:')) continue;
      const sealed = checkSealed((doc as unknown as { enc?: unknown }).enc);
      if (sealed && sealed.k === ring.current.id && sealed.f === SEAL_FORMAT) continue;
      const by = typeof doc.by === 'string' ? doc.by : '';
      if (doc._deleted) {
        // A deletion not sealed as a forget in this format: sealed again as one (a prune as a winner
        // only stands where every leaf was deleted, which is a forget).
        if (!sealed || sealed.k === ring.current.id || sealed.k === ring.previous?.id) writes.push(tombstone(doc._id, doc._rev, by));
        continue;
      }
      if (!sealed) continue; // a memory in the clear: nobody holding the key wrote it
      const opened = await open({ current: ring.previous && sealed.k === ring.previous.id ? ring.previous : ring.current }, doc, false);
      if (opened.refused !== undefined || !opened.memory) {
        if (sealed.k === ring.previous?.id) left += 1;
        continue;
      }
      writes.push({ _id: doc._id, _rev: doc._rev, kind: DOC_KIND, v: DOC_VERSION, memory: opened.memory, ...(opened.vector ? { vector: opened.vector } : {}), by });
    }
    if (writes.length) {
      const lost = new Set(await inner.putDocs((await Promise.all(writes.map((d) => close(ring, d)))) as unknown as MemoryDocument[]));
      resealed += writes.length - lost.size;
      left += writes.filter((w) => lost.has(w._id) && !w._deleted).length;
    }
    options.onProgress?.({ kind: 'sync', phase: 'rekey', done: resealed, total: null });
    since = lastSeq;
    if (results.length < REKEY_BATCH) break;
  }
  return { resealed, left };
}
