/**
 * Tables held in maps, with the indexes core/storage/schema.ts declares kept beside them and
 * walked in IndexedDB's key order: what the in-memory backend is made of. Keys compare as
 * IndexedDB compares them (numbers < strings < arrays, arrays element by element); a row
 * whose index key is missing or not a valid key is left out of that index (sparse indexes).
 */
import type { Key, KeyEntry, KeyRange, Query } from '../core/storage/port.ts';
import type { IndexSpec, TableSpec } from '../core/storage/schema.ts';

const rank = (key: Key): number => (typeof key === 'number' ? 1 : typeof key === 'string' ? 2 : 3);

export function compareKeys(a: Key, b: Key): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra < 3) return a < b ? -1 : a > b ? 1 : 0;
  const x = a as Key[];
  const y = b as Key[];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareKeys(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

function isKey(value: unknown): value is Key {
  if (typeof value === 'number') return !Number.isNaN(value);
  if (typeof value === 'string') return true;
  return Array.isArray(value) && value.every(isKey);
}

/** A map key for a key: numbers and strings as they are, arrays encoded (they cannot collide). */
type Slot = number | string;
export const slotOf = (key: Key): Slot => (Array.isArray(key) ? `\u0000${JSON.stringify(key)}` : key);

/** The key a key path gives a row, or undefined when the row has none. */
export function keyAt(row: Record<string, unknown>, path: string | string[]): Key | undefined {
  const value = Array.isArray(path) ? path.map((p) => row[p]) : row[path];
  return isKey(value) ? value : undefined;
}

/** The keys a row has in an index (several, distinct, for a multi-entry index; none when it has no valid key). */
export function indexKeysOf(spec: IndexSpec, row: Record<string, unknown>): Key[] {
  if (!spec.multiEntry) {
    const key = keyAt(row, spec.keyPath);
    return key === undefined ? [] : [key];
  }
  const value = row[spec.keyPath as string];
  const all = Array.isArray(value) ? value.filter(isKey) : isKey(value) ? [value] : [];
  return [...new Map(all.map((k) => [slotOf(k), k])).values()];
}

/** First position in sorted `keys` not below `key` (or above it, with `after`). */
function bound(keys: readonly Key[], key: Key, after: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(keys[mid]!, key);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Below this many keys an out-of-order key is spliced in place; above, the order is rebuilt on the next read. */
const SPLICE_LIMIT = 4096;

/** Distinct keys kept in order: a new key past the end is appended, others spliced in or sorted lazily. */
class SortedKeys {
  private readonly bySlot = new Map<Slot, Key>();
  private sorted: Key[] | null = [];

  get size(): number {
    return this.bySlot.size;
  }
  has(slot: Slot): boolean {
    return this.bySlot.has(slot);
  }
  add(key: Key, slot = slotOf(key)): void {
    if (this.bySlot.has(slot)) return;
    this.bySlot.set(slot, key);
    if (!this.sorted) return;
    const last = this.sorted[this.sorted.length - 1];
    if (last === undefined || compareKeys(last, key) < 0) this.sorted.push(key);
    else if (this.sorted.length < SPLICE_LIMIT) this.sorted.splice(bound(this.sorted, key, false), 0, key);
    else this.sorted = null; // sorted again when next read: cheaper than moving a long array per insert
  }
  delete(key: Key, slot = slotOf(key)): void {
    if (!this.bySlot.delete(slot)) return;
    if (!this.sorted) return;
    const at = bound(this.sorted, key, false);
    this.sorted.splice(at, 1);
  }
  /** The keys in a range, in order. */
  inRange(range: KeyRange | undefined): Key[] {
    if (!this.sorted) this.sorted = [...this.bySlot.values()].sort(compareKeys);
    const keys = this.sorted;
    if (!range) return keys;
    const from = range.lower === undefined ? 0 : bound(keys, range.lower, range.lowerOpen === true);
    const to = range.upper === undefined ? keys.length : bound(keys, range.upper, range.upperOpen !== true);
    return from === 0 && to === keys.length ? keys : keys.slice(from, Math.max(from, to));
  }
}

/** The keys a query names (`equals`, or `anyOf` distinct and in order) that `present` holds; null when it names none. */
function chosen(q: Pick<Query, 'equals' | 'anyOf'>, present: (slot: Slot) => boolean): Key[] | null {
  const named = q.equals !== undefined ? [q.equals] : q.anyOf ? [...new Map(q.anyOf.map((k) => [slotOf(k), k])).values()].sort(compareKeys) : null;
  return named && named.filter((k) => present(slotOf(k)));
}

/** One index: for each distinct key, the primary keys of its rows in order. */
class MemIndex {
  private readonly entries = new Map<Slot, { key: Key; primaryKeys: SortedKeys }>();
  private readonly keys = new SortedKeys();

  constructor(readonly spec: IndexSpec) {}

  /** The keys a row has in this index (several for a multi-entry index). */
  keysOf(row: Record<string, unknown>): Key[] {
    return indexKeysOf(this.spec, row);
  }

  /** The primary key holding `key` here, for a unique index's check. */
  holder(key: Key): Key | undefined {
    return this.entries.get(slotOf(key))?.primaryKeys.inRange(undefined)[0];
  }

  add(row: Record<string, unknown>, primaryKey: Key): void {
    for (const key of this.keysOf(row)) {
      const slot = slotOf(key);
      let entry = this.entries.get(slot);
      if (!entry) {
        this.entries.set(slot, (entry = { key, primaryKeys: new SortedKeys() }));
        this.keys.add(key, slot);
      }
      entry.primaryKeys.add(primaryKey);
    }
  }

  delete(row: Record<string, unknown>, primaryKey: Key): void {
    for (const key of this.keysOf(row)) {
      const slot = slotOf(key);
      const entry = this.entries.get(slot);
      if (!entry) continue;
      entry.primaryKeys.delete(primaryKey);
      if (entry.primaryKeys.size === 0) {
        this.entries.delete(slot);
        this.keys.delete(key, slot);
      }
    }
  }

  count(equals: Key): number {
    return this.entries.get(slotOf(equals))?.primaryKeys.size ?? 0;
  }

  /** Index entries in order: `equals` one key, `anyOf` several, or in a range. */
  *walk(q: Pick<Query, 'equals' | 'anyOf' | 'range' | 'reverse'>): Generator<KeyEntry> {
    const keys = chosen(q, (slot) => this.entries.has(slot)) ?? this.keys.inRange(q.range);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[q.reverse ? keys.length - 1 - i : i]!;
      const primary = this.entries.get(slotOf(key))!.primaryKeys.inRange(undefined);
      for (let j = 0; j < primary.length; j++) yield { key, primaryKey: primary[q.reverse ? primary.length - 1 - j : j]! };
    }
  }
}

/** A failure IndexedDB would report under the same name. */
export function constraintError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ConstraintError' });
}

