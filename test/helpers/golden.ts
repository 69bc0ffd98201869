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
  /**
   * The same again on other kinds of CPU (onnxruntime's int8 kernels differ by CPU: the vectors
   * of two kinds are ~0.002 apart in cosine), keyed by `cpuKernels()`.
   */
  q8Variants?: { cpu: string; sentences: number[][]; queries: number[][] }[];
}

/**
 * The int8 kernel family onnxruntime picks on this CPU, from its flags: the same rule as
 * make_golden.py's `cpu_kernels` ('unknown' where /proc/cpuinfo cannot be read).
 */
export function cpuKernels(): string {
  let flags: Set<string>;
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags'));
    if (!line) return 'unknown';
    flags = new Set(line.split(':')[1]!.trim().split(/\s+/));
  } catch {
    return 'unknown';
  }
  for (const [flag, name] of [['avx512_vnni', 'avx512-vnni'], ['avx_vnni', 'avx-vnni'], ['avx512bw', 'avx512'], ['avx2', 'avx2']] as const) {
    if (flags.has(flag)) return name;
  }
  return 'other';
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
