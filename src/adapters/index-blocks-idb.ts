/**
 * `IndexBlockStore` over one IndexedDB object store: numeric keys are blocks, the string key
 * 'manifest' is the manifest. In `createMemory` it is the `indexBlocks` table of the store's
 * own database (schema version 9), so deleting the store deletes its index too; standalone
 * indexes (tests, tools) get a database of their own.
 *
 * Raw IndexedDB rather than Dexie: blocks are written one request after another inside one
 * transaction as the index hands them over, and the connection closes itself when another
 * connection upgrades the database, so it never blocks a schema change.
 */
import { MemoryError } from '../core/errors.ts';
import type { IndexBlock, IndexBlockStore } from '../core/ports.ts';

export interface IdbBlockStoreOptions {
  database: string;
  /** Object store name. Default 'indexBlocks'. */
  table?: string;
  /** Create the table (upgrading the database by one version) when it is missing. Default false. */
  create?: boolean;
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

const MANIFEST_KEY = 'manifest';
/** Blocks a write keeps in flight (each is ~0.1–0.5 MB). */
const WRITE_WINDOW = 8;
/** Blocks per read batch (~16 MB at 384 dimensions). */
const READ_BATCH = 32;

export function idbBlockStore(options: IdbBlockStoreOptions): IndexBlockStore {
  return new IdbBlockStore(options);
}

class IdbBlockStore implements IndexBlockStore {
  private db: Promise<IDBDatabase> | null = null;
  private closed = false;
  private readonly table: string;
  private readonly factory: IDBFactory;
  private readonly keyRange: typeof IDBKeyRange;

  constructor(private readonly options: IdbBlockStoreOptions) {
    this.table = options.table ?? 'indexBlocks';
    const factory = options.indexedDB ?? (globalThis as { indexedDB?: IDBFactory }).indexedDB;
    const keyRange = options.IDBKeyRange ?? (globalThis as { IDBKeyRange?: typeof IDBKeyRange }).IDBKeyRange;
    if (!factory || !keyRange) throw new MemoryError('STORAGE_FAILURE', 'IndexedDB is not available for the index blocks');
    this.factory = factory;
    this.keyRange = keyRange;
  }

  private connection(): Promise<IDBDatabase> {
    if (this.closed) return Promise.reject(new MemoryError('CLOSED', 'The index block store is closed'));
    this.db ??= this.open().catch((error: unknown) => {
      this.db = null;
      throw error;
    });
    return this.db;
  }

  private open(version?: number): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      const request = version === undefined ? this.factory.open(this.options.database) : this.factory.open(this.options.database, version);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(this.table)) db.createObjectStore(this.table);
      };
      request.onsuccess = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains(this.table)) {
          db.close();
          if (this.options.create && version === undefined) this.open(db.version + 1).then(resolve, reject);
          else reject(new MemoryError('STORAGE_FAILURE', `The database ${this.options.database} has no ${this.table} table`));
          return;
        }
        db.onversionchange = () => {
          db.close();
          this.db = null;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error ?? new Error(`Cannot open ${this.options.database}`));
      request.onblocked = () => undefined;
    });
  }

  async readManifest(): Promise<unknown> {
    const db = await this.connection();
    return new Promise((resolve, reject) => {
      const tx = db.transaction(this.table, 'readonly');
      const request = tx.objectStore(this.table).get(MANIFEST_KEY);
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('aborted'));
    });
  }

  async readBlocks(visit: (blocks: IndexBlock[]) => void | Promise<void>, options: { batchSize?: number } = {}): Promise<void> {
    const batch = Math.max(1, Math.floor(options.batchSize ?? READ_BATCH));
    let after: number | null = null;
    for (;;) {
      const db = await this.connection();
      const range = after === null ? this.keyRange.bound(0, Infinity) : this.keyRange.bound(after, Infinity, true);
      const [keys, values] = await new Promise<[IDBValidKey[], unknown[]]>((resolve, reject) => {
        const tx = db.transaction(this.table, 'readonly');
        const store = tx.objectStore(this.table);
        const k = store.getAllKeys(range, batch);
        const v = store.getAll(range, batch);
        tx.oncomplete = () => resolve([k.result, v.result]);
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error ?? new Error('aborted'));
      });
      if (keys.length === 0) return;
      const blocks: IndexBlock[] = keys.map((key, i) => ({ key: key as number, bytes: asBytes(values[i]) }));
      await visit(blocks);
      if (keys.length < batch) return;
      after = keys[keys.length - 1] as number;
    }
  }

  async write(options: { manifest: { tag: string } & Record<string, unknown>; expectTag: string | null; replaceAll: boolean; blocks: Iterable<IndexBlock> }): Promise<boolean> {
    const db = await this.connection();
    return new Promise<boolean>((resolve, reject) => {
      const tx = db.transaction(this.table, 'readwrite');
      const store = tx.objectStore(this.table);
      const iterator = options.blocks[Symbol.iterator]();
      let written = true;
      let inFlight = 0;
      let done = false;
      let failure: unknown = null;
      const fail = (error: unknown): void => {
        failure ??= error;
        try {
          tx.abort();
        } catch {
          /* already finished */
        }
      };
      // Keeps up to WRITE_WINDOW puts in flight; the manifest goes last, after every block.
      const pump = (): void => {
        while (!done && inFlight < WRITE_WINDOW && failure === null) {
          let step: IteratorResult<IndexBlock>;
          try {
            step = iterator.next();
          } catch (error) {
            fail(error);
            return;
          }
          if (step.done) {
            done = true;
            break;
          }
          inFlight++;
          const request = store.put(step.value.bytes, step.value.key);
          request.onsuccess = () => {
            inFlight--;
            pump();
          };
        }
        if (done && inFlight === 0 && failure === null) {
          store.put(options.manifest, MANIFEST_KEY);
          done = false;
          inFlight = -1; // finished: nothing more to issue
        }
      };
      const start = (): void => {
        if (options.replaceAll) store.clear().onsuccess = pump;
        else pump();
      };
      if (options.replaceAll) start();
      else {
        const current = store.get(MANIFEST_KEY);
        current.onsuccess = () => {
          const tag = (current.result as { tag?: unknown } | undefined)?.tag ?? null;
          if (tag !== options.expectTag) written = false;
          else start();
        };
      }
      tx.oncomplete = () => (failure === null ? resolve(written) : reject(failure));
      tx.onerror = () => reject(failure ?? tx.error);
      tx.onabort = () => reject(failure ?? tx.error ?? new Error('The index snapshot write was aborted'));
    });
  }

  async clear(): Promise<void> {
    const db = await this.connection();
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(this.table, 'readwrite');
      tx.objectStore(this.table).clear();
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error('aborted'));
    });
  }

  async byteSize(): Promise<number> {
    let total = 0;
    await this.readBlocks((blocks) => {
      for (const b of blocks) total += b.bytes.byteLength;
    });
    return total;
  }

  close(): void {
    this.closed = true;
    const db = this.db;
    this.db = null;
    void db?.then((d) => d.close()).catch(() => undefined);
  }
}

function asBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(0);
}
