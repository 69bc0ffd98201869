/**
 * Changed facts (issue #27): does the write-time conflict scan call a changed value a
 * contradiction or an update, and only the same statement a duplicate?
 *
 * Data: `bench/data/changed-values.json`, written before the value rule was changed and never
 * used to tune it (the rules were tuned on `agent-conflicts.json`, SICK TRAIN and the unit
 * tests' cases). Each pair runs through the store's own scan, `detectConflicts`, with the newer
 * memory as the new one and the older as its only candidate, at the pair's cosine under each
 * embedder: what `remember` would report if the older one is among the new memory's neighbours.
 *
 * Classes: `conflict` (contradiction or update: the verdict a user needs), `duplicate`, and
 * `none` (compatible: nothing reported). Per class precision / recall, the kind accuracy among
 * the conflicts found (contradiction vs update), and the data-loss count: changed values called
 * duplicates (what `supersede` would merge away).
 *
 * Run: `npx tsx bench/changed-values.ts` (also part of `npm run eval`).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectConflicts } from '../src/core/domain/conflicts.ts';
import { cosineInOrder } from '../src/core/domain/vector-math.ts';
import { makeMemory } from '../test/helpers/memory.ts';
import { defaultDataDir, loadSick } from './contradiction.ts';
import { benchEmbedders, cachedEmbed, type BenchEmbedder } from './embedders.ts';

export interface ChangedPair {
  older: string;
  newer: string;
  label: 'contradiction' | 'update' | 'duplicate' | 'compatible';
  value: string;
}

export type PairClass = 'conflict' | 'duplicate' | 'none';

/** `tuning`: the set the value rules were tuned on; `heldout`: written after, run for the report. */
export function loadChangedValues(set: 'tuning' | 'heldout' = 'tuning'): ChangedPair[] {
  const file = set === 'tuning' ? './data/changed-values.json' : './data/changed-values-heldout.json';
  return (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { pairs: ChangedPair[] }).pairs;
}

const goldClass = (p: ChangedPair): PairClass => (p.label === 'duplicate' ? 'duplicate' : p.label === 'compatible' ? 'none' : 'conflict');

/** The store's verdict on one pair at a cosine: what `remember(newer)` reports about `older`. */
export async function storeVerdict(p: ChangedPair, cosine: number): Promise<{ cls: PairClass; kind?: string; reason?: string }> {
  const older = makeMemory('older', p.older, { createdAt: 1_000 });
  const newer = makeMemory('newer', p.newer, { createdAt: 2_000 });
  const [c] = await detectConflicts(newer, [{ memory: older, similarity: cosine }]);
  if (!c) return { cls: 'none' };
  return { cls: c.kind === 'duplicate' ? 'duplicate' : 'conflict', kind: c.kind, reason: c.reason };
}

