/**
 * Durable-storage facts from the StorageManager API: whether the origin's storage is
 * persistent (not evicted under pressure) and how much is used. `persist()` exists only in
 * window contexts, so the page asks for it and the worker reports the outcome.
 */
export interface StorageInfo {
  /** true/false once known; null where the API is missing (Node, some extension contexts). */
  persisted: boolean | null;
  usage: number | null;
  quota: number | null;
}

type StorageManagerLike = {
  persisted?: () => Promise<boolean>;
  persist?: () => Promise<boolean>;
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
};

function manager(): StorageManagerLike | undefined {
  return (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator?.storage;
}

/** Reads the current persistence state and estimate; never throws. */
export async function readStorageInfo(): Promise<StorageInfo> {
  const storage = manager();
  const persisted = storage?.persisted ? await storage.persisted().catch(() => null) : null;
  const estimate = storage?.estimate ? await storage.estimate().catch(() => undefined) : undefined;
  return { persisted, usage: estimate?.usage ?? null, quota: estimate?.quota ?? null };
}

/** Asks the browser to keep this origin's data (window contexts only); returns the outcome. */
export async function requestPersistentStorage(): Promise<boolean | null> {
  const storage = manager();
  if (!storage?.persist) return null;
  try {
    return (await storage.persisted?.()) || (await storage.persist());
  } catch {
    return null;
  }
}
