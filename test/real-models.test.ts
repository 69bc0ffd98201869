/**
 * The real models through the library, offline: `npm run models`' folder, nothing else (fetch of
 * any http(s) URL throws). 'auto' picks MiniLM for a new store, the README's example ranks the
 * right memory first, bge-small embeds queries with its instruction and passages without, and the
 * store records that it is a query/passage model. Also: the catalog agrees with the pinned files.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TRANSFORMERS_MODELS } from '../src/adapters/model-catalog.ts';
import type { EmbedOptions } from '../src/core/ports.ts';
import { createMemory } from '../src/local.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';
import { uniqueName } from './helpers/store.ts';

const remote: string[] = [];
const realFetch = globalThis.fetch;
const transformers = { localModelPath: REAL_MODELS_DIR };

beforeAll(async () => {
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (/^https?:/i.test(url)) {
      remote.push(url);
      throw new Error(`network access is disabled in tests: ${url}`);
    }
    return realFetch(input, init);
  });
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  await requireRealModels('minilm', 'bge-small');
});

afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the model catalog', () => {
  it('gives each model the size of the files npm run models pins, and they are on disk', async () => {
    const manifest = JSON.parse(await readFile(new URL('../scripts/models/manifest.json', import.meta.url), 'utf8')) as {
      models: { key: string; id: string; files: Record<string, { bytes: number }> }[];
    };
    for (const model of manifest.models) {
      const spec = TRANSFORMERS_MODELS[model.key as keyof typeof TRANSFORMERS_MODELS];
      expect(spec.id).toBe(model.id);
      expect(spec.bytes).toBe(Object.values(model.files).reduce((sum, f) => sum + f.bytes, 0));
      for (const [file, pin] of Object.entries(model.files)) {
        expect((await stat(path.join(REAL_MODELS_DIR, model.id, file))).size).toBe(pin.bytes);
      }
    }
  });
});

describe('real models in a store (Node, offline)', () => {
  it("'auto' makes a new store on bge-small, and the README's example question finds the linter memory", async () => {
    const memory = await createMemory({ name: uniqueName('auto-real'), transformers, index: 'exact' });
    try {
      expect(memory.embedder.id).toBe('Xenova/bge-small-en-v1.5');
      expect(memory.embedder.dim).toBe(384);
      await memory.rememberMany([
        'We lint with ESLint and format with Prettier',
        'The staging database is refreshed every Monday night',
        'Alice prefers dark mode in every editor',
        'Deploys to production need two approvals',
        'Lunch on Fridays is pizza with the whole team',
      ]);
      const [top] = await memory.recall('which linter do we use?', { k: 3 });
      expect(top?.memory.text).toBe('We lint with ESLint and format with Prettier');
      expect((await memory.stats()).embedder).toMatchObject({ id: 'Xenova/bge-small-en-v1.5', dim: 384 });
    } finally {
      await memory.close();
    }
    expect(remote).toEqual([]);
  });

  it('bge-small: a query/passage store, recorded as such, reopened by auto', async () => {
    const name = uniqueName('bge');
    const memory = await createMemory({ name, embedder: 'bge-small', transformers, index: 'exact' });
    try {
      expect(memory.embedder.id).toBe('Xenova/bge-small-en-v1.5');
      await memory.rememberMany([
        'Canberra is the capital city of Australia',
        'Kangaroos are marsupials found in Australia',
        'The Sydney Opera House opened in 1973',
      ]);
      const [top] = await memory.recall('what is the capital of Australia?', { k: 3 });
      expect(top?.memory.text).toBe('Canberra is the capital city of Australia');
      expect((await memory.stats()).embedder).toEqual({
        id: 'Xenova/bge-small-en-v1.5',
        dim: 384,
        queryInstruction: 'Represent this sentence for searching relevant passages: ',
      });
    } finally {
      await memory.close();
    }
    const again = await createMemory({ name, transformers, index: 'exact' });
    try {
      expect(again.embedder.id).toBe('Xenova/bge-small-en-v1.5');
      expect(await again.count()).toBe(3);
    } finally {
      await again.close();
    }
    expect(remote).toEqual([]);
  });
});

describe('query and passage embedding through the store', () => {
  it('recall embeds its query as a query; remember embeds passages; the instruction is recorded', async () => {
    const inner = createHashEmbedder({ dim: 16, id: 'qp-test' });
    const seen: (string | undefined)[] = [];
    const embedder = {
      id: inner.id,
      dim: inner.dim,
      queryInstruction: 'Query: ',
      embed: (texts: string[], options: EmbedOptions = {}) => {
        seen.push(options.input);
        return inner.embed(texts, options);
      },
    };
    const memory = await createMemory({ name: uniqueName('qp'), embedder, index: 'exact' });
    try {
      await memory.remember('a stored passage about tea');
      expect(seen).toEqual([undefined]);
      await memory.recall('tea?');
      expect(seen).toEqual([undefined, 'query']);
      expect((await memory.stats()).embedder.queryInstruction).toBe('Query: ');
    } finally {
      await memory.close();
    }
  });
});
