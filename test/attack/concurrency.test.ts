/**
 * Concurrent writers, counted: five owners of one store (five tabs with their own workers, on one
 * IndexedDB database) writing 200 memories each at once; five connections of one owner through
 * the RPC host doing the same; and writers racing an import that overwrites rows they try to
 * edit (those edits are refused BUSY, never silently undone by a rollback). Prints the counts;
 * asserts nothing is lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { MemoryApi } from '../../src/local.ts';
import { createMemory, MemoryError, type LocalMemory } from '../../src/local.ts';
import { pythonArchive } from '../fixtures/make-archives.ts';
import { createHashEmbedder } from '../helpers/fake-embedder.ts';
import { makeMemory } from '../helpers/memory.ts';
import { uniqueName } from '../helpers/store.ts';
import { rpcClient } from './fixture.ts';

const lines: string[] = [];
const open: LocalMemory[] = [];
afterAll(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  console.log(`concurrent writers\n${lines.join('\n')}`);
});

async function owner(name: string): Promise<LocalMemory> {
  const s = await createMemory({ name, embedder: createHashEmbedder(), index: 'exact' });
  open.push(s);
  return s;
}

async function writeMany(client: MemoryApi, who: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await client.remember(`${who} wrote note ${i}`, { onConflict: 'ignore' });
}

describe('concurrent writers', () => {
  it('five owners × 200 writes on one database: exactly 1,000 memories, every one indexed', async () => {
    const name = uniqueName('five');
    const owners = await Promise.all(Array.from({ length: 5 }, () => owner(name)));
    await Promise.all(owners.map((o, i) => writeMany(o, `tab${i}`, 200)));
    const fresh = await owner(name);
    const all = await fresh.listRecent({ limit: 10_000 });
    const texts = new Set(all.map((m) => m.text));
    const expected = owners.flatMap((_, i) => Array.from({ length: 200 }, (_, j) => `tab${i} wrote note ${j}`));
    expect(all.length).toBe(1000);
    expect(expected.every((t) => texts.has(t))).toBe(true);
    expect((await fresh.stats()).index.size).toBe(1000);
    lines.push(`five owners x 200 writes       ${all.length} of 1000 stored, ${(await fresh.stats()).index.size} indexed`);
  });

  it('five connections of one owner × 200 writes through the RPC host: exactly 1,000', async () => {
    const store = await owner(uniqueName('rpc'));
    const cleanups: (() => unknown)[] = [];
    const clients = await Promise.all(Array.from({ length: 5 }, () => rpcClient(store, {}, cleanups)));
    await Promise.all(clients.map((c, i) => writeMany(c, `conn${i}`, 200)));
    expect(await store.count()).toBe(1000);
    expect((await store.stats()).index.size).toBe(1000);
    lines.push(`five connections x 200 writes  ${await store.count()} of 1000 stored`);
    for (const c of cleanups) await c();
  });

  it('writers racing an overwriting import: their new memories all land, edits of rows the import holds are refused, nothing is undone', async () => {
    const name = uniqueName('race');
    const importer = await owner(name);
    const existing = Array.from({ length: 50 }, (_, i) => makeMemory(`shared-${i}`, `shared row ${i} before the import`));
    await importer.importArchive(pythonArchive({ memories: existing }));
    const others = await Promise.all(Array.from({ length: 4 }, () => owner(name)));
    const incoming = [...existing.map((m) => ({ ...m, text: `shared row ${m.id.slice(7)} from the archive` })), ...Array.from({ length: 450 }, (_, i) => makeMemory(`in-${i}`, `imported row ${i}`))];
    let busy = 0;
    let edited = 0;
    const importing = importer.importArchive(pythonArchive({ memories: incoming }), { onConflict: 'overwrite', batchSize: 25 });
    await Promise.all(
      others.map(async (o, w) => {
        for (let i = 0; i < 100; i++) {
          await o.remember(`writer ${w} note ${i}`, { onConflict: 'ignore' });
          if (i % 5 === 0) {
            try {
              await o.edit(`shared-${(w * 13 + i) % 50}`, { importance: 0.9 });
              edited += 1;
            } catch (error) {
              if (!(error instanceof MemoryError) || error.code !== 'BUSY') throw error;
              busy += 1;
            }
          }
        }
      }),
    );
    expect(await importing).toMatchObject({ imported: 450, overwritten: 50 });
    const fresh = await owner(name);
    const all = await fresh.listRecent({ limit: 10_000 });
    expect(all.length).toBe(50 + 450 + 400);
    expect(all.filter((m) => m.text.startsWith('writer ')).length).toBe(400);
    expect(all.filter((m) => m.id.startsWith('shared-')).every((m) => m.text.endsWith('from the archive'))).toBe(true);
    // An edit that was accepted happened before the import took the row, or after it finished.
    lines.push(`4 writers x 100 + 80 edits during a 500-row import: 400 of 400 stored, import whole (500), ${edited} edits applied, ${busy} refused BUSY`);
  });
});