/** One table: rows by primary key, its indexes, its auto-increment counter. */
export class MemTable {
  readonly rows = new Map<Slot, { key: Key; row: Record<string, unknown> }>();
  private readonly primaryKeys = new SortedKeys();
  private readonly indexes = new Map<string, MemIndex>();
  autoIncrement = 0;

  constructor(readonly spec: TableSpec) {
    for (const index of spec.indexes) this.indexes.set(index.name, new MemIndex(index));
  }

  private index(name: string): MemIndex {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`No index ${JSON.stringify(name)}`);
    return index;
  }

  /** The primary key of a row about to be written (assigning the next one when auto-increment). */
  keyFor(row: Record<string, unknown>): Key {
    const path = this.spec.primaryKey;
    let key = keyAt(row, path);
    if (key === undefined && this.spec.autoIncrement) row[path as string] = key = this.autoIncrement + 1;
    if (key === undefined) throw Object.assign(new Error('A row has no valid primary key'), { name: 'DataError' });
    if (this.spec.autoIncrement && typeof key === 'number') this.autoIncrement = Math.max(this.autoIncrement, Math.floor(key));
    return key;
  }

  get(key: Key): Record<string, unknown> | undefined {
    return this.rows.get(slotOf(key))?.row;
  }

  /** Writes a row at `key`, or removes it (`row` undefined); unique indexes are checked first. */
  write(key: Key, row: Record<string, unknown> | undefined): void {
    const slot = slotOf(key);
    const previous = this.rows.get(slot)?.row;
    if (row) {
      for (const index of this.indexes.values()) {
        if (!index.spec.unique) continue;
        for (const k of index.keysOf(row)) {
          const holder = index.holder(k);
          if (holder !== undefined && slotOf(holder) !== slot) throw constraintError(`Index ${index.spec.name} already holds ${JSON.stringify(k)}`);
        }
      }
    }
    if (previous) for (const index of this.indexes.values()) index.delete(previous, key);
    if (!row) {
      this.rows.delete(slot);
      this.primaryKeys.delete(key, slot);
      return;
    }
    this.rows.set(slot, { key, row });
    this.primaryKeys.add(key, slot);
    for (const index of this.indexes.values()) index.add(row, key);
  }

  /** Entries of a query, in order, before any filter or limit. */
  *entries(q: Omit<Query, 'filter' | 'limit'>): Generator<KeyEntry> {
    if (q.index) {
      yield* this.index(q.index).walk(q);
      return;
    }
    const keys = chosen(q, (slot) => this.rows.has(slot)) ?? this.primaryKeys.inRange(q.range);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[q.reverse ? keys.length - 1 - i : i]!;
      yield { key, primaryKey: key };
    }
  }

  count(q: Omit<Query, 'filter' | 'limit' | 'reverse'>): number {
    if (q.index && q.equals !== undefined) return this.index(q.index).count(q.equals);
    if (!q.index && q.equals === undefined && !q.anyOf && !q.range) return this.rows.size;
    let n = 0;
    for (const _ of this.entries(q)) n++;
    return n;
  }
}
