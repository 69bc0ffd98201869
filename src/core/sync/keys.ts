/**
 * Which key a sync session uses, decided from the remote's key document, what the caller holds
 * and what this device remembers of the remote (#31, #49). The key document (`houkai:key`,
 * replicated like any other) says a database is end-to-end encrypted; it holds the current key
 * entry and, while a passphrase change is under way, the previous one, and its version is the
 * seal format the database is upgraded to (2: seals bound to revision, writer and state; 1:
 * bound to the id only, upgraded in place by the first session of this version). Nothing here
 * writes a memory: a refusal is SYNC_KEY before any round.
 *
 * - a device that synced the database encrypted before never syncs it in the clear: without the
 *   key document it refuses ('key-missing' while the database holds memories, 'encrypted' without
 *   a secret), and a key document of an older version than it saw is refused ('downgraded');
 * - no key document, no secret: plain, as before;
 * - no key document, a secret: the database is made encrypted (its key document written first),
 *   unless it already holds plain memories — those would stay readable on the server, so that
 *   takes a new, empty database;
 * - a key document, no secret: refused (an unencrypted device never uploads plaintext there);
 * - a key document, a secret: the current entry must open with it (a wrong passphrase, or the
 *   old one after a change elsewhere, is refused); with `newPassphrase` the change starts, or
 *   resumes where another attempt stopped.
 */
import { MemoryError } from '../errors.ts';
import { MAX_ITERATIONS, MIN_ITERATIONS, checkEntry, newEntry, openEntry, type KeyEntry, type OpenKey, type SyncSecret } from './crypto.ts';

export const KEY_DOC_ID = 'houkai:key';
export const KEY_DOC_KIND = 'houkai-key';
/** The key document's version this version writes: the seal format its documents are in. */
export const KEY_DOC_VERSION = 2;

/** The key document as the server stores it. */
export interface KeyDocument {
  _id: typeof KEY_DOC_ID;
  _rev?: string;
  kind: typeof KEY_DOC_KIND;
  /** 1: documents sealed in the first format (bound to the id only); 2: in format 2. */
  v: 1 | 2;
  current: KeyEntry;
  /** The key a passphrase change is moving away from, until every document is sealed under `current`. */
  previous?: KeyEntry;
  /**
   * Keys changes moved away from (newest first, at most {@link MAX_RETIRED}): a device still on one
   * is told the passphrase changed rather than that it is wrong. No document is sealed under them.
   */
  retired?: KeyEntry[];
}

export const MAX_RETIRED = 4;

/** The keys a session reads with; it writes under `current`. */
export interface KeyRing {
  current: OpenKey;
  previous?: OpenKey;
}

/** What the session does about encryption. */
export type KeyPlan =
  | { mode: 'plain' }
  | {
      mode: 'encrypted';
      ring: KeyRing;
      /** A passphrase change is under way: documents under `previous` are to be sealed again under `current`. */
      rekey: boolean;
      /** The key document as written or read (with its revision). */
      doc: KeyDocument;
    };

/** What the session knows of the remote before its first round. */
export interface RemoteKeys {
  /** The key document, or null when the database has none. */
  keyDoc: Record<string, unknown> | null;
  /** Whether the database holds any memory document. */
  memories: boolean;
}

/** How the session writes a key document (false: someone else wrote first: read it again). */
export type WriteKeyDoc = (doc: KeyDocument) => Promise<KeyDocument | null>;

/** What this device remembers of the remote: the key document's version when it last synced it encrypted. */
export interface SeenBefore {
  format: 1 | 2;
}

export function keyError(message: string, reason: string): MemoryError {
  return new MemoryError('SYNC_KEY', message, { reason });
}

/** A key document read from a server, checked; null when it is not one this version can use. */
export function checkKeyDocument(value: Record<string, unknown>): KeyDocument | null {
  if (value._id !== KEY_DOC_ID || value.kind !== KEY_DOC_KIND || (value.v !== 1 && value.v !== 2)) return null;
  const current = checkEntry(value.current);
  if (!current) return null;
  const previous = value.previous === undefined ? undefined : checkEntry(value.previous);
  if (previous === null) return null;
  let retired: KeyEntry[] | undefined;
  if (value.retired !== undefined) {
    if (!Array.isArray(value.retired) || value.retired.length > MAX_RETIRED) return null;
    retired = value.retired.map(checkEntry).filter((e): e is KeyEntry => e !== null);
    if (retired.length !== value.retired.length) return null;
  }
  return {
    _id: KEY_DOC_ID,
    ...(typeof value._rev === 'string' ? { _rev: value._rev } : {}),
    kind: KEY_DOC_KIND,
    v: value.v,
    current,
    ...(previous ? { previous } : {}),
    ...(retired?.length ? { retired } : {}),
  };
}

/**
 * The key document once every document is sealed under the current key in this version's format
 * (a passphrase change or an upgrade done): the previous key retired, the version this one's.
 */
export function completeChange(doc: KeyDocument): KeyDocument {
  const { previous, retired, ...rest } = doc;
  return { ...rest, v: KEY_DOC_VERSION, retired: [...(previous ? [previous] : []), ...(retired ?? [])].slice(0, MAX_RETIRED) };
}

