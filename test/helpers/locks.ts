import type { LockManagerLike } from '../../src/core/services/import-lease.ts';

/** An in-memory Web Locks manager (exclusive locks, a FIFO queue per name, ifAvailable, signal). */
export function fakeLocks(): LockManagerLike & { held(name: string): boolean } {
  const holders = new Map<string, { queue: (() => void)[] }>();
  return {
    held: (name) => holders.has(name),
    async request<T>(name: string, options: { ifAvailable?: boolean; signal?: AbortSignal }, callback: (lock: unknown) => Promise<T> | T): Promise<T> {
      const entry = holders.get(name);
      if (entry) {
        if (options.ifAvailable) return callback(null);
        await new Promise<void>((resolve, reject) => {
          entry.queue.push(resolve);
          options.signal?.addEventListener('abort', () => {
            const i = entry.queue.indexOf(resolve);
            if (i !== -1) entry.queue.splice(i, 1);
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
      } else {
        holders.set(name, { queue: [] });
      }
      try {
        return await callback({ name });
      } finally {
        const current = holders.get(name)!;
        const next = current.queue.shift();
        if (next) next();
        else holders.delete(name);
      }
    },
  };
}
