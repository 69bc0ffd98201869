/**
 * A memory as a CouchDB document, for replication through CouchDB's own protocol (issue #18:
 * PouchDB in the worker, CouchDB / Cloudant / PouchDB Server on the other side). Pure: no
 * engine here, only what a replica holds and how it reads back.
 *
 * One document per memory, `_id` = `m:` + the memory's id (CouchDB reserves ids starting with
 * `_`, and an imported memory's id may be any string). It carries every field of the memory
 * except access tracking (`lastAccessed`, `accessCount` change on every recall: replicating them
 * would make every read a write on every device and a stream of conflicts), and its vector with
 * the id of the model that made it, little-endian float32 in base64, so a device on the same
 * model reuses it and one on another model re-embeds the text. A forgotten memory is a deleted
 * document (`_deleted`, CouchDB's tombstone). The trash and the review queue stay local.
 */
import { MemoryError } from '../errors.ts';
import type { Memory } from '../types.ts';
import { checkRecord, vectorProblem } from '../domain/record.ts';
import { checkInteger } from '../domain/validate.ts';
import { fromBase64, toBase64 } from './base64.ts';

export const DOC_PREFIX = 'm:';
export const DOC_KIND = 'houkai-memory';
/** The document layout's version; a reader refuses a newer one rather than guess. */
export const DOC_VERSION = 1;

/** The memory's fields a document carries: all but access tracking. */
export type SyncedMemory = Omit<Memory, 'lastAccessed' | 'accessCount'>;

export interface MemoryDocument {
  _id: string;
  _rev?: string;
  _deleted?: boolean;
  kind: typeof DOC_KIND;
  v: typeof DOC_VERSION;
  memory: SyncedMemory;
  /** The vector and the model that made it; absent on a deleted document. */
  vector?: { model: string; dim: number; f32: string };
  /**
   * Which replica wrote this revision (a random id per device and store), so a device does not
   * apply its own writes back; 'merge' for a revision folding concurrent edits together.
   */
  by?: string;
}

/**
 * A deletion: CouchDB's tombstone, carrying nothing of the memory (a tombstone stays on the server
 * for good: it must not keep the text a person asked to forget), only who wrote it and what it
 * means (`op`): a `forget` of the memory, or a `prune` of a losing branch whose content was folded
 * into the winner — which says nothing about the memory (winner.ts). A deletion without `op` was
 * written before #49: a forget when it carries `kind`, a prune when it is bare.
 */
export interface TombstoneDocument {
  _id: string;
  _rev?: string;
  _deleted: true;
  kind: typeof DOC_KIND;
  v: typeof DOC_VERSION;
  by?: string;
  op?: 'forget' | 'prune';
}

/** A forget of the memory whose document this is, replacing revision `rev`. */
export function tombstone(id: string, rev: string | undefined, by: string): TombstoneDocument {
  return { _id: id, ...(rev === undefined ? {} : { _rev: rev }), _deleted: true, kind: DOC_KIND, v: DOC_VERSION, by, op: 'forget' };
}

/** The removal of losing leaf `rev` once its content was folded in (or it was refused). */
export function prune(id: string, rev: string, by: string): TombstoneDocument {
  return { _id: id, _rev: rev, _deleted: true, kind: DOC_KIND, v: DOC_VERSION, by, op: 'prune' };
}

export const docId = (memoryId: string): string => `${DOC_PREFIX}${memoryId}`;

export function memoryIdOf(id: string): string | null {
  return id.startsWith(DOC_PREFIX) && id.length > DOC_PREFIX.length ? id.slice(DOC_PREFIX.length) : null;
}

/** Float32 values as little-endian bytes in base64 (the same bytes on every platform). */
export function encodeVector(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((x, i) => view.setFloat32(i * 4, x, true));
  return toBase64(bytes);
}

export function decodeVector(text: string, dim: number): Float32Array | null {
  const bytes = fromBase64(text);
  if (!bytes || bytes.length !== dim * 4) return null;
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = view.getFloat32(i * 4, true);
  return out.every(Number.isFinite) ? out : null;
}

/** The document for a memory and its vector (made by `model`). */
export function toDocument(memory: Memory, vector: Float32Array | null, model: string, by?: string): MemoryDocument {
  const { lastAccessed: _lastAccessed, accessCount: _accessCount, ...synced } = memory;
  return {
    _id: docId(memory.id),
    kind: DOC_KIND,
    v: DOC_VERSION,
    memory: structuredClone(synced),
    ...(vector ? { vector: { model, dim: vector.length, f32: encodeVector(vector) } } : {}),
    ...(by === undefined ? {} : { by }),
  };
}