export interface ClassPr {
  n: number;
  predicted: number;
  precision: number;
  recall: number;
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000;

export interface ChangedValuesReport {
  pairs: number;
  byClass: Record<PairClass, ClassPr>;
  /** Among gold conflicts found as conflicts: contradiction vs update as labelled. */
  kindAccuracy: number;
  /** Gold conflicts (changed values) reported as duplicates: supersede would merge them away. */
  changedCalledDuplicate: number;
  /** Gold conflicts per value kind: found / n. */
  byValue: Record<string, { n: number; found: number }>;
  misses: string[];
}

export function score(pairs: readonly ChangedPair[], verdicts: readonly { cls: PairClass; kind?: string }[]): ChangedValuesReport {
  const classes: PairClass[] = ['conflict', 'duplicate', 'none'];
  const byClass = {} as Record<PairClass, ClassPr>;
  for (const cls of classes) {
    const gold = pairs.map((p) => goldClass(p) === cls);
    const pred = verdicts.map((v) => v.cls === cls);
    const tp = gold.filter((g, i) => g && pred[i]).length;
    const predicted = pred.filter(Boolean).length;
    const n = gold.filter(Boolean).length;
    byClass[cls] = { n, predicted, precision: r3(predicted ? tp / predicted : 1), recall: r3(n ? tp / n : 1) };
  }
  const found = pairs.map((p, i) => ({ p, v: verdicts[i]! })).filter(({ p, v }) => goldClass(p) === 'conflict' && v.cls === 'conflict');
  const byValue: Record<string, { n: number; found: number }> = {};
  const misses: string[] = [];
  pairs.forEach((p, i) => {
    const v = verdicts[i]!;
    if (goldClass(p) === 'conflict') {
      const s = (byValue[p.value] ??= { n: 0, found: 0 });
      s.n++;
      if (v.cls === 'conflict') s.found++;
    }
    if (goldClass(p) !== v.cls) misses.push(`${p.label}→${v.cls}: "${p.older}" / "${p.newer}"`);
  });
  return {
    pairs: pairs.length,
    byClass,
    kindAccuracy: r3(found.filter(({ p, v }) => v.kind === p.label).length / Math.max(found.length, 1)),
    changedCalledDuplicate: pairs.filter((p, i) => goldClass(p) === 'conflict' && verdicts[i]!.cls === 'duplicate').length,
    byValue,
    misses,
  };
}

export interface ChangedValuesRun {
  tuning: Record<string, ChangedValuesReport>;
  heldout: Record<string, ChangedValuesReport>;
  /** SICK TEST (premise older, hypothesis newer): the conflict class is CONTRADICTION. */
  sickTest: Record<string, ClassPr & { n: number }>;
}

async function scoreSet(embedder: BenchEmbedder, label: string, pairs: readonly ChangedPair[]): Promise<ChangedValuesReport> {
  const olders = await cachedEmbed(embedder, label, pairs.map((p) => p.older), 'passage');
  const newers = await cachedEmbed(embedder, label, pairs.map((p) => p.newer), 'passage');
  const verdicts = [];
  for (const [i, p] of pairs.entries()) verdicts.push(await storeVerdict(p, cosineInOrder(olders[i]!, newers[i]!)));
  return score(pairs, verdicts);
}

export async function runChangedValues(dataDir = defaultDataDir()): Promise<ChangedValuesRun> {
  const sick = loadSick(join(dataDir, 'sick', 'SICK.txt')).filter((p) => p.split === 'TEST');
  const sickPairs: ChangedPair[] = sick.map((p) => ({ older: p.premise, newer: p.hypothesis, label: p.gold ? 'contradiction' : 'compatible', value: 'sick' }));
  const out: ChangedValuesRun = { tuning: {}, heldout: {}, sickTest: {} };
  for (const embedder of benchEmbedders()) {
    if (!embedder.available()) continue;
    out.tuning[embedder.key] = await scoreSet(embedder, 'changed-values', loadChangedValues('tuning'));
    out.heldout[embedder.key] = await scoreSet(embedder, 'changed-values-heldout', loadChangedValues('heldout'));
    out.sickTest[embedder.key] = (await scoreSet(embedder, 'sick-test', sickPairs)).byClass.conflict;
    await embedder.dispose();
  }
  return out;
}

async function main(): Promise<void> {
  const run = await runChangedValues();
  for (const set of ['tuning', 'heldout'] as const) {
    console.log(`${set === 'tuning' ? 'tuning set (changed-values.json)' : 'held-out set (changed-values-heldout.json)'}:`);
    for (const [key, r] of Object.entries(run[set])) {
      const c = r.byClass;
      console.log(
        `  ${key.padEnd(9)} conflict P ${c.conflict.precision} R ${c.conflict.recall} | duplicate P ${c.duplicate.precision} R ${c.duplicate.recall} | none P ${c.none.precision} R ${c.none.recall} | kind acc ${r.kindAccuracy} | changed→duplicate ${r.changedCalledDuplicate}`,
      );
      if (process.argv.includes('--misses')) for (const m of r.misses) console.log(`     ${m}`);
    }
  }
  console.log('SICK TEST, contradiction as the conflict class:');
  for (const [key, c] of Object.entries(run.sickTest)) console.log(`  ${key.padEnd(9)} P ${c.precision} R ${c.recall} (n ${c.n}, flagged ${c.predicted})`);
  console.log(JSON.stringify(run, (k, v) => (k === 'misses' ? undefined : v)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
