/**
 * The `minilm` embedder end to end on a generated tiny BERT: the files sit where the default
 * model id resolves under `localModelPath`, remote models are disabled, and `fetch` throws for
 * any http(s) URL, so these tests exercise the real transformers.js + onnxruntime-node path
 * without any network.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import type { ProgressEvent } from '../src/core/types.ts';
import {
  createTransformersEmbedder,
  type TransformersEmbedder,
  type TransformersEmbedderOptions,
} from '../src/adapters/embedder-transformers.ts';
import { makeTinyBert, TINY_BERT_DIR, TINY_BERT_HIDDEN } from './fixtures/make-tiny-bert.ts';

const localModelPath = `${TINY_BERT_DIR}${path.sep}`;
const offline: TransformersEmbedderOptions = { allowRemoteModels: false, localModelPath };

/** Every http(s) URL anything tried to fetch. Installed before transformers.js is first imported. */
const remoteRequests: string[] = [];
const realFetch = globalThis.fetch;

function urlOf(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  if (input instanceof Request) return input.url;
  return String(input);
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

let embedder: TransformersEmbedder;
const loadEvents: ProgressEvent[] = [];
const logged: [string, string][] = [];
let infoSpy: MockInstance<typeof console.info>;

beforeAll(async () => {
  // transformers.js captures `globalThis.fetch` when it is first imported, so stub it first.
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = urlOf(input);
    if (/^https?:/i.test(url)) {
      remoteRequests.push(url);
      throw new Error(`network access is disabled in tests: ${url}`);
    }
    return realFetch(input, init);
  });
  infoSpy = vi.spyOn(console, 'info').mockImplementation(() => undefined);
  await makeTinyBert(TINY_BERT_DIR);
  embedder = await createTransformersEmbedder({ ...offline, onProgress: (e) => loadEvents.push(e), log: (level, message) => void logged.push([level, message]) });
});

afterAll(async () => {
  await embedder?.dispose();
  infoSpy?.mockRestore();
  vi.unstubAllGlobals();
});

