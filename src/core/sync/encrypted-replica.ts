/**
 * An end-to-end encrypted replica (#31): a `SyncReplica` over another that seals every document
 * it writes and opens every one it reads, so the local replica, the wire and the server hold ids,
 * revisions, the writer's random replica id and ciphertext only; the bridge above reads and
 * merges plain documents as before. A document it cannot open (sealed under a key this device
 * does not hold, or altered) reads as a document without a memory, which the bridge counts as
 * unreadable. Which key, and whether at all, is decided per session (keyed-replica.ts).
 */
import type { ProgressEvent } from '../types.ts';
import { throwIfAborted } from '../errors.ts';
import { checkSealed, seal, unseal, type Sealed } from './crypto.ts';
import { DOC_KIND, DOC_VERSION, tombstone, type MemoryDocument, type TombstoneDocument } from './document.ts';
import type { KeyRing } from './keys.ts';
import type { ReplicaDocument, SyncReplica } from './ports.ts';

/** A document as the server holds it when encrypted. */
interface SealedDocument {
  _id: string;
  _rev?: string;
  _deleted?: boolean;
  kind: typeof DOC_KIND;
  v: typeof DOC_VERSION;
  by?: string;
  enc: Sealed;
}

/** What a sealed document's ciphertext holds. */
interface Content {
  memory: MemoryDocument['memory'];
  vector?: MemoryDocument['vector'];
}

async function close(ring: KeyRing, doc: MemoryDocument | TombstoneDocument): Promise<SealedDocument | TombstoneDocument> {
  if (doc._deleted) return tombstone(doc._id, doc._rev, doc.by ?? '');
  const d = doc as MemoryDocument;
  const content: Content = { memory: d.memory, ...(d.vector ? { vector: d.vector } : {}) };
  return {
    _id: d._id,
    ...(d._rev === undefined ? {} : { _rev: d._rev }),
    kind: DOC_KIND,
    v: DOC_VERSION,
    ...(d.by === undefined ? {} : { by: d.by }),
    enc: await seal(ring.current, d._id, content),
  };
}

/** The plain document, or the document without a memory when it cannot be opened here. */
async function open(ring: KeyRing, doc: ReplicaDocument): Promise<ReplicaDocument> {
  const raw = doc as unknown as Record<string, unknown>;
  if (doc._deleted || raw.enc === undefined) return doc;
  const { enc, memory: _ignored, vector: _v, ...rest } = raw;
  const sealed = checkSealed(enc);
  const key = sealed && (sealed.k === ring.current.id ? ring.current : sealed.k === ring.previous?.id ? ring.previous : undefined);
  if (!sealed || !key) return { ...rest, enc: true } as unknown as ReplicaDocument;
  try {
    const content = (await unseal(key.key, doc._id, sealed)) as Content;
    if (!content || typeof content !== 'object') throw new Error('not a document');
    return { ...rest, memory: content.memory, ...(content.vector ? { vector: content.vector } : {}) } as ReplicaDocument;
  } catch {
    return { ...rest, enc: true } as unknown as ReplicaDocument;
  }
}

export function encryptedReplica(inner: SyncReplica, ring: KeyRing): SyncReplica {
  return {
    remote: inner.remote,
    async getDocs(ids) {
      const docs = await inner.getDocs(ids);
      const out = new Map<string, ReplicaDocument>();
      for (const [id, doc] of docs) out.set(id, await open(ring, doc));
      return out;
    },
    async getRevision(id, rev) {
      const doc = await inner.getRevision(id, rev);
      return doc && open(ring, doc);
    },
    async putDocs(docs) {
      return inner.putDocs((await Promise.all(docs.map((d) => close(ring, d)))) as unknown as MemoryDocument[]);
    },
    removeRevisions: (id, revs) => inner.removeRevisions(id, revs),
    async changes(since, limit) {
      const page = await inner.changes(since, limit);
      const results = await Promise.all(page.results.map(async (c) => (c.doc ? { ...c, doc: await open(ring, c.doc) } : c)));
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

/** Documents re-sealed per batch during a passphrase change. */
const REKEY_BATCH = 200;

/**
 * Seals again under the ring's current key every document of the replica still sealed under its
 * previous one (a passphrase change), a batch at a time, with progress; the caller replicates
 * afterwards. Safe to stop and run again: what is done stays done. Returns how many documents
 * are still under the previous key (0: the change can be completed).
 */
export async function resealReplica(
  inner: SyncReplica,
  ring: KeyRing,
  options: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void } = {},
): Promise<{ resealed: number; left: number }> {
  const previous = ring.previous;
  if (!previous) return { resealed: 0, left: 0 };
  let since: number | string = 0;
  let resealed = 0;
  let left = 0;
  for (;;) {
    throwIfAborted(options.signal);
    const { results, lastSeq } = await inner.changes(since, REKEY_BATCH);
    if (!results.length) break;
    const old = results.flatMap((c) => {
      const enc = (c.doc as unknown as { enc?: unknown } | undefined)?.enc;
      const sealed = c.deleted || !c.doc ? null : checkSealed(enc);
      return sealed && sealed.k === previous.id ? [c.doc!] : [];
    });
    const opened = await Promise.all(old.map((d) => open({ current: previous }, d)));
    const readable = opened.filter((d) => (d as unknown as { memory?: unknown }).memory !== undefined) as unknown as MemoryDocument[];
    left += old.length - readable.length;
    if (readable.length) {
      const lost = await inner.putDocs((await Promise.all(readable.map((d) => close(ring, d)))) as unknown as MemoryDocument[]);
      resealed += readable.length - lost.length;
      left += lost.length;
    }
    options.onProgress?.({ kind: 'sync', phase: 'rekey', done: resealed, total: null });
    since = lastSeq;
    if (results.length < REKEY_BATCH) break;
  }
  return { resealed, left };
}
