/**
 * The reference relevance calibrations shipped for the embedders this project knows, looked up
 * by `Embedder.id` (an embedder may also carry its own in `Embedder.calibration`). The numbers
 * live in `calibration-data.ts`, which `npm run eval -- --calibrate` regenerates: for each
 * embedder, the median and robust spread of the cosine between random pairs of STS-B dev
 * sentences (unrelated text), and a logistic model of P(relevant) over the cosine (in spreads
 * above that median) and the query-term coverage, fitted on related pairs (STS-B dev pairs with
 * gold ≥ 3, SciFact train claims with their evidence sentences) against unrelated ones (STS-B dev
 * pairs with gold < 1, random STS-B dev pairs, SciFact train claims with random evidence
 * sentences), classes weighted equally. Nothing from the test splits or from the agent-memory
 * set that measures the verdicts is used.
 */
import { CALIBRATION_DATA } from './calibration-data.ts';
import type { RelevanceCalibration } from './relevance.ts';

export const REFERENCE_CALIBRATIONS: Readonly<Record<string, RelevanceCalibration>> = CALIBRATION_DATA;

/** Other names of the same models (as the model catalogue accepts them). */
const ALIASES: Readonly<Record<string, string>> = {
  'sentence-transformers/all-MiniLM-L6-v2': 'Xenova/all-MiniLM-L6-v2',
  'all-MiniLM-L6-v2': 'Xenova/all-MiniLM-L6-v2',
  'BAAI/bge-small-en-v1.5': 'Xenova/bge-small-en-v1.5',
  'bge-small-en-v1.5': 'Xenova/bge-small-en-v1.5',
};

/** The embedder's own calibration, else the shipped one for its id, else null. */
export function calibrationFor(embedder: { id: string; calibration?: RelevanceCalibration }): RelevanceCalibration | null {
  if (embedder.calibration) return embedder.calibration;
  return REFERENCE_CALIBRATIONS[embedder.id] ?? REFERENCE_CALIBRATIONS[ALIASES[embedder.id] ?? ''] ?? null;
}
