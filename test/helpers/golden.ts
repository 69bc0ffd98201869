/**
 * The golden fixture (test/fixtures/golden/, made by scripts/golden/make_golden.py) as both golden
 * tests read it: test/golden.test.ts in Node and e2e/models.spec.ts in the browser worker.
 */
import { readFileSync } from 'node:fs';
import { cosineInOrder as cosine } from '../../src/core/domain/vector-math.ts';

export interface Golden {
  model: string;
  dim: number;
  queryInstruction?: string;
  /** The reference implementation's vectors. */
  sentences: number[][];
  queries: number[][];
  /** The same q8 file run by Python's onnxruntime. */
  q8: { sentences: number[][]; queries: number[][] };
}

const read = (name: string): string => readFileSync(new URL(`../fixtures/golden/${name}`, import.meta.url), 'utf8');

/** The texts the fixture embeds. */
export const GOLDEN_TEXTS = JSON.parse(read('sentences.json')) as { sentences: string[]; queries: string[] };

/** One model's golden vectors (`minilm.json`, `bge-small.json`). */
export function goldenVectors(key: string): Golden {
  return JSON.parse(read(`${key}.json`)) as Golden;
}

/** The cosine of each of our vectors to its golden counterpart. */
export const goldenCosines = (ours: ArrayLike<number>[], theirs: number[][]): number[] => ours.map((v, i) => cosine(v, theirs[i]!));