function bad(id: unknown, reason: string): MemoryError {
  return new MemoryError('INVALID_ARGUMENT', `Replicated document ${JSON.stringify(id)} is not a memory this version can read: ${reason}`, { id, reason });
}

/** What a replicated document holds for this device. */
export interface ReadDocument {
  memory: SyncedMemory;
  /** The vector when it was made by `localModel` with the same dimension; null: re-embed the text. */
  vector: Float32Array | null;
}

/**
 * Reads a replicated document, checked field by field as an import row is (a remote is not
 * trusted to be well-formed). Deleted documents are not read here: they are forgets.
 * @throws MemoryError INVALID_ARGUMENT naming the document and the reason.
 */
export function fromDocument(doc: unknown, localModel: string, localDim: number): ReadDocument {
  if (doc === null || typeof doc !== 'object') throw bad(null, 'not an object');
  const d = doc as Partial<MemoryDocument> & Record<string, unknown>;
  const id = typeof d._id === 'string' ? memoryIdOf(d._id) : null;
  if (id === null) throw bad(d._id, `its _id does not start with ${DOC_PREFIX}`);
  if (d.kind !== DOC_KIND) throw bad(d._id, 'not a memory document');
  if (typeof d.v !== 'number' || d.v > DOC_VERSION) throw bad(d._id, `layout version ${String(d.v)} is newer than ${DOC_VERSION}`);
  const m = d.memory as Partial<SyncedMemory> | undefined;
  if ((!m || typeof m !== 'object') && d.enc !== undefined) throw bad(d._id, 'it is end-to-end encrypted under a key this device does not hold');
  if (!m || typeof m !== 'object') throw bad(d._id, 'no memory');
  if (m.id !== id) throw bad(d._id, 'the memory id differs from the document id');
  let memory: SyncedMemory;
  try {
    // The import row's checks, whole (record.ts): ids without control characters and of bounded
    // length, links to other memories only, a supersession that is not the memory itself, a
    // validity interval that is not empty, every field `remember` would refuse refused.
    const { lastAccessed: _l, accessCount: _c, ...checked } = checkRecord({
      ...(m as Memory),
      supersededBy: typeof m.supersededBy === 'string' ? m.supersededBy : '',
      supersededAt: m.supersededAt ?? 0,
      source: m.source ?? null,
      polarity: m.polarity ?? 0,
      expiresAt: m.expiresAt ?? 0,
      pinned: m.pinned === true,
      trust: m.trust ?? 'trusted',
      contentHash: typeof m.contentHash === 'string' ? m.contentHash : '',
      validFrom: m.validFrom ?? 0,
      validUntil: m.validUntil ?? 0,
      surfacesWhen: m.surfacesWhen ?? [],
      lastAccessed: typeof m.createdAt === 'number' ? m.createdAt : 0,
      accessCount: 0,
    });
    memory = checked;
  } catch (error) {
    throw bad(d._id, (error as Error).message);
  }
  let vector: Float32Array | null = null;
  const v = d.vector;
  if (v && typeof v === 'object' && v.model === localModel && v.dim === localDim && typeof v.f32 === 'string') {
    checkInteger(v.dim, 'vector.dim', 1, 65_536);
    vector = decodeVector(v.f32, localDim);
    if (!vector) throw bad(d._id, 'its vector does not decode to the stated dimension');
    // A vector nothing can be searched with (a non-finite component, a zero, vanishing or huge
    // norm) is dropped and the text embedded here, as an import does with such a row's vector.
    if (vectorProblem(vector) !== null) vector = null;
  }
  return { memory, vector };
}

function checkLinks(value: unknown): Memory['links'] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 10_000) throw new MemoryError('INVALID_ARGUMENT', 'links must be an array', { field: 'links' });
  return value.map((l: unknown, i) => {
    const link = l as { to?: unknown; rel?: unknown } | null;
    if (!link || typeof link.to !== 'string' || typeof link.rel !== 'string' || link.to === '' || link.rel === '') {
      throw new MemoryError('INVALID_ARGUMENT', `links[${i}] must be { to, rel } strings`, { field: `links[${i}]` });
    }
    return { to: link.to, rel: link.rel };
  });
}