/** A key document this version cannot read: a newer version's (update), or damaged. */
function unreadableKeyDoc(value: Record<string, unknown>): MemoryError {
  if (typeof value.v === 'number' && value.v > KEY_DOC_VERSION) {
    return keyError(`This database was upgraded by a newer version of Houkai Web (key document version ${value.v}): update this app to sync it`, 'update');
  }
  return keyError(`The database key document is damaged, or asks more of this device than it allows (PBKDF2 with ${MIN_ITERATIONS.toLocaleString('en')} to ${MAX_ITERATIONS.toLocaleString('en')} iterations): it cannot be used`, 'damaged');
}

/**
 * The session's key plan. `secret` is what the caller holds (absent: plain); `next` the new
 * passphrase of a change; `seen` what this device remembers of the remote. Writes the key
 * document when the database becomes encrypted or a change starts.
 * @throws MemoryError SYNC_KEY with `details.reason`: 'encrypted' (a secret is needed),
 *   'plain-memories' (the database holds unencrypted memories), 'wrong-key', 'changed'
 *   (the passphrase was changed on another device), 'damaged' (an unusable key document, or one
 *   asking PBKDF2 iterations out of bounds), 'update' (a newer version's key document),
 *   'key-missing' (the key document of a database this device synced encrypted is gone),
 *   'downgraded' (the key document is of an older version than this device saw).
 */
export async function planKeys(remote: RemoteKeys, secret: SyncSecret | undefined, next: SyncSecret | undefined, write: WriteKeyDoc, retry?: () => Promise<RemoteKeys>, seen?: SeenBefore): Promise<KeyPlan> {
  if (!remote.keyDoc) {
    if (seen && remote.memories) {
      throw keyError('This database was end-to-end encrypted when this device last synced it, and its key document is gone from the server: nothing is sent or taken in until it is back', 'key-missing');
    }
    if (!secret) {
      if (seen) throw keyError('This database was end-to-end encrypted when this device last synced it: sync with encryption: { passphrase } (or { key })', 'encrypted');
      return { mode: 'plain' };
    }
    if (remote.memories) {
      throw keyError('This database holds unencrypted memories: end-to-end encryption needs a new, empty database (the server keeps what it has already read)', 'plain-memories');
    }
    const { entry, key } = await newEntry(next ?? secret);
    const written = await write({ _id: KEY_DOC_ID, kind: KEY_DOC_KIND, v: KEY_DOC_VERSION, current: entry });
    if (written) return { mode: 'encrypted', ring: { current: key }, rekey: false, doc: written };
    // Another device made the database encrypted meanwhile: use its key.
    if (!retry) throw keyError('Another device wrote the database key at the same time; sync again', 'changed');
    return planKeys(await retry(), secret, next, write, undefined, seen);
  }
  // Checked before any derivation: a hostile entry cannot make this device spend its CPU.
  const doc = checkKeyDocument(remote.keyDoc);
  if (!doc) throw unreadableKeyDoc(remote.keyDoc);
  if (seen && doc.v < seen.format) {
    throw keyError(`The database key document says version ${doc.v}, older than the version ${seen.format} this device synced: a server rolled it back; nothing is sent or taken in`, 'downgraded');
  }
  if (!secret) {
    throw keyError('This database is end-to-end encrypted: sync with encryption: { passphrase } (or { key })', 'encrypted');
  }
  if (!next) {
    const current = await openEntry(doc.current, secret);
    if (current) {
      // A change under way elsewhere: documents not yet sealed again are skipped (counted) until they are.
      return { mode: 'encrypted', ring: { current }, rekey: false, doc };
    }
    for (const old of [...(doc.previous ? [doc.previous] : []), ...(doc.retired ?? [])]) {
      if (await openEntry(old, secret)) throw keyError('The passphrase of this database was changed on another device: sync with the new one', 'changed');
    }
    throw keyError('Wrong passphrase (or key) for this end-to-end encrypted database; a lost passphrase cannot be recovered', 'wrong-key');
  }
  // A change of passphrase: start it, resume it, or find it done.
  const nowCurrent = await openEntry(doc.current, next);
  if (nowCurrent) {
    const old = doc.previous ? await openEntry(doc.previous, secret) : null;
    if (doc.previous && !old) throw keyError('Wrong passphrase: the change under way moves away from another one', 'wrong-key');
    return { mode: 'encrypted', ring: { current: nowCurrent, ...(old ? { previous: old } : {}) }, rekey: old !== null, doc };
  }
  if (doc.previous) throw keyError('Another passphrase change is under way on this database: finish it first', 'changed');
  const old = await openEntry(doc.current, secret);
  if (!old) throw keyError('Wrong passphrase (or key) for this end-to-end encrypted database; a lost passphrase cannot be recovered', 'wrong-key');
  const { entry, key } = await newEntry(next);
  const written = await write({ ...doc, current: entry, previous: doc.current });
  if (!written) throw keyError('The database key changed while the passphrase change started; sync again', 'changed');
  return { mode: 'encrypted', ring: { current: key, previous: old }, rekey: true, doc: written };
}
