/**
 * What the app says about embedding models: their names, download sizes and loading state,
 * for the status pill and the store picker. Sizes come from the model catalog (the files
 * `npm run models` provisions); use-lite ships with the app.
 */
import { TRANSFORMERS_MODELS, knownModel } from '../../adapters/model-catalog.ts';
import type { ProgressEvent } from '../../index.ts';
import { bytes } from './format.ts';

export type ModelChoice = 'auto' | 'minilm' | 'bge-small' | 'use-lite';

export const USE_LITE_ID = 'universal-sentence-encoder-lite';

/** The choices a new store offers, with what each costs on first use. */
export const MODEL_CHOICES: readonly { value: ModelChoice; label: string }[] = [
  { value: 'auto', label: `Default: ${TRANSFORMERS_MODELS['bge-small'].label} (${bytes(TRANSFORMERS_MODELS['bge-small'].bytes)})` },
  { value: 'bge-small', label: `${TRANSFORMERS_MODELS['bge-small'].label} · ${bytes(TRANSFORMERS_MODELS['bge-small'].bytes)} · best retrieval` },
  { value: 'minilm', label: `${TRANSFORMERS_MODELS.minilm.label} · ${bytes(TRANSFORMERS_MODELS.minilm.bytes)} · lighter, twice as fast` },
  { value: 'use-lite', label: 'USE-lite · bundled · fastest start' },
];

/** The download size of a model by its id, or null (use-lite and unknown models). */
export function modelBytes(id: string | null | undefined): number | null {
  return id ? (knownModel(id)?.bytes ?? null) : null;
}

/** Loading percent (0–100) of a model load in progress, or null when the event is not one. */
export function modelPercent(progress: ProgressEvent | null): number | null {
  if (!progress || progress.kind !== 'model') return null;
  if (progress.percent !== undefined) return progress.percent;
  return progress.total ? Math.floor(((progress.loaded ?? 0) / progress.total) * 100) : null;
}
