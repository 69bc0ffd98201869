/**
 * Issue #27: Node matches the app. `createMemory({ name })` in Node takes the default model —
 * bge-small since issue #51, else MiniLM — when its files are where `npm run models` puts them
 * (./public/models, or ./models), else the bundled use-lite with a one-line notice; a model that
 * cannot load names the option that points at its files.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findLocalModelPath } from '../src/adapters/node-model-path.ts';
import { createMemory } from '../src/local.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';
import { uniqueName } from './helpers/store.ts';

const REPO = path.resolve(REAL_MODELS_DIR, '..', '..');

beforeAll(() => requireRealModels('minilm', 'bge-small'));
afterEach(() => vi.restoreAllMocks());

describe('the default embedder in Node', () => {
  it('finds the files npm run models provisions, from the working directory', async () => {
    expect(await findLocalModelPath('Xenova/all-MiniLM-L6-v2', REPO)).toBe(REAL_MODELS_DIR);
    expect(await findLocalModelPath('Xenova/all-MiniLM-L6-v2', os.tmpdir())).toBeUndefined();
  });

  it('is bge-small with no option when the files are in ./public/models, and says nothing', async () => {
    vi.spyOn(process, 'cwd').mockReturnValue(REPO);
    const lines: string[] = [];
    const memory = await createMemory({ name: uniqueName('node-default'), index: 'exact', log: (level, line) => void (level !== 'debug' && lines.push(line)) });
    try {
      expect(memory.embedder.id).toBe('Xenova/bge-small-en-v1.5');
      expect(lines.filter((line) => line.includes('files not found'))).toEqual([]);
    } finally {
      await memory.close();
    }
  });

  it('is MiniLM where only MiniLM is provisioned, said in one line naming what was skipped', async () => {
    const only = await mkdtemp(path.join(os.tmpdir(), 'houkai-minilm-only-'));
    try {
      await mkdir(path.join(only, 'models', 'Xenova'), { recursive: true });
      await symlink(path.join(REAL_MODELS_DIR, 'Xenova', 'all-MiniLM-L6-v2'), path.join(only, 'models', 'Xenova', 'all-MiniLM-L6-v2'));
      vi.spyOn(process, 'cwd').mockReturnValue(only);
      const lines: string[] = [];
      const memory = await createMemory({ name: uniqueName('node-minilm-only'), index: 'exact', log: (level, line) => void (level === 'warn' && lines.push(line)) });
      try {
        expect(memory.embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
        expect(lines.filter((line) => line.includes('bge-small files not found'))).toHaveLength(1);
      } finally {
        await memory.close();
      }
    } finally {
      await rm(only, { recursive: true, force: true });
    }
  });

  it('says what failed when a model is there but does not load (a damaged file), and takes the next', async () => {
    const damaged = await mkdtemp(path.join(os.tmpdir(), 'houkai-damaged-bge-'));
    try {
      const bge = path.join(damaged, 'models', 'Xenova', 'bge-small-en-v1.5');
      await mkdir(path.join(bge, 'onnx'), { recursive: true });
      for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) await symlink(path.join(REAL_MODELS_DIR, 'Xenova', 'bge-small-en-v1.5', file), path.join(bge, file));
      await writeFile(path.join(bge, 'onnx', 'model_quantized.onnx'), 'not an onnx model');
      await symlink(path.join(REAL_MODELS_DIR, 'Xenova', 'all-MiniLM-L6-v2'), path.join(damaged, 'models', 'Xenova', 'all-MiniLM-L6-v2'));
      vi.spyOn(process, 'cwd').mockReturnValue(damaged);
      const lines: string[] = [];
      const memory = await createMemory({ name: uniqueName('node-damaged'), index: 'exact', log: (level, line) => void (level === 'warn' && lines.push(line)) });
      try {
        expect(memory.embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain('bge-small could not load (');
        expect(lines[0]).not.toContain('files not found');
      } finally {
        await memory.close();
      }
    } finally {
      await rm(damaged, { recursive: true, force: true });
    }
  });

  it('is use-lite, said in one line, when they are not; asking for MiniLM names transformers.localModelPath', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'houkai-no-models-'));
    try {
      vi.spyOn(process, 'cwd').mockReturnValue(empty);
      const lines: string[] = [];
      const memory = await createMemory({ name: uniqueName('node-fallback'), index: 'exact', log: (level, line) => void (level === 'warn' && lines.push(line)) });
      try {
        expect(memory.embedder.id).toBe('universal-sentence-encoder-lite');
        expect(lines.filter((line) => line.includes('MiniLM')).length).toBeLessThanOrEqual(1);
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
