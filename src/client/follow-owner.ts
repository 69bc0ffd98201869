/**
 * A client that follows the elected owner of the memory worker (see owner-election.ts): every
 * call goes to the current owner; when the owner changes, the store is opened again on the new
 * one and calls made meanwhile wait for it. A call that was in flight on the owner that went
 * away fails with CLOSED: the caller decides whether to retry (reads are always safe to; every
 * write was either committed in one transaction or not at all).
 */
import { MemoryError } from '../core/errors.ts';
import type { MemoryApi } from '../core/api.ts';
import { STORE_METHODS } from '../rpc/protocol.ts';
import { connectEndpoint, type ConnectEndpointOptions, type MemoryClient } from './connect.ts';
import type { OwnerElection } from './owner-election.ts';

export async function connectFollowingOwner(election: OwnerElection, options: ConnectEndpointOptions): Promise<MemoryClient> {
  const { onProgress, onClose, ...request } = options;
  // The election's endpoints are shared by this tab's clients: closing one leaves them open.
  let current = await connectEndpoint(await election.endpoint(), { ...request, sharedEndpoint: true, ...(onProgress ? { onProgress } : {}) });
  let switching: Promise<void> | null = null;
  let closed = false;

  /** Opens the store on the new owner; retried while owners keep changing under us. */
  async function follow(): Promise<void> {
    for (let attempt = 0; !closed; attempt++) {
      try {
        current = await connectEndpoint(await election.endpoint(), { ...request, sharedEndpoint: true });
        return;
      } catch (error) {
        if (!(error instanceof MemoryError && error.code === 'CLOSED') || attempt >= 20) throw error;
      }
    }
  }

  const stopFollowing = election.onOwnerChange(() => {
    if (closed) return;
    const next: Promise<void> = follow().finally(() => {
      if (switching === next) switching = null;
    });
    // Failures surface in the calls that wait for it, not as an unhandled rejection.
    next.catch(() => undefined);
    switching = next;
  });

  const methods = Object.fromEntries(
    STORE_METHODS.map((method) => [
      method,
      async (...args: unknown[]) => {
        if (closed) throw new MemoryError('CLOSED', `Store "${current.name}" is closed`);
        if (switching) await switching;
        return (current[method] as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as MemoryApi;

  return {
    ...methods,
    get name() {
      return current.name;
    },
    get embedder() {
      return current.embedder;
    },
    get backend() {
      return current.backend;
    },
    // Change events travel on a BroadcastChannel of the origin, whichever tab owns the worker.
    subscribe: (listener) => current.subscribe(listener),
    async stores() {
      if (switching) await switching;
      return current.stores();
    },
    async deleteStore(name) {
      if (switching) await switching;
      return current.deleteStore(name);
    },
    async renameStore(from, to) {
      if (switching) await switching;
      return current.renameStore(from, to);
    },
    async moveStore(name, to, options) {
      if (switching) await switching;
      return current.moveStore(name, to, options);
    },
    async close() {
      if (closed) return;
      closed = true;
      stopFollowing();
      try {
        if (switching) await switching.catch(() => undefined);
        await current.close();
      } catch {
        // The owner may be gone already; nothing of ours is left to release there.
      } finally {
        onClose?.();
      }
    },
  };
}
