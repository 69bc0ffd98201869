/**
 * Who owns an import in progress, and whether they still do. An import writes batch by batch
 * under an undo log; if its owner dies (a closed tab, a killed worker) the log must be rolled
 * back, but only then: another owner of the same store (a second tab with its own worker, a
 * second process) opening it meanwhile must leave a live import alone.
 *
 * The importer records a *lease* beside its undo log (storage: `beginImport`) and, where the
 * platform has Web Locks, holds the lock `houkai-web:import:<store>:<importId>` for the import's
 * whole life. Another owner decides:
 *
 * - the lease names a lock and Web Locks exist: the owner is gone exactly when the lock is free
 *   (a browser releases a dead tab's locks at once; a live background tab's throttled timers do
 *   not matter). While it is held the other owner queues for it and rolls the import back only if
 *   it is still pending when the lock is granted;
 * - otherwise (Node, browsers without Web Locks): the importer renews the lease's heartbeat
 *   every `heartbeatSeconds`, and the import is abandoned once the heartbeat is `ttlSeconds`
 *   old; a live import is checked again when its lease would run out;
 * - no lease at all (an undo log from an older version): abandoned.
 *
 * The importer checks its lease in the transaction of every batch and of the final commit
 * (storage), so an import rolled back from under it (a lease that lapsed while its owner was
 * stalled) fails with ABORTED instead of reporting success. Pure orchestration over the storage
 * port and a structural lock manager; no DOM types.
 */
import type { ImportLease, IndexDelta, MemoryStorage } from '../ports.ts';

/** The part of the Web Locks API this uses (`navigator.locks`). */
export interface LockManagerLike {
  request<T>(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<T> | T): Promise<T>;
}

export interface ImportLeaseOptions {
  /** The store's name (part of the lock name). */
  name: string;
  storage: Pick<MemoryStorage, 'beginImport' | 'renewImport' | 'pendingImports' | 'rollbackImport'>;
  now(): number;
  newId(): string;
  /** Web Locks; default `navigator.locks` where it exists, `null` to use leases only. */
  locks?: LockManagerLike | null;
  /** A lease this old (seconds since its last heartbeat) is abandoned. Default 30. */
  ttlSeconds?: number;
  /** How often a live import renews its lease. Default 5. */
  heartbeatSeconds?: number;
  /** Applies a rollback's effect on the vectors to the open index (not called during `recover` at open). */
  rolledBack?(delta: IndexDelta, importId: string): void;
}

export interface ImportHold {
  lease: ImportLease;
  /** Stops the heartbeat and releases the lock (the lease row itself goes with finish or rollback). */
  end(): void;
}