describe('createTransformersEmbedder (tiny offline BERT)', () => {
  it('loads the default model id from localModelPath without touching the network', () => {
    expect(embedder.id).toBe('Xenova/all-MiniLM-L6-v2');
    expect(embedder.dim).toBe(TINY_BERT_HIDDEN);
    expect(embedder.device).toBe('cpu');
    expect(remoteRequests).toEqual([]);
    // The device line goes to the log, at info, once; never to the console (#52: stdout is the program's).
    const deviceLogs = logged.filter(([level, message]) => level === 'info' && message.includes('Xenova/all-MiniLM-L6-v2'));
    expect(deviceLogs).toHaveLength(1);
    expect(deviceLogs[0]![1]).toContain('cpu');
    expect(infoSpy).not.toHaveBeenCalled();
  });

  it('reports model loading progress', () => {
    const statuses = new Set(loadEvents.map((e) => (e.kind === 'model' ? e.status : e.kind)));
    expect(loadEvents.every((e) => e.kind === 'model')).toBe(true);
    expect(statuses.has('initiate')).toBe(true);
    expect(statuses.has('done')).toBe(true);
    expect(loadEvents.at(-1)).toEqual({ kind: 'model', status: 'ready', percent: 100 });
    // One percentage over all the model's files, never going backwards.
    const percents = loadEvents.map((e) => (e.kind === 'model' ? e.percent : undefined));
    expect(percents.every((p) => typeof p === 'number' && p >= 0 && p <= 100)).toBe(true);
    expect(percents).toEqual([...(percents as number[])].sort((a, b) => a - b));
    expect(percents.some((p) => p! > 0 && p! < 100)).toBe(true);
    const files = new Set(loadEvents.flatMap((e) => (e.kind === 'model' && e.file ? [e.file] : [])));
    expect(files).toContain('config.json');
    expect(files).toContain('tokenizer.json');
    expect(files).toContain('onnx/model_quantized.onnx');
    const onnxProgress = loadEvents.find(
      (e) => e.kind === 'model' && e.status === 'progress' && e.file === 'onnx/model_quantized.onnx',
    );
    expect(onnxProgress).toMatchObject({ loaded: expect.any(Number), total: expect.any(Number) });
  });

  it('returns one unit-norm Float32Array per text, deterministically', async () => {
    const texts = ['The cat sat on the mat.', 'Completely unknown zyxw qqq words!', ''];
    const a = await embedder.embed(texts);
    const b = await embedder.embed(texts);
    expect(a).toHaveLength(3);
    for (const [i, v] of a.entries()) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(TINY_BERT_HIDDEN);
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(Array.from(v)).toEqual(Array.from(b[i]!));
    }
  });

  it('places same-topic texts closer than different-topic texts', async () => {
    const [pets, kitten, market, piano] = await embedder.embed([
      'My dog and cat love their vet',
      'The kitten chased a mouse',
      'Stock market interest rates at the bank',
      'She plays jazz piano in a band',
    ]);
    expect(cosine(pets!, kitten!)).toBeGreaterThan(cosine(pets!, market!) + 0.3);
    expect(cosine(pets!, kitten!)).toBeGreaterThan(cosine(pets!, piano!) + 0.3);
    expect(cosine(market!, piano!)).toBeLessThan(0.5);
  });

  it('gives the same vectors in a batch as one at a time', async () => {
    const texts = ['short', 'a much longer sentence about the weather and the rain today', 'pizza for dinner'];
    const batched = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [single] = await embedder.embed([text]);
      for (let j = 0; j < TINY_BERT_HIDDEN; j++) expect(batched[i]![j]).toBeCloseTo(single![j]!, 6);
    }
  });

  it('embeds in batches and reports progress up to the total', async () => {
    const small = await createTransformersEmbedder({ ...offline, batchSize: 2 });
    try {
      const events: ProgressEvent[] = [];
      const texts = ['one cat', 'two dogs', 'three songs', 'four trains', 'five cakes'];
      const out = await small.embed(texts, { onProgress: (e) => events.push(e) });
      expect(events).toEqual([
        { kind: 'embed', done: 2, total: 5 },
        { kind: 'embed', done: 4, total: 5 },
        { kind: 'embed', done: 5, total: 5 },
      ]);
      const reference = await embedder.embed(texts);
      for (const [i, v] of out.entries()) {
        for (let j = 0; j < TINY_BERT_HIDDEN; j++) expect(v[j]).toBeCloseTo(reference[i]![j]!, 6);
      }
    } finally {
      await small.dispose();
    }
  });

  it('throws ABORTED for an aborted signal, before and between batches', async () => {
    const aborted = AbortSignal.abort();
    const before = await rejection(embedder.embed(['anything'], { signal: aborted }));
    expect(before).toBeInstanceOf(MemoryError);
    expect((before as MemoryError).code).toBe('ABORTED');

    const small = await createTransformersEmbedder({ ...offline, batchSize: 1 });
    try {
      const controller = new AbortController();
      const done: number[] = [];
      const between = await rejection(
        small.embed(['a', 'b', 'c'], {
          signal: controller.signal,
          onProgress: (e) => {
            if (e.kind === 'embed') done.push(e.done);
            controller.abort();
          },
        }),
      );
      expect((between as MemoryError).code).toBe('ABORTED');
      expect(done).toEqual([1]);
    } finally {
      await small.dispose();
    }
  });

  it('loads the fp32 file too (same graph, same vectors)', async () => {
    const fp32 = await createTransformersEmbedder({ ...offline, dtype: 'fp32' });
    try {
      const [a] = await fp32.embed(['coffee and cake']);
      const [b] = await embedder.embed(['coffee and cake']);
      expect(Array.from(a!)).toEqual(Array.from(b!));
    } finally {
      await fp32.dispose();
    }
  });

  it('rejects embed after dispose with CLOSED', async () => {
    const other = await createTransformersEmbedder(offline);
    await other.dispose();
    const error = await rejection(other.embed(['x']));
    expect((error as MemoryError).code).toBe('CLOSED');
  });

  it('fails with MODEL_UNAVAILABLE for a model that is not there and remote disabled', async () => {
    const error = await rejection(createTransformersEmbedder({ ...offline, model: 'houkai-test/no-such-model' }));
    expect(error).toBeInstanceOf(MemoryError);
    expect((error as MemoryError).code).toBe('MODEL_UNAVAILABLE');
    expect((error as MemoryError).message).toContain('houkai-test/no-such-model');
    expect(remoteRequests).toEqual([]);
  });

  it('would fetch remotely only when allowed, and the guard catches it (MODEL_UNAVAILABLE)', async () => {
    const error = await rejection(
      createTransformersEmbedder({
        model: 'houkai-test/remote-only-model',
        localModelPath,
        allowRemoteModels: true,
        remoteHost: 'https://models.invalid/',
      }),
    );
    expect((error as MemoryError).code).toBe('MODEL_UNAVAILABLE');
    expect(remoteRequests.length).toBeGreaterThan(0);
    expect(remoteRequests.every((url) => url.startsWith('https://models.invalid/houkai-test/remote-only-model/'))).toBe(true);
    remoteRequests.length = 0;
  });
});
