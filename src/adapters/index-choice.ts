/**
 * Which vector index a store is kept in (#30 item 6). The kind is recorded beside the store's
 * metadata, so a store opened without `index` keeps the index it has, whatever the default for
 * new stores is; opened with another kind, it moves: the new index is rebuilt from the stored
 * vectors at open (with `index-rebuild` progress, cancellable by the open's signal), and what the
 * old index persisted is deleted instead of being left behind. A store from before the record is
 * recognised by what its index left: int8 blocks in its own database mean `hnsw-i8`.
 */
import type { SettingsStore } from '../core/ports.ts';
import type { IndexKind } from '../core/types.ts';

/** The setting that records a store's index: `{ kind, drop? }`. */
export const INDEX_SETTING = 'vectorIndex';

/** The index of a new store: hnswlib-wasm, the product's named index (decided in BENCHMARKS.md, issue #30). */
export const DEFAULT_INDEX: IndexKind = 'hnsw';

const KINDS: readonly IndexKind[] = ['hnsw', 'hnsw-i8', 'exact'];

/** What the store's record says: its index, and an old index whose files are still to delete. */
export interface KeptIndex {
  kind: IndexKind;
  /** Left by a move whose deletion failed: deleted at the next open. */
  drop?: IndexKind;
}

function isKind(value: unknown): value is IndexKind {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

/**
 * The store's recorded index; for a store from before the record, `hnsw-i8` when `hasBlocks`
 * finds its int8 blocks; null for a new store (or one on hnswlib, the only other persisted kind).
 */
export async function keptIndex(settings: Pick<SettingsStore, 'getSetting'>, hasBlocks: (() => Promise<boolean>) | null): Promise<KeptIndex | null> {
  const value = (await settings.getSetting(INDEX_SETTING)) as Partial<KeptIndex> | undefined;
  if (value && isKind(value.kind)) return { kind: value.kind, ...(isKind(value.drop) ? { drop: value.drop } : {}) };
  if (hasBlocks && (await hasBlocks())) return { kind: 'hnsw-i8' };
  return null;
}

/**
 * After the store opened on `now`: deletes what an index the store has left (`kept.kind` when it
 * moved, or a deletion still owed) persisted, then records `now`. A failed deletion does not
 * fail the open (the store works, only disk is held): it is recorded and tried again at the next
 * open.
 */
export async function settleIndex(
  settings: Pick<SettingsStore, 'putSetting'>,
  kept: KeptIndex | null,
  now: IndexKind,
  drop: (kind: IndexKind) => Promise<void>,
): Promise<void> {
  const owed = [kept?.kind, kept?.drop].filter((k): k is IndexKind => k !== undefined && k !== now);
  let failed: IndexKind | undefined;
  for (const kind of new Set(owed)) {
    try {
      await drop(kind);
    } catch {
      failed = kind;
    }
  }
  if (kept?.kind === now && kept.drop === failed) return;
  await settings.putSetting(INDEX_SETTING, failed ? { kind: now, drop: failed } : { kind: now });
}
