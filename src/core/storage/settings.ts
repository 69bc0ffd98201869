/** The metadata row and settings roles: what made the vectors, the counters, and small keyed values. */
import type { DurabilitySnapshot, MetaStore, SettingsStore, StoreMeta } from '../ports.ts';
import { MEMORIES } from './memory-table.ts';
import { CANARY_KEY, readMeta, readSetting, writeSetting, ONE_CALL, type Run } from './tx.ts';

export function metaStore(run: Run): MetaStore {
  return {
    readMeta: () => run('readMeta', 'r', ['meta'], readMeta, ONE_CALL),

    initMeta: (meta) =>
      run('initMeta', 'rw', ['meta'], async (tx): Promise<StoreMeta> => {
        const existing = await readMeta(tx);
        if (existing) return existing;
        await tx.put('meta', [{ key: 'store', value: meta }]);
        return meta;
      }),
  };
}

export function settingsStore(run: Run): SettingsStore {
  return {
    getSetting: (key) => run('getSetting', 'r', ['meta'], (tx) => readSetting(tx, key), ONE_CALL),

    putSetting: (key, value) => run('putSetting', 'rw', ['meta'], (tx) => writeSetting(tx, key, value)),

    plantCanary: (candidate) =>
      run('plantCanary', 'rw', ['meta'], async (tx) => {
        const existing = await readSetting<string>(tx, CANARY_KEY);
        if (typeof existing === 'string') return existing;
        await writeSetting(tx, CANARY_KEY, candidate);
        return candidate;
      }),

    durabilitySnapshot: () =>
      run('durabilitySnapshot', 'r', ['meta', MEMORIES, 'journal', 'importUndo'], async (tx): Promise<DurabilitySnapshot> => {
        const canary = await readSetting<string>(tx, CANARY_KEY);
        const meta = await readMeta(tx);
        const count = await tx.count(MEMORIES);
        const [newest] = await tx.keys('journal', { reverse: true, limit: 1 });
        const importPending = (await tx.keys('importUndo', { limit: 1 })).length > 0;
        return { canary: typeof canary === 'string' ? canary : null, count, booked: meta?.lexicalDocs ?? 0, newestSeq: (newest?.primaryKey as number | undefined) ?? 0, importPending };
      }),
  };
}
