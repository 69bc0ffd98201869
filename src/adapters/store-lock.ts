/**
 * A store's name held across the workers of an origin with Web Locks (`houkai-web:store:<name>`):
 * every open store holds it shared for as long as it is open, and a move between storages takes
 * it exclusively, so a store is never moved from under a tab that has it open in another worker
 * (a SharedWorker, another tab's dedicated one), where the registry of this worker cannot see
 * it. A delete or a rename takes it alone too, so neither happens to a store open elsewhere.
 * Without Web Locks (Node) there is one process to think of, and nothing is held.
 */
import { MemoryError } from '../core/errors.ts';

interface Locks {
  request(name: string, options: { mode?: 'shared' | 'exclusive'; ifAvailable?: boolean }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

export const storeLockName = (name: string): string => `houkai-web:store:${name}`;

function webLocks(locks?: Locks): Locks | null {
  if (locks) return locks;
  const found = (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks;
  return found && typeof found.request === 'function' ? found : null;
}

/**
 * Holds the store's name shared until the returned release is called; the release resolves once
 * the lock is let go, so a delete or move asked for right after a close is not refused by the
 * closing store itself (at once without Web Locks).
 */
export async function holdStore(name: string, locks?: Locks): Promise<() => Promise<void>> {
  const api = webLocks(locks);
  if (!api) return async () => undefined;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let letGo!: Promise<unknown>;
  await new Promise<void>((granted, refused) => {
    letGo = api.request(storeLockName(name), { mode: 'shared' }, async () => {
      granted();
      await held;
    });
    letGo.catch(refused);
  });
  return async () => {
    release();
    await letGo.catch(() => undefined);
  };
}

/**
 * Runs `work` holding the store's name alone.
 * @throws MemoryError STORE_IN_USE when a store of that name is open anywhere in the origin.
 */
export async function withStoreAlone<T>(name: string, action: string, work: () => Promise<T>, locks?: Locks): Promise<T> {
  const api = webLocks(locks);
  if (!api) return work();
  let ran = false;
  const result = (await api.request(storeLockName(name), { mode: 'exclusive', ifAvailable: true }, async (lock) => {
    if (lock === null) return undefined;
    ran = true;
    return work();
  })) as T;
  if (!ran) throw new MemoryError('STORE_IN_USE', `Store ${JSON.stringify(name)} is open in another tab or worker; close it there to ${action} it`, { name, action });
  return result;
}
