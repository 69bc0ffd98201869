/**
 * Node only: where `npm run models` puts the transformers.js model files (this repository's
 * `public/models/`), or a `models/` folder beside the program, so that `createMemory()` in Node
 * finds MiniLM as the app does, without a `transformers.localModelPath`. Imported
 * dynamically, and only under Node, so browser bundles never load `node:fs`.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** The folders looked in, in order (relative to the working directory). */
export const DEFAULT_MODEL_DIRS = ['public/models', 'models'] as const;

/** The first default folder holding `<modelId>/onnx/model_quantized.onnx` and its tokenizer, with a trailing separator; undefined when none does. */
export async function findLocalModelPath(modelId: string, cwd = process.cwd()): Promise<string | undefined> {
  for (const dir of DEFAULT_MODEL_DIRS) {
    const root = path.resolve(cwd, dir);
    const files = ['onnx/model_quantized.onnx', 'tokenizer.json', 'config.json'].map((f) => path.join(root, modelId, f));
    const present = await Promise.all(files.map((f) => stat(f).then((s) => s.isFile(), () => false)));
    if (present.every(Boolean)) return `${root}${path.sep}`;
  }
  return undefined;
}
