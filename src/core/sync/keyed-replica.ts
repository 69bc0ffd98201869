/**
 * A session's replica, keyed (#31, #49): opened on first use, when the remote's key document says
 * whether the database is end-to-end encrypted and under which key (keys.ts), so an unreachable
 * server at `sync()` time is retried like any round and live mode keeps trying. An encrypted
 * session reads and writes through `encryptedReplica` over a local replica of its own per key;
 * a plain one over the plain replica. Before every replication round the key document is asked
 * again: a plain device never uploads into a database made encrypted since, and a device on a key
 * that was changed elsewhere stops (SYNC_KEY) rather than write what nobody else can read. While a
 * passphrase change or an upgrade to the format-2 seal is under way, each round seals documents
 * again under the current key in the current format and, once none is left, completes it on the
 * server (the key document's new version is what makes every device of this version strict).
 */
import type { ProgressEvent } from '../types.ts';
import type { SyncSecret } from './crypto.ts';
import { encryptedReplica, resealReplica } from './encrypted-replica.ts';
import { checkKeyDocument, completeChange, keyError, planKeys, KEY_DOC_VERSION, type KeyDocument, type KeyPlan, type SeenBefore } from './keys.ts';
import type { SyncReplica } from './ports.ts';

export interface KeyedReplicaOptions {
  url: string;
  /** Opens the local replica for the remote; `variant` names the replica of one key. */
  open: (variant?: string) => Promise<SyncReplica>;
  secret?: SyncSecret;
  /** A new passphrase: the change starts (or resumes) with this session. */
  next?: SyncSecret;
  /** What this device remembers of the remote (it synced it encrypted, in this format). */
  seen?: SeenBefore;
  /** Told the plan once the replica opened, and again when an upgrade completes (the device remembers the format). */
  onPlan?: (plan: KeyPlan) => void | Promise<void>;
}

interface Opened {
  replica: SyncReplica;
  /** The replica under the encryption (a passphrase change reseals there). */
  inner: SyncReplica;
  plan: KeyPlan;
}

export function keyedReplica(options: KeyedReplicaOptions): SyncReplica & { plan(): Promise<KeyPlan> } {
  let opening: Promise<Opened> | null = null;

  const openOnce = async (): Promise<Opened> => {
    const plain = await options.open();
    let plan: KeyPlan;
    try {
      plan = await planKeys(
        await plain.inspectRemote(),
        options.secret,
        options.next,
        (doc) => plain.writeRemoteKey(doc),
        () => plain.inspectRemote(),
        options.seen,
      );
    } catch (error) {
      await plain.close().catch(() => undefined);
      throw error;
    }
    await options.onPlan?.(plan);
    if (plan.mode === 'plain') return { replica: plain, inner: plain, plan };
    await plain.close().catch(() => undefined);
    const inner = await options.open(plan.ring.current.id);
    const opened: Opened = { replica: inner, inner, plan };
    // Strict once the database is upgraded, or this device saw it upgraded (a server cannot roll that back).
    const strict = (): boolean => opened.plan.mode === 'encrypted' && (opened.plan.doc.v >= KEY_DOC_VERSION || (options.seen?.format ?? 1) >= KEY_DOC_VERSION);
    opened.replica = encryptedReplica(inner, plan.ring, strict);
    return opened;
  };
  const ready = (): Promise<Opened> => {
    opening ??= openOnce().catch((error: unknown) => {
      opening = null; // not decided: the next round asks again
      throw error;
    });
    return opening;
  };

  /** The remote's key is still the one this session uses (none, for a plain one). */
  const checkKey = async (o: Opened): Promise<KeyDocument | null> => {
    const { keyDoc } = await o.inner.inspectRemote();
    const doc = keyDoc && checkKeyDocument(keyDoc);
    if (o.plan.mode === 'plain') {
      if (keyDoc) throw keyError('This database became end-to-end encrypted: sync with encryption: { passphrase } (or { key })', 'encrypted');
      return null;
    }
    if (!keyDoc) throw keyError('The key document of this end-to-end encrypted database is gone from the server: nothing is sent or taken in until it is back', 'key-missing');
    if (doc && doc.v < o.plan.doc.v) throw keyError('The database key document was rolled back to an older version: nothing is sent or taken in', 'downgraded');
    if (!doc || doc.current.id !== o.plan.ring.current.id) {
      throw keyError('The passphrase of this end-to-end encrypted database was changed on another device: sync with the new one', 'changed');
    }
    return doc;
  };

  /** Reseals what is left under the old key or in the old format and, when nothing is, completes the change or the upgrade on the server. */
  const continueRekey = async (o: Opened, doc: KeyDocument, replicate: SyncReplica['replicate'], rest: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void }) => {
    if (o.plan.mode !== 'encrypted' || !((o.plan.rekey && doc.previous) || doc.v < KEY_DOC_VERSION)) return { pushed: 0, pulled: 0 };
    const { left } = await resealReplica(o.inner, o.plan.ring, rest);
    const moved = await replicate(rest.signal ? { signal: rest.signal } : {});
    if (left === 0) {
      const written = await o.inner.writeRemoteKey(completeChange(doc));
      if (written) {
        o.plan = { ...o.plan, rekey: false, doc: written };
        await options.onPlan?.(o.plan);
      }
    }
    return moved;
  };

  return {
    remote: options.url,
    plan: async () => (await ready()).plan,
    getDocs: async (ids) => (await ready()).replica.getDocs(ids),
    getRevision: async (id, rev) => (await ready()).replica.getRevision(id, rev),
    getAncestors: async (id, rev, depth) => (await ready()).replica.getAncestors(id, rev, depth),
    putDocs: async (docs) => (await ready()).replica.putDocs(docs),
    removeRevisions: async (id, revs, by) => (await ready()).replica.removeRevisions(id, revs, by),
    changes: async (since, limit) => (await ready()).replica.changes(since, limit),
    readCheckpoint: async () => (await ready()).replica.readCheckpoint(),
    writeCheckpoint: async (checkpoint) => (await ready()).replica.writeCheckpoint(checkpoint),
    async replicate(round) {
      const o = await ready();
      const doc = await checkKey(o);
      const moved = await o.replica.replicate(round);
      if (doc) {
        const more = await continueRekey(o, doc, (r) => o.replica.replicate(r), round);
        moved.pushed += more.pushed;
        moved.pulled += more.pulled;
      }
      return moved;
    },
    waitForRemote: async (wait) => (await ready()).replica.waitForRemote(wait),
    inspectRemote: async () => (await ready()).inner.inspectRemote(),
    writeRemoteKey: async (doc) => (await ready()).inner.writeRemoteKey(doc),
    async close() {
      const o = opening && (await opening.catch(() => null));
      opening = null;
      await o?.replica.close();
    },
  };
}