function platformLocks(): LockManagerLike | null {
  return (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks ?? null;
}

export class ImportLeases {
  private readonly locks: LockManagerLike | null;
  private readonly ttl: number;
  private readonly heartbeat: number;
  private readonly owner: string;
  /** Imports of other owners this one waits on (lock queue or lease timer), by import id. */
  private readonly watching = new Map<string, { abort(): void; byLock: boolean }>();
  private live = true;
  private afterOpen = false;

  constructor(private readonly options: ImportLeaseOptions) {
    this.locks = options.locks === undefined ? platformLocks() : options.locks;
    this.ttl = options.ttlSeconds ?? 30;
    this.heartbeat = options.heartbeatSeconds ?? 5;
    this.owner = options.newId();
  }

  private lockName(importId: string): string {
    return `houkai-web:import:${this.options.name}:${importId}`;
  }

  /** Starts owning an import: takes its lock (where locks exist), records the lease, starts the heartbeat. */
  async begin(importId: string): Promise<ImportHold> {
    let lockName = this.locks ? this.lockName(importId) : null;
    let release: () => void = () => undefined;
    if (this.locks && lockName) {
      let granted!: (ok: boolean) => void;
      const held = new Promise<boolean>((resolve) => (granted = resolve));
      const done = new Promise<void>((resolve) => (release = resolve));
      this.locks
        .request(lockName, {}, async () => {
          granted(true);
          await done;
        })
        .catch(() => granted(false)); // a lock manager that fails: fall back to the lease alone
      if (!(await held)) lockName = null;
    }
    const now = this.options.now();
    const lease: ImportLease = { importId, owner: this.owner, startedAt: now, heartbeatAt: now, ttl: this.ttl, lock: lockName };
    try {
      await this.options.storage.beginImport(lease);
    } catch (error) {
      release();
      throw error;
    }
    const timer = setInterval(() => {
      void this.options.storage.renewImport(importId, this.options.now()).catch(() => undefined);
    }, this.heartbeat * 1000);
    (timer as { unref?: () => void }).unref?.();
    let ended = false;
    return {
      lease,
      end: () => {
        if (ended) return;
        ended = true;
        clearInterval(timer);
        release();
      },
    };
  }

  /**
   * Rolls back the pending imports whose owner is gone and watches the others (they are rolled
   * back if their owner dies before finishing). Run at open (before the index exists, so
   * `rolledBack` is not called then) and before each import; a lease-watched import is checked
   * again each time.
   */
  async recover(): Promise<{ rolledBack: string[]; live: string[] }> {
    const rolledBack: string[] = [];
    const live: string[] = [];
    for (const { importId, lease } of await this.options.storage.pendingImports()) {
      const watched = this.watching.get(importId);
      if (watched?.byLock) {
        live.push(importId);
        continue;
      }
      watched?.abort();
      this.watching.delete(importId);
      if (await this.abandoned(lease)) {
        await this.rollback(importId, lease);
        rolledBack.push(importId);
      } else {
        live.push(importId);
        this.watch(importId, lease!);
      }
    }
    this.afterOpen = true;
    return { rolledBack, live };
  }

  /** Stops watching (the store is closing). */
  stop(): void {
    this.live = false;
    for (const w of this.watching.values()) w.abort();
    this.watching.clear();
  }

  private async abandoned(lease: ImportLease | null): Promise<boolean> {
    if (!lease) return true;
    if (lease.lock && this.locks) {
      return this.locks.request(lease.lock, { ifAvailable: true }, async (lock) => lock !== null);
    }
    return this.options.now() - lease.heartbeatAt > (lease.ttl || this.ttl);
  }

  private async rollback(importId: string, lease: ImportLease | null): Promise<void> {
    const run = async (): Promise<void> => {
      const delta = await this.options.storage.rollbackImport(importId);
      if (this.afterOpen) this.options.rolledBack?.(delta, importId);
    };
    // Held while rolling back, so the owner it was taken from (gone) and a third owner never overlap.
    if (lease?.lock && this.locks) await this.locks.request(lease.lock, { ifAvailable: true }, async (lock) => (lock ? run() : undefined));
    else await run();
  }

  /** Waits for a live import's owner to finish or die; rolls the import back in the second case. */
  private watch(importId: string, lease: ImportLease): void {
    const settle = async (): Promise<void> => {
      this.watching.delete(importId);
      if (!this.live) return;
      const still = (await this.options.storage.pendingImports()).find((p) => p.importId === importId);
      if (!still) return; // finished or rolled back by its owner
      if (await this.abandoned(still.lease)) await this.rollback(importId, still.lease);
      else this.watch(importId, still.lease ?? lease);
    };
    if (lease.lock && this.locks) {
      const controller = new AbortController();
      this.watching.set(importId, { abort: () => controller.abort(), byLock: true });
      // Granted when the importer releases its lock: at the end of the import, or when it dies.
      this.locks
        .request(lease.lock, { signal: controller.signal }, async () => undefined)
        .then(() => settle(), () => undefined)
        .catch(() => undefined);
      return;
    }
    const due = Math.max(0, lease.heartbeatAt + (lease.ttl || this.ttl) - this.options.now()) + 1;
    const timer = setTimeout(() => void settle().catch(() => undefined), due * 1000);
    (timer as { unref?: () => void }).unref?.();
    this.watching.set(importId, { abort: () => clearTimeout(timer), byLock: false });
  }
}
