import 'fake-indexeddb/auto';

type WriteMethod = 'add' | 'put' | 'delete' | 'clear';
const METHODS: WriteMethod[] = ['add', 'put', 'delete', 'clear'];

/**
 * Fault injection into (fake) IndexedDB: counts write requests (`add`, `put`, `delete`,
 * `clear`) and, once armed, lets `after` more through and then fails every later one, as a
 * process that died at that point would never write again. The transaction in which the first
 * failing request is made aborts, so its writes vanish whole (IndexedDB's guarantee); nothing
 * written afterwards (a rollback, a cleanup) reaches the database either, until `heal()`.
 */
export function idbFaults(): { count(): number; reset(): void; die(after: number): void; heal(): void; restore(): void; dead(): boolean } {
  const proto = globalThis.IDBObjectStore.prototype as unknown as Record<WriteMethod, (...args: unknown[]) => unknown>;
  const original = Object.fromEntries(METHODS.map((m) => [m, proto[m]])) as Record<WriteMethod, (...args: unknown[]) => unknown>;
  let writes = 0;
  let budget = Infinity;
  for (const method of METHODS) {
    proto[method] = function (this: unknown, ...args: unknown[]) {
      if (budget <= 0) throw new DOMException('The process is gone (injected fault)', 'UnknownError');
      budget -= 1;
      writes += 1;
      return original[method].apply(this, args);
    };
  }
  return {
    count: () => writes,
    reset: () => void (writes = 0),
    die: (after) => void (budget = after),
    heal: () => void (budget = Infinity),
    dead: () => budget <= 0,
    restore: () => {
      for (const method of METHODS) proto[method] = original[method];
    },
  };
}
