/**
 * The tables a store keeps and their indexes, declared once in Dexie's compact notation (a
 * neutral one: `++` auto-increment primary key, `&` unique, `*` multi-entry, `[a+b]` compound).
 * The in-memory backend builds its indexes from it; the Dexie backend's schema history must end
 * here (test/storage-port.contract.test.ts checks).
 */

export const TABLES = {
  /** The store's metadata row (`store`) and its settings (`setting:<key>`). */
  meta: 'key',
  /**
   * Memories with their derived, indexed fields (rows.ts `MemoryRow`), keyed by label: a number,
   * so every index entry (it carries the primary key) is small, new rows append at the key's end,
   * and recall reads its hits by primary key. The id is a unique index (memory-table.ts reads by it).
   * `[createdAt+label]` is the time order (`list`'s keyset cursor): ties in write order.
   */
  memoryRows: 'label, &id, type, *tags, *terms, *linkTargets, [createdAt+label], superseded, positive',
  /** Vectors by label, with the generation that wrote them. */
  vectors: 'label, gen',
  /** Labels removed, by the generation that removed them (the index snapshot's delta). */
  tombstones: 'label, gen',
  /** Vectors of a re-embedding in progress. */
  staged: '[embedderId+id], embedderId',
  /** What an import in progress replaced, for its rollback. */
  importUndo: '[importId+id], importId',
  /** The conflict review queue. */
  conflicts: 'id, status, newId, oldId',
  journal: '++seq, ts, id, group',
  trash: '++seq, id, deletedAt',
} as const;

export type TableName = keyof typeof TABLES;

/**
 * The tables whose primary key is always an integer: a memory's label, or an auto-increment
 * counter. An engine may key them by integer (the SQL engine keys them by SQLite's rowid: smaller
 * rows and index entries, and pages filled whole as rows append) and refuse any other key.
 */
export const INTEGER_KEYED: ReadonlySet<TableName> = new Set<TableName>(['memoryRows', 'vectors', 'tombstones', 'journal', 'trash']);

export interface IndexSpec {
  name: string;
  /** A field, or the fields of a compound key. */
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
}

export interface TableSpec {
  primaryKey: string | string[];
  autoIncrement: boolean;
  indexes: IndexSpec[];
}

function keyPathOf(name: string): string | string[] {
  return name.startsWith('[') ? name.slice(1, -1).split('+') : name;
}

/** One table's declaration, read. */
export function parseTable(spec: string): TableSpec {
  const [primary = '', ...rest] = spec.split(',').map((s) => s.trim());
  const autoIncrement = primary.startsWith('++');
  const indexes = rest
    .filter((s) => s.length > 0)
    .map((raw) => {
      const unique = raw.startsWith('&');
      const multiEntry = raw.startsWith('*');
      const name = raw.replace(/^[&*]/, '');
      return { name, keyPath: keyPathOf(name), unique, multiEntry };
    });
  return { primaryKey: keyPathOf(primary.replace(/^\+\+/, '')), autoIncrement, indexes };
}

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];
