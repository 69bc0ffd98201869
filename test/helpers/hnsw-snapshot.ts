// Direct access to what the HNSW snapshot code writes, so tests can damage it on purpose.
import { snapshotFileName } from '../../src/adapters/index-hnsw.ts';


const IDBFS_DB = '/hnswlib-index';
const META_DB = 'houkai-hnsw-snapshots';

function openDb(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function withStore<T>(dbName: string, storeName: string, fn: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await openDb(dbName);
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(storeName, 'readwrite');
      const request = fn(tx.objectStore(storeName));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export interface FileRecord {
  timestamp: Date;
  mode: number;
  contents: ArrayBufferView;
}

const fileKey = (name: string): string => `${IDBFS_DB}/${snapshotFileName(name)}`;
export const readRecord = (name: string): Promise<FileRecord> => withStore(IDBFS_DB, 'FILE_DATA', (s) => s.get(fileKey(name)));
export const writeRecord = (name: string, record: FileRecord): Promise<IDBValidKey> =>
  withStore(IDBFS_DB, 'FILE_DATA', (s) => s.put(record, fileKey(name)));
export const readMeta = (name: string): Promise<Record<string, unknown> | undefined> =>
  withStore(META_DB, 'snapshots', (s) => s.get(snapshotFileName(name)));
export const writeMeta = (name: string, meta: Record<string, unknown>): Promise<IDBValidKey> =>
  withStore(META_DB, 'snapshots', (s) => s.put(meta, snapshotFileName(name)));

export function bytesOf(record: FileRecord): Uint8Array {
  const c = record.contents;
  return new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
}

/** Flips 256 bytes in the middle of a store's stored snapshot file. */
export async function corruptSnapshot(name: string): Promise<void> {
  const record = await readRecord(name);
  const bytes = bytesOf(record).slice();
  const middle = bytes.length >> 1;
  for (let i = middle; i < middle + 256 && i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0x5a;
  await writeRecord(name, { ...record, contents: bytes });
}
