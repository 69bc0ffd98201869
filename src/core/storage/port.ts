/**
 * The storage engine port: the one thing a storage backend implements. A transaction over
 * named tables and, inside it, eight calls — get, getMany, query, keys, count, add, put,
 * delete — with keys, ranges and index order as IndexedDB defines them. Everything a store
 * keeps (rows, vectors, postings, links, the journal, the trash, imports, settings) is written
 * once over this port in `core/storage/`; a backend maps it and nothing more (Dexie's DBCore is
 * the model: a narrow table interface, features stacked above it).
 *
 * The tables and their indexes are declared once, in `schema.ts`.
 */
import type { MemoryError } from '../errors.ts';
import type { TableName } from './schema.ts';

/** A key as IndexedDB orders them: numbers < strings < arrays (compared element by element). */
export type Key = number | string | Key[];

/** The lowest key of all (IndexedDB's -Infinity), for an open end of a compound range. */
export const MIN_KEY: Key = Number.NEGATIVE_INFINITY;
/** A key above every number, string and array of them, for an open end of a compound range. */
export const MAX_KEY: Key = [[]];

/** Bounds on a key; a missing end is open-ended. Both ends are included unless said otherwise. */
export interface KeyRange {
  lower?: Key;
  upper?: Key;
  lowerOpen?: boolean;
  upperOpen?: boolean;
}

/**
 * Which rows of a table: by the primary key (no `index`) or a declared index, all of them or
 * those whose key `equals` one key, is `anyOf` several, or falls in `range` (one of the three at
 * most). A multi-entry index holds a row once per distinct element of its array (so `anyOf` on
 * it can give a row once per key it matches). Rows come in key order (then primary-key order),
 * reversed on request; `filter` drops rows before `limit` counts them.
 */
export interface Query<Row = unknown> {
  index?: string;
  equals?: Key;
  anyOf?: readonly Key[];
  range?: KeyRange;
  reverse?: boolean;
  limit?: number;
  filter?: (row: Row) => boolean;
}

/** One entry of an index walk: the index key and the row's primary key. */
export interface KeyEntry {
  key: Key;
  primaryKey: Key;
}

/**
 * What a transaction can do. Values go in and come out as copies (structured clone), as
 * IndexedDB's do: a caller never shares an object with storage.
 */
export interface StorageTx {
  get<T>(table: TableName, key: Key): Promise<T | undefined>;
  /** By primary key, in the keys' order (undefined where absent). */
  getMany<T>(table: TableName, keys: readonly Key[]): Promise<(T | undefined)[]>;
  query<T>(table: TableName, query?: Query<T>): Promise<T[]>;
  /** The keys of a query's rows without reading the rows (no `filter`). */
  keys(table: TableName, query?: Omit<Query, 'filter'>): Promise<KeyEntry[]>;
  count(table: TableName, query?: Omit<Query, 'filter' | 'reverse' | 'limit'>): Promise<number>;
  /** Inserts; a row whose key exists fails the transaction. Returns the keys (auto-increment ones assigned). */
  add(table: TableName, rows: readonly object[]): Promise<Key[]>;
  /** Inserts or replaces. */
  put(table: TableName, rows: readonly object[]): Promise<void>;
  delete(table: TableName, keys: readonly Key[]): Promise<void>;
}

export type TxMode = 'r' | 'rw';

export interface TxOptions {
  /**
   * The body makes exactly one call: it is atomic by itself, so an engine may run it without
   * opening a transaction of its own (IndexedDB gives every request one). Most reads are.
   */
  oneCall?: boolean;
}

/**
 * A storage backend. A transaction sees its own writes and nobody else's half-done ones; a
 * read-write one lands whole or, when its body throws, not at all. Transactions do not nest.
 */
export interface StorageEngine {
  transaction<T>(mode: TxMode, tables: readonly TableName[], body: (tx: StorageTx) => Promise<T>, options?: TxOptions): Promise<T>;
  /** This backend's failures as the one error class (a MemoryError passes through). */
  mapError(error: unknown, operation: string): MemoryError;
  close(): void;
  /**
   * Optional: which data this engine opens (a database name). Engines with the same id in one
   * realm hold the same data, so a commit through one drops what the others cache.
   */
  readonly id?: string;
  /**
   * Optional: calls `listener` with the tables a read-write transaction on this data wrote, after
   * it commits anywhere this engine can hear of (its own, another handle's, another realm's), and
   * returns the way to stop. A reader uses it to know when what it caches may be stale; an engine
   * that cannot hear of writes elsewhere leaves it out, and readers then check storage at least
   * once a second.
   */
  watch?(listener: (tables: readonly TableName[]) => void): () => void;
}
