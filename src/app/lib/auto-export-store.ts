/**
 * The app's automatic-export settings, one record per store, in a small IndexedDB database of
 * the app's own (`houkai-web-app`). IndexedDB rather than localStorage because a File System
 * Access file handle can be stored there (it is structured-cloneable) and nowhere else.
 */

/** The parts of a File System Access file handle the app uses (Chromium's API, typed here). */
export interface BackupFileHandle {
  readonly kind: 'file';
  readonly name: string;
  queryPermission?(descriptor: { mode: 'readwrite' }): Promise<PermissionState>;
  requestPermission?(descriptor: { mode: 'readwrite' }): Promise<PermissionState>;
  createWritable(): Promise<{ write(data: Blob): Promise<void>; close(): Promise<void> }>;
}

export interface AutoExportSettings {
  enabled: boolean;
  /** Days between automatic exports. */
  everyDays: number;
  /** 'download': a new `<store>-<date>.ahkai` download each time; 'file': the chosen file, overwritten. */
  target: 'download' | 'file';
  handle: BackupFileHandle | null;
}

export const DEFAULT_AUTO_EXPORT: AutoExportSettings = { enabled: false, everyDays: 7, target: 'download', handle: null };

const DATABASE = 'houkai-web-app';
const TABLE = 'autoExport';

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(TABLE)) request.result.createObjectStore(TABLE, { keyPath: 'store' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export async function loadAutoExport(store: string): Promise<AutoExportSettings> {
  const db = await openDatabase();
  try {
    const row = (await done(db.transaction(TABLE).objectStore(TABLE).get(store))) as (AutoExportSettings & { store: string }) | undefined;
    if (!row) return { ...DEFAULT_AUTO_EXPORT };
    const { store: _store, ...settings } = row;
    return { ...DEFAULT_AUTO_EXPORT, ...settings };
  } finally {
    db.close();
  }
}

export async function saveAutoExport(store: string, settings: AutoExportSettings): Promise<void> {
  const db = await openDatabase();
  try {
    const tx = db.transaction(TABLE, 'readwrite');
    tx.objectStore(TABLE).put({ ...settings, store });
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}
