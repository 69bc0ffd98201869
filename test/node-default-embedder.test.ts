/**
 * Issue #27: Node matches the app. `createMemory({ name })` in Node takes MiniLM when its files are
 * where `npm run models` puts them (./public/models, or ./models), else the bundled use-lite with
 * a one-line notice; a MiniLM that cannot load names the option that points at its files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findLocalModelPath } from '../src/adapters/node-model-path.ts';
import { createMemory } from '../src/local.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';
import { uniqueName } from './helpers/store.ts';

const REPO = path.resolve(REAL_MODELS_DIR, '..', '..');

beforeAll(() => requireRealModels('minilm'));
afterEach(() => vi.restoreAllMocks());

describe('the default embedder in Node', () => {
  it('finds the files npm run models provisions, from the working directory', async () => {
    expect(await findLocalModelPath('Xenova/all-MiniLM-L6-v2', REPO)).toBe(REAL_MODELS_DIR);
    expect(await findLocalModelPath('Xenova/all-MiniLM-L6-v2', os.tmpdir())).toBeUndefined();
  });

  it('is MiniLM with no option when the files are in ./public/models', async () => {
    vi.spyOn(process, 'cwd').mockReturnValue(REPO);
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const memory = await createMemory({ name: uniqueName('node-default'), index: 'exact' });
    try {
      expect(memory.embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
    } finally {
      await memory.close();
    }
  });

  it('is use-lite, said in one line, when they are not; asking for MiniLM names transformers.localModelPath', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'houkai-no-models-'));
    try {
      vi.spyOn(process, 'cwd').mockReturnValue(empty);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      vi.spyOn(console, 'info').mockImplementation(() => undefined);
      const memory = await createMemory({ name: uniqueName('node-fallback'), index: 'exact' });
      try {
        expect(memory.embedder.id).toBe('universal-sentence-encoder-lite');
        expect(warn.mock.calls.filter((c) => String(c[0]).includes('MiniLM')).length).toBeLessThanOrEqual(1);
      } finally {
        await memory.close();
      }
      await expect(createMemory({ name: uniqueName('node-minilm'), embedder: 'minilm', index: 'exact' })).rejects.toMatchObject({
        code: 'MODEL_UNAVAILABLE',
        message: expect.stringContaining('transformers.localModelPath'),
        details: { option: 'transformers.localModelPath' },
      });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
