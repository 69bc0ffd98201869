/**
 * The real model weights for tests: the folder `npm run models` fills (npm test runs it first).
 * A test that needs them fails with the command to run when they are missing; it never skips.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSFORMERS_MODELS, type TransformersModelKey } from '../../src/adapters/model-catalog.ts';

export const REAL_MODELS_DIR = `${path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../public/models')}${path.sep}`;

export async function requireRealModels(...keys: TransformersModelKey[]): Promise<void> {
  for (const key of keys) {
    const { id } = TRANSFORMERS_MODELS[key];
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']) {
      const present = await stat(path.join(REAL_MODELS_DIR, id, file)).catch(() => null);
      if (!present) throw new Error(`${id}/${file} is not in ${REAL_MODELS_DIR}: run \`npm run models\` first (npm test does)`);
    }
  }
}
