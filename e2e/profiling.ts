/**
 * Where a store's time goes, measured at its ports (the unit tests count storage calls with it too): a ledger of named phases, and decorators
 * that time every call of the storage engine (core/storage/port.ts) and the vector index
 * (core/ports.ts `VectorIndex`) without changing what they do. The bench worker wraps a store's
 * ports with them when profiling is on (bench/million.ts `--profile`), so the breakdown of an
 * ingest, a recall or an open comes from the product's own code paths, not from a replica.
 *
 * What a figure means:
 * - `idb <op> <table>`: from the call to its promise settling (IndexedDB requests of one
 *   transaction run in order, so inside a write transaction these add up to the body's wait;
 *   reads started side by side overlap, and their sum exceeds the wall time).
 * - `tx <mode> <tables>`: one transaction, from the call until it has committed; `commit` is
 *   the part after the body finished (IndexedDB's commit, LevelDB's write).
 * - `index <method>`: the index's own work (WebAssembly), synchronous except the snapshot calls.
 * - `store <method>`: the store's method inside the worker, from call to result (no RPC); `items`
 *   is the length of its first argument when that is an array.
 */
import type { StorageEngine, StorageTx } from '../src/core/storage/index.ts';
import type { VectorIndex } from '../src/core/ports.ts';

export interface PhaseTotal {
  /** Milliseconds summed over the calls. */
  ms: number;
  calls: number;
  /** Rows, keys or vectors the calls carried. */
  items: number;
}

export class PhaseLedger {
  private totals = new Map<string, PhaseTotal>();

  add(name: string, ms: number, items = 0): void {
    const total = this.totals.get(name);
    if (total) {
      total.ms += ms;
      total.calls += 1;
      total.items += items;
    } else this.totals.set(name, { ms, calls: 1, items });
  }

  /** Times `work` under `name` (also when it throws). */
  async time<T>(name: string, work: () => Promise<T>, items = 0): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.add(name, performance.now() - t0, items);
    }
  }

  timeSync<T>(name: string, work: () => T, items = 0): T {
    const t0 = performance.now();
    try {
      return work();
    } finally {
      this.add(name, performance.now() - t0, items);
    }
  }

  /** The totals so far, longest first, and a fresh start when `reset`. */
  take(reset = true): Record<string, PhaseTotal> {
    const out = Object.fromEntries([...this.totals].sort((a, b) => b[1].ms - a[1].ms).map(([name, t]) => [name, { ...t, ms: Math.round(t.ms * 1000) / 1000 }]));
    if (reset) this.totals = new Map();
    return out;
  }
}

const lengthOf = (value: unknown): number => (Array.isArray(value) ? value.length : value === undefined ? 0 : 1);

/** `idb <op> <table>[.<index>]`: a call's name in the ledger. */
const callName = (op: string, table: string, query?: { index?: string }): string => `idb ${op} ${table}${query?.index ? `.${query.index}` : ''}`;

/** The calls of one transaction, each timed into the ledger. */
function timedTx(tx: StorageTx, ledger: PhaseLedger): StorageTx {
  return {
    get: (table, key) => ledger.time(`idb get ${table}`, () => tx.get(table, key), 1),
    getMany: (table, keys) => ledger.time(`idb getMany ${table}`, () => tx.getMany(table, keys), keys.length),
    async query(table, query) {
      const t0 = performance.now();
      const rows = await tx.query(table, query);
      ledger.add(callName('query', table, query), performance.now() - t0, rows.length);
      return rows as never;
    },
    async keys(table, query) {
      const t0 = performance.now();
      const keys = await tx.keys(table, query);
      ledger.add(callName('keys', table, query), performance.now() - t0, keys.length);
      return keys;
    },
    count: (table, query) => ledger.time(callName('count', table, query), () => tx.count(table, query)),
    add: (table, rows) => ledger.time(`idb add ${table}`, () => tx.add(table, rows), rows.length),
    put: (table, rows) => ledger.time(`idb put ${table}`, () => tx.put(table, rows), rows.length),
    delete: (table, keys) => ledger.time(`idb delete ${table}`, () => tx.delete(table, keys), keys.length),
  };
}

/** The engine with every transaction and call timed into `ledger`. */
export function timedEngine(engine: StorageEngine, ledger: PhaseLedger): StorageEngine {
  const timed: StorageEngine = {
    ...(engine.id !== undefined ? { id: engine.id } : {}),
    async transaction(mode, tables, body, options) {
      const name = `tx ${mode} ${[...tables].sort().join('+')}${options?.oneCall ? ' (one call)' : ''}`;
      const t0 = performance.now();
      let bodyDone = 0;
      try {
        return await engine.transaction(
          mode,
          tables,
          async (tx) => {
            try {
              return await body(timedTx(tx, ledger));
            } finally {
              bodyDone = performance.now();
            }
          },
          options,
        );
      } finally {
        const end = performance.now();
        ledger.add(name, end - t0);
        if (mode === 'rw' && bodyDone > 0) ledger.add(`${name} commit`, end - bodyDone);
      }
    },
    mapError: (error, operation) => engine.mapError(error, operation),
    close: () => engine.close(),
  };
  return timed;
}

/** The index with its work timed into `ledger` (everything else is read straight through). */
export function timedIndex(index: VectorIndex, ledger: PhaseLedger): VectorIndex {
  const timed: Partial<VectorIndex> = {
    add: (labels, vectors) => ledger.timeSync('index add', () => index.add(labels, vectors), labels.length),
    remove: (labels) => ledger.timeSync('index remove', () => index.remove(labels), labels.length),
    search: (query, k, filter) => ledger.timeSync('index search', () => index.search(query, k, filter), 1),
    saveSnapshot: (generation) => ledger.time('index saveSnapshot', () => index.saveSnapshot(generation)),
    loadSnapshot: () => ledger.time('index loadSnapshot', () => index.loadSnapshot()),
  };
  return new Proxy(index, {
    get(target, key) {
      if (typeof key === 'string' && key in timed) return timed[key as keyof VectorIndex];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Times the store's methods as the worker host calls them (`call(method, args)`, core/view.ts),
 * inside the worker, without the RPC: `store <method>`.
 */
export function timeCalls<T extends { call(method: string, args: unknown[]): Promise<unknown> }>(store: T, ledger: PhaseLedger): T {
  const original = store.call.bind(store);
  Object.defineProperty(store, 'call', {
    configurable: true,
    writable: true,
    value: (method: string, args: unknown[]) => ledger.time(`store ${method}`, () => original(method, args), lengthOf(args[0])),
  });
  return store;
}
