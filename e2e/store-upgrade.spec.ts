/**
 * Issue 19: a store written by an earlier schema is upgraded as it opens, in the browser's real
 * IndexedDB, with progress on the opening screen, and nothing is lost: schema v11 rewrites every
 * vector as binary16 and trims the memories table's indexes; v12 (issue #30) moves every row to a
 * table keyed by label; v13 changes no table; v14 builds a new index (its length unknown).
 */
import { expect, test } from 'playwright/test';
import { SCHEMA_VERSION } from '../src/adapters/dexie-schema.ts';
import { expectReady, guardPages, memoryCount, openingTexts, shot, startWithStore } from './app-helpers.ts';

guardPages();

const N = 12_000;

test('a store written by schema v10 upgrades as it opens: the opening screen counts the rows, and every memory is there after', async ({ page }) => {
  test.setTimeout(300_000);
  const store = `legacy-v10-${Date.now()}`;
  await page.goto('/e2e/harness.html');
  await expect(page.locator('#status')).toHaveText('ready');
  const written = await page.evaluate(([name, n]) => window.houkai.writeV10Store(name as string, n as number, 'Xenova/all-MiniLM-L6-v2', 384), [store, N] as const);
  expect(written).toBe(10);
  // The app starts with this store, as it would for someone who used it before the update.
  await startWithStore(page, store);
  await page.goto('/');
  const step = page.locator('.opening [data-step="upgrade"]');
  await expect(step).toContainText('Upgrading the store to this version’s storage format', { timeout: 60_000 });
  await shot(page, 'upgrade-opening', false);
  await expectReady(page, 240_000);
  const texts = await openingTexts(page);
  // While it ran: rows done of all the rows (v11: every memory row and every vector row; v12: every memory row), and why.
  expect(texts).toMatch(new RegExp(`Upgrading the store to this version’s storage format\\s+[\\d,]+ of ${(2 * N).toLocaleString('en-US')} rows`));
  expect(texts).toMatch(new RegExp(`Upgrading the store to this version’s storage format\\s+[\\d,]+ of ${N.toLocaleString('en-US')} rows`));
  expect(texts).toContain('if the page closes now, nothing is lost');
  // v14: the browser builds the new time index over every row and says nothing while it does:
  // the step says so, with no count, instead of standing still at the last one.
  expect(texts).toMatch(/Upgrading the store to this version’s storage format\s+building the new index over every memory/);
  expect(await memoryCount(page)).toBe(N);

  // What is on disk now: today's schema (Dexie's version × 10), vectors as binary16, no id in the vector rows, rows by label.
  const disk = await page.evaluate(async ([name, n]) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(`houkai-web:${name}`);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const read = <T,>(store: string, key: IDBValidKey) =>
      new Promise<T>((resolve, reject) => {
        const request = db.transaction(store).objectStore(store).get(key);
        request.onsuccess = () => resolve(request.result as T);
        request.onerror = () => reject(request.error);
      });
    const vector = await read<{ vector: unknown; id?: string }>('vectors', 123);
    const last = await read<{ text: string; id: string }>('memoryRows', n - 1);
    const memories = db.transaction('memoryRows').objectStore('memoryRows');
    const out = {
      version: db.version,
      half: vector.vector instanceof Uint16Array,
      length: (vector.vector as Uint16Array).length,
      id: vector.id ?? null,
      tables: [...db.objectStoreNames].filter((t) => t.startsWith('memor')),
      primaryKey: memories.keyPath,
      indexes: [...memories.indexNames].sort(),
      last: last.text,
    };
    db.close();
    return out;
  }, [store, N] as const);
  expect(disk).toEqual({
    version: SCHEMA_VERSION * 10,
    half: true,
    length: 384,
    id: null,
    tables: ['memoryRows'],
    primaryKey: 'label',
    indexes: ['[createdAt+label]', 'id', 'linkTargets', 'positive', 'superseded', 'tags', 'terms', 'type'],
    last: `legacy memory ${N - 1} w${(N - 1).toString(36)}`,
  });
});
