import { beforeAll, describe, expect, it } from 'vitest';
import { createMemory } from '../src/local.ts';
import { makeTinyBert, TINY_BERT_DIR, TINY_BERT_HIDDEN } from './fixtures/make-tiny-bert.ts';
import { uniqueName } from './helpers/store.ts';

// The 'minilm' choice end to end, offline: the generated tiny BERT sits where the MiniLM files
// would, so createMemory drives exactly the transformers.js path a user gets.
describe("createMemory({ embedder: 'minilm' }) offline", () => {
  beforeAll(() => makeTinyBert(TINY_BERT_DIR));

  it('loads from the local path, embeds, and records the model and its dimension', async () => {
    const progress: string[] = [];
    const name = uniqueName('minilm');
    const memory = await createMemory({
      name,
      embedder: 'minilm',
      minilm: { localModelPath: TINY_BERT_DIR, allowRemoteModels: false },
      onProgress: (e) => void (e.kind === 'model' && progress.push(e.status)),
    });
    expect(memory.embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
    expect(progress).toContain('ready');
    await memory.rememberMany(['the cat sleeps on the sofa', 'deploy the server to production']);
    const stats = await memory.stats();
    expect(stats.embedder).toEqual({ id: 'Xenova/all-MiniLM-L6-v2', dim: TINY_BERT_HIDDEN });
    expect(await memory.recall('cat on a sofa', { k: 1 })).toHaveLength(1);
    await memory.close();

    // 'auto' reopens a MiniLM store with MiniLM, and refuses a different embedder.
    const again = await createMemory({ name, embedder: 'auto', minilm: { localModelPath: TINY_BERT_DIR, allowRemoteModels: false } });
    expect(again.embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
    expect(await again.count()).toBe(2);
    await again.close();
    await expect(createMemory({ name, embedder: 'use-lite' })).rejects.toMatchObject({ code: 'EMBEDDER_MISMATCH' });
  });

  it("'auto' falls back to the bundled use-lite model when neither bge-small nor MiniLM can be loaded", async () => {
    const lines: string[] = [];
    const memory = await createMemory({
      name: uniqueName('auto'),
      embedder: 'auto',
      transformers: { model: 'Xenova/not-installed-model', localModelPath: TINY_BERT_DIR, allowRemoteModels: false },
      log: (level, line) => void (level === 'warn' && lines.push(line)),
    });
    expect(memory.embedder.id).toBe('universal-sentence-encoder-lite');
    await memory.close();
  });
});
