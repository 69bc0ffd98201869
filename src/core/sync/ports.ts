/**
 * The replication seam: what the sync bridge needs of a replication engine. The engine is
 * CouchDB's protocol as PouchDB speaks it (adapters/sync-pouchdb.ts): a local document database
 * (the replica, beside the store's own database) that replicates with a remote CouchDB, Cloudant
 * or PouchDB Server. The core never imports PouchDB; a test can hand it any engine that keeps
 * these promises.
 */
import type { MemoryDocument, TombstoneDocument } from './document.ts';
import type { KeyDocument, RemoteKeys } from './keys.ts';
import type { ProgressEvent } from '../types.ts';

/** How the remote knows who is asking: CouchDB's basic auth, or a JWT (bearer token). */
export type SyncAuth = { username: string; password: string } | { token: string };

/**
 * A document as the replica stores it: with its current revision, and how it was read. A replica
 * that checks seals (encrypted-replica.ts) marks what it could not authenticate (`refused`, with
 * why), says what a deletion means (`op`) and gives the key that orders two revisions of one
 * generation (`tie`, the seal's IV); a plain replica leaves them unset (winner.ts: leafOf).
 */
export type ReplicaDocument = MemoryDocument & { _rev: string; op?: 'forget' | 'prune'; refused?: string; tie?: string };

/** One entry of the replica's changes feed: the winning revision of a document, and its other leaves. */
export interface ReplicaChange {
  seq: number | string;
  id: string;
  deleted: boolean;
  /** CouchDB's winning revision (for a deletion, its tombstone: `by` says who deleted). */
  doc?: ReplicaDocument;
  /** Live losing leaf revisions CouchDB keeps beside the winner (concurrent edits). */
  conflicts: string[];
  /** Deleted leaf revisions beside the winner (forgets and prunes on other branches). */
  deletedLeaves: string[];
}

/** What one replication round moved, counted by the engine. */
export interface ReplicationCounts {
  pushed: number;
  pulled: number;
  /** Documents the engine would not take in (more leaves or a longer history than it allows), by id. */
  refused?: string[];
}

/** The bridge's place in both directions, kept in the replica (a lost replica starts over, safely). */
export interface SyncCheckpoint {
  /** This replica's random id: documents it wrote carry it (`by`), so its own writes are not applied back. */
  replicaId: string;
  /** The remote it last synced with (a new remote starts a full push). */
  remote: string;
  /** The newest journal seq already written to the replica. */
  pushedSeq: number;
  /**
   * The store was compared whole with the replica once (the first push). Until then every live
   * memory is compared; after, the journal says what changed — a forget included. (A device whose
   * first round pushed nothing kept `pushedSeq` 0, and its next round compared live memories only:
   * a forget right after its first pull was never sent.) Absent in checkpoints written before: a
   * round that applied anything had compared.
   */
  compared?: boolean;
  /** The replica's changes-feed position already applied to the store. */
  appliedSeq: number | string;
  /** The namespaces synced (their `ns:` tags), or absent: the whole store. Another set starts over. */
  namespaces?: string[];
}

/** The failures an engine reports in terms the bridge can act on. */
export type ReplicationFailure = 'auth' | 'unreachable' | 'missing' | 'other';

export interface SyncReplica {
  /** The remote's address without credentials (for status and the journal's actor). */
  readonly remote: string;
  /** The current revisions of these document ids (absent ones are not in the map). */
  getDocs(ids: string[]): Promise<Map<string, ReplicaDocument>>;
  /** A leaf revision of a document (a conflict's losing side), or null when it is gone. */
  getRevision(id: string, rev: string): Promise<ReplicaDocument | null>;
  /**
   * The revisions before `rev` on its branch, nearest first, at most `depth`, as far as the
   * replica or else the remote still holds their content (CouchDB keeps it until compaction);
   * stops at the first it cannot read. What a refused leaf stands on (leaves.ts).
   */
  getAncestors(id: string, rev: string, depth: number): Promise<ReplicaDocument[]>;
  /**
   * Writes documents in one batch; each replaces the revision it names (`_rev`) or creates the
   * document. Returns the ids whose write lost a race (someone wrote meanwhile): the caller retries.
   */
  putDocs(docs: (MemoryDocument | TombstoneDocument)[]): Promise<string[]>;
  /** Removes losing leaf revisions of a document (after their content was merged or queued for review), as prunes by `by`. */
  removeRevisions(id: string, revs: string[], by: string): Promise<void>;
  /** The replica's changes after `since`, oldest first, at most `limit`, each with its winner and conflicts. */
  changes(since: number | string, limit: number): Promise<{ results: ReplicaChange[]; lastSeq: number | string }>;
  readCheckpoint(): Promise<SyncCheckpoint | null>;
  writeCheckpoint(checkpoint: SyncCheckpoint): Promise<void>;
  /**
   * One replication round both ways with the remote (push, then pull), to completion.
   * @throws ReplicationError with what failed.
   */
  replicate(options: { signal?: AbortSignal; onDocs?: (counts: ReplicationCounts) => void; onProgress?: (event: ProgressEvent) => void }): Promise<ReplicationCounts>;
  /**
   * Waits on the remote's changes feed (CouchDB's longpoll) for a change after the last round's;
   * resolves when one comes, after `timeoutMs` without one, or when `signal` aborts.
   * @throws ReplicationError when the remote cannot be asked.
   */
  waitForRemote(options: { signal: AbortSignal; timeoutMs: number }): Promise<void>;
  /**
   * Asks the remote itself (not the replica) for its key document and whether it holds any memory
   * document: what decides end-to-end encryption before anything is sent (keys.ts).
   * @throws ReplicationError when the remote cannot be asked.
   */
  inspectRemote(): Promise<RemoteKeys>;
  /** Writes the key document on the remote (creating it, or replacing the revision it names); null when another write came first. */
  writeRemoteKey(doc: KeyDocument): Promise<KeyDocument | null>;
  /** Releases the local database handle (the data stays). */
  close(): Promise<void>;
}

/** What an engine throws when a round fails. */
export class ReplicationError extends Error {
  constructor(
    readonly failure: ReplicationFailure,
    message: string,
    readonly status?: number,
    /** The request never left: this app's Content-Security-Policy (`connect-src`) blocked the remote's origin. */
    readonly blockedBy?: { directive: string; origin: string },
  ) {
    super(message);
    this.name = 'ReplicationError';
  }
}

/**
 * Opens the replica of store `store` for the remote at `url`. `variant` names another replica for
 * the same remote: an encrypted session keeps its replica per key, so a replica filled in the clear
 * (or under another key) is never replicated into an encrypted database.
 */
export type SyncReplicaFactory = (options: { store: string; url: string; auth?: SyncAuth; variant?: string }) => Promise<SyncReplica>;
