/**
 * The int8 index's blocks (`IndexBlockStore`, core/ports.ts) in the store's SQLite file, beside
 * its rows: a manifest row and a table of blocks by number, read back in key order a batch at a
 * time and written in one transaction whose manifest tag is checked first. Over its own
 * connection (a `SqlDriver`), so a snapshot written while the store's engine is mid-transaction
 * waits for SQLite's lock rather than nesting in it. Shared by every SQLite driver.
 */
import { MemoryError } from '../../core/errors.ts';
import type { IndexBlock, IndexBlockStore } from '../../core/ports.ts';
import { rollback, statements, type SqlDriver } from './engine-sql.ts';

/**
 * A column's bytes as a block of its own: a blob the driver handed over as an array of its own
 * (sqlite-wasm's `get`, a large Buffer of better-sqlite3) is taken as it is, not copied again; a
 * view into a larger buffer (Node's pooled small Buffers) is copied out.
 */
const bytes = (value: unknown): Uint8Array => {
  if (!(value instanceof Uint8Array)) return new Uint8Array(value as ArrayBuffer);
  if (value.byteOffset !== 0 || value.byteLength !== value.buffer.byteLength) return new Uint8Array(value);
  // A Buffer of its own: the same memory as a plain Uint8Array.
  return value.constructor === Uint8Array ? value : new Uint8Array(value.buffer);
};

export function sqlBlockStore(driver: SqlDriver): IndexBlockStore {
  driver.exec(
    'CREATE TABLE IF NOT EXISTS "index_blocks" (k INTEGER PRIMARY KEY, v BLOB NOT NULL); ' +
      'CREATE TABLE IF NOT EXISTS "index_manifest" (id INTEGER PRIMARY KEY CHECK (id = 1), v BLOB NOT NULL)',
  );
  const stmt = statements(driver);
  let closed = false;
  const use = (): void => {
    if (closed) throw new MemoryError('STORAGE_FAILURE', 'This index block store is closed', { operation: 'use' });
  };
  const manifest = (): unknown => {
    const [row] = stmt('SELECT v FROM "index_manifest" WHERE id = 1').all();
    return row ? driver.decode(bytes(row[0])) : undefined;
  };
  return {
    async readManifest() {
      use();
      return manifest();
    },
    async readBlocks(visit, options = {}) {
      use();
      const inOrder = stmt('SELECT k, v FROM "index_blocks" ORDER BY k');
      if (options.transient && inOrder.each) {
        // One pass, each block a view into SQLite's memory handed over as it is read.
        inOrder.each([], ([k, v]) => {
          if (visit([{ key: Number(k), bytes: v as Uint8Array }]) !== undefined) throw new Error('A transient block read needs a synchronous visit');
        });
        return;
      }
      const size = Math.max(1, options.batchSize ?? 32);
      const page = stmt('SELECT k, v FROM "index_blocks" WHERE k > ? ORDER BY k LIMIT ?');
      let after = Number.NEGATIVE_INFINITY;
      for (;;) {
        const rows = page.all([after, size]);
        if (rows.length === 0) return;
        const blocks: IndexBlock[] = rows.map(([k, v]) => ({ key: Number(k), bytes: bytes(v) }));
        after = blocks[blocks.length - 1]!.key;
        await visit(blocks);
      }
    },
    async write({ manifest: next, expectTag, replaceAll, blocks }) {
      use();
      driver.exec('BEGIN IMMEDIATE');
      try {
        const current = manifest() as { tag?: string } | undefined;
        // A whole snapshot replaces whatever is there (as the IndexedDB store's does): checked, a
        // store whose snapshot failed to load could never save its rebuilt index again.
        if (!replaceAll && (current?.tag ?? null) !== expectTag) {
          driver.exec('ROLLBACK');
          return false;
        }
        if (replaceAll) driver.exec('DELETE FROM "index_blocks"');
        const put = stmt('INSERT OR REPLACE INTO "index_blocks" (k, v) VALUES (?, ?)');
        for (const block of blocks) put.run([block.key, block.bytes]);
        stmt('INSERT OR REPLACE INTO "index_manifest" (id, v) VALUES (1, ?)').run([driver.encode(next)]);
        driver.exec('COMMIT');
        return true;
      } catch (error) {
        rollback(() => driver.exec('ROLLBACK'));
        throw driver.mapError(error, 'index snapshot');
      }
    },
    async clear() {
      use();
      driver.exec('BEGIN IMMEDIATE; DELETE FROM "index_blocks"; DELETE FROM "index_manifest"; COMMIT');
    },
    async byteSize() {
      use();
      return Number(stmt('SELECT COALESCE(SUM(LENGTH(v)), 0) FROM "index_blocks"').all()[0]![0]);
    },
    close() {
      if (closed) return;
      closed = true;
      driver.close();
    },
  };
}
