/**
 * A store written before the possessive rule of the lexical terms (issue #51 item 2: "Melanie's"
 * was `melani`, "Melanie" `melanie`) opens with its terms derived again, reported as an upgrade,
 * and a question naming the person then matches the possessive in its lexical signal. The
 * storage core's side, on every engine, is in test/contracts/storage-port.cases.ts.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { openDexieEngine } from '../src/adapters/storage-dexie.ts';
import { lexicalFields } from '../src/core/domain/lexical-index.ts';
import { LEXICAL_TERMS_VERSION } from '../src/core/domain/tokenize.ts';
import type { StoreMeta } from '../src/core/ports.ts';
import { packedRows } from '../src/core/storage/row-codec.ts';
import type { MemoryRow } from '../src/core/storage/rows.ts';
import type { ProgressEvent } from '../src/core/types.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { uniqueName } from './helpers/names.ts';

const embedder = () => createHashEmbedder({ dim: 16 });

/** Rewrites a closed store's rows and metadata as the lexical terms' version 1 left them. */
async function asVersionOne(name: string): Promise<void> {
  const engine = packedRows(await openDexieEngine(name));
  await engine.transaction('rw', ['meta', 'memoryRows'], async (tx) => {
    const rows = await tx.query<MemoryRow>('memoryRows');
    const old = rows.map((row) => ({ ...row, ...lexicalFields(row.text.replace(/['’]/g, '')) }));
    await tx.put('memoryRows', old);
    const { value } = (await tx.get<{ value: StoreMeta }>('meta', 'store'))!;
    delete value.lexicalVersion;
    await tx.put('meta', [{ key: 'store', value: { ...value, lexicalLength: old.reduce((sum, r) => sum + r.termLength, 0) } }]);
  });
  engine.close();
}

describe('the lexical terms of a store from before, derived again at open', () => {
  it('a new store records the current version and has nothing to derive', async () => {
    const name = uniqueName('lexv');
    const store = await createMemory({ name, embedder: embedder(), index: 'exact' });
    await store.remember("Melanie's dog eats grain-free food");
    await store.close();
    const events: ProgressEvent[] = [];
    const again = await createMemory({ name, embedder: embedder(), index: 'exact', onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.kind === 'upgrade')).toEqual([]);
    await again.close();
  });

  it('an old store is brought up to date with upgrade progress, and "Melanie" meets "Melanie\'s"', async () => {
    const name = uniqueName('lexv');
    const store = await createMemory({ name, embedder: embedder(), index: 'exact' });
    await store.rememberMany(["Melanie's dog eats grain-free food", 'The standup is at 9:30', "Tom's dog eats raw chicken"]);
    await store.close();
    await asVersionOne(name);

    const events: ProgressEvent[] = [];
    const reopened = await createMemory({ name, embedder: embedder(), index: 'exact', onProgress: (e) => events.push(e) });
    expect(events.filter((e) => e.kind === 'upgrade')).toEqual([{ kind: 'upgrade', done: 3, total: 3 }]);
    const [hit] = await reopened.recall('what does Melanie feed her dog?', { k: 1, explain: true });
    expect(hit!.memory.text).toBe("Melanie's dog eats grain-free food");
    const lexical = hit!.explain!.signals.find((s) => s.name === 'lexical')!;
    expect(lexical.details.matchedTerms).toContain('melanie');
    await reopened.close();

    const engine = packedRows(await openDexieEngine(name));
    const meta = await engine.transaction('r', ['meta'], (tx) => tx.get<{ value: StoreMeta }>('meta', 'store'));
    expect(meta!.value.lexicalVersion).toBe(LEXICAL_TERMS_VERSION);
    engine.close();
  });
});
