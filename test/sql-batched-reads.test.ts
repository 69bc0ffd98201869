/**
 * #54 item 2: a recall reads the rows and vectors it needs from SQLite in one indexed query a kind
 * (`k IN (…)`), never one request a memory. Counted at the driver, on a store reopened cold (its
 * read cache empty), on the int8 index (whose hits are rescored from the stored vectors).
 */
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { betterSqliteDriver } from '../src/adapters/sql/driver-better-sqlite3.ts';
import { sqlEngine, type SqlDriver } from '../src/adapters/sql/engine-sql.ts';
import { storageOver } from '../src/core/storage/index.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';

const dir = mkdtempSync(join(tmpdir(), 'houkai-batched-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A driver that records the SQL of every query it answers. */
function counting(inner: SqlDriver, log: string[]): SqlDriver {
  return {
    ...inner,
    prepare(sql) {
      const s = inner.prepare(sql);
      return { run: (p) => s.run(p), all: (p) => (log.push(sql), s.all(p)) };
    },
  };
}

describe('recall reads from SQLite in one query a kind', () => {
  it('rows and vectors: one IN query a pipeline stage at k = 10, 30 and 50, no read by a single key', async () => {
    const file = join(dir, 'store.sqlite');
    const log: string[] = [];
    const storage = () => storageOver(sqlEngine(counting(betterSqliteDriver(file), log), 'sqlite:test'));
    const open = () => createMemory({ name: 'batched', storage, embedder: createHashEmbedder(), index: 'hnsw-i8' });
    const first = await open();
    await first.rememberMany(Array.from({ length: 300 }, (_, i) => `note ${i} about ${['apples', 'pears', 'plums'][i % 3]} in crate ${i}`));
    await first.close();

    const memory = await open();
    // The first recall after an open also samples 64 stored vectors for the relevance verdict (once).
    await memory.recall('pears', { touch: false });
    const reads: Record<string, number[]> = {};
    for (const [query, k] of [['plums in crate 41', 10], ['apples in crate 90', 30], ['pears kept in crate 7', 50]] as const) {
      log.length = 0;
      const hits = await memory.recall(query, { k, touch: false });
      expect(hits.length).toBe(k);
      const perKey = (table: string) => log.filter((sql) => sql.includes(`"t_${table}"`) && /WHERE k = \?/.test(sql)).length;
      const batched = (table: string) => log.filter((sql) => sql.includes(`"t_${table}"`) && sql.includes(' IN (')).length;
      expect([perKey('memoryRows'), perKey('vectors')], query).toEqual([0, 0]);
      (reads['rows'] ??= []).push(batched('memoryRows'));
      (reads['vectors'] ??= []).push(batched('vectors'));
    }
    // At most one query a stage of the pipeline (the index's hits, then the lexical candidates
    // outside them; none when the read cache has them all), however many memories it reads.
    for (const kind of ['rows', 'vectors']) for (const n of reads[kind]!) expect(n, `${kind}: ${reads[kind]!.join(', ')}`).toBeLessThanOrEqual(2);
    await memory.close();
  });
});
