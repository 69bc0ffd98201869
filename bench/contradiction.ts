/**
 * Contradiction-detector evaluation (no store, no embedder): precision / recall / F1 of
 * `predictContradiction` on SICK (positive class CONTRADICTION; premise = sentence_A, hypothesis =
 * sentence_B) and on SciFact claim/evidence pairs (positive class CONTRADICT; premise = evidence,
 * hypothesis = claim).
 *
 * Protocol: every heuristic choice (negation word list, content similarity measure, stop words,
 * threshold) is picked on SICK TRAIN+TRIAL only, by maximum F0.5 (precision weighs more: the
 * review queue must not be noise). The negation rule stays the reference's parity; a "count
 * differs" variant is tuned the same way and reported, not chosen. SICK TEST and SciFact dev are only measured.
 * The chosen configuration must equal the library default (`DEFAULT_CONTRADICTION_THRESHOLD` and
 * the `ContradictionDetector` defaults); the run says so, or warns. A SciFact-only threshold is
 * also tuned on SciFact train and measured on dev. Kalouli et al.'s label correction of SICK is
 * *not* used for tuning; TEST is additionally scored against the corrected labels (for the
 * 1,508 TEST pairs it covers) as a secondary figure.
 *
 * Data: `<dataDir>/sick/SICK.txt`, `<dataDir>/sick/SICK_subset_corrected_12.03.2019.csv`,
 * `<dataDir>/scifact/claim_evidence_pairs.jsonl` (default dataDir: `../shared/data` beside the
 * checkout). Run: `npx tsx bench/contradiction.ts [dataDir]`: a table, then one JSON line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CONTENT_STOPWORDS,
  ContradictionDetector,
  DEFAULT_CONTRADICTION_THRESHOLD,
  EXTENDED_NEGATION_WORDS,
  NEGATION_WORDS,
  negationTokens,
  overlapCoefficient,
  predictContradiction,
  type DetectorOptions,
} from '../src/core/domain/conflicts.ts';
import { comparePair } from '../src/core/domain/contradiction.ts';
import { negationDiff } from '../src/core/domain/negation.ts';
import { setJaccard } from '../src/core/domain/tokenize.ts';

export interface Pair {
  id: string;
  premise: string;
  hypothesis: string;
  gold: boolean;
  split: string;
}

export interface Prf {
  n: number;
  positives: number;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface DetectorConfig {
  negationWords: 'reference' | 'extended';
  negationMode: 'parity' | 'count';
  similarity: 'jaccard' | 'overlap';
  stopwords: boolean;
  threshold: number;
}

export interface SweepRow {
  threshold: number;
  train: Prf;
  test: Prf;
}

export interface ContradictionEval {
  data: {
    sick: { path: string; pairs: number; bySplit: Record<string, { pairs: number; contradictions: number }> };
    sickCorrection: { path: string; used: 'secondary TEST figure only'; coveredTestPairs: number; labelsChanged: number };
    scifact: { path: string; pairs: number; bySplit: Record<string, { pairs: number; contradictions: number }> };
  };
  tuning: {
    criterion: 'max F0.5 on SICK TRAIN+TRIAL';
    chosen: DetectorConfig;
    matchesLibraryDefault: boolean;
    candidates: number;
  };
  /** The library default (`predictContradiction` without options). */
  sick: { train: Prf; trial: Prf; trainTrial: Prf; test: Prf; testCorrectedLabels: Prf };
  scifact: { train: Prf; dev: Prf };
  /** Plain reference negation parity (no content gate): what the store's scan alone would say. */
  baselineParity: { sickTrainTrial: Prf; sickTest: Prf; scifactTrain: Prf; scifactDev: Prf };
  /** A threshold tuned on SciFact train only (same features as the default), measured on dev. */
  scifactTuned: { threshold: number; train: Prf; dev: Prf };
  /** Variant: negation *count* differs instead of parity, tuned the same way on TRAIN+TRIAL (not chosen: see the module comment). */
  countVariant: { config: DetectorConfig; sickTrainTrial: Prf; sickTest: Prf; scifactDev: Prf };
  /** Threshold trade-off of the chosen features: TRAIN+TRIAL (used for the choice) and TEST (reported only). */
  sweep: SweepRow[];
  targetMet: { sickTestPrecisionAtLeast080: boolean };
}

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

/** Reads SICK.txt by its header (column names, not positions); fields are trimmed. */
export function loadSick(path: string): Pair[] {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  const header = lines[0]!.split('\t').map((h) => h.trim());
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${path}: no column ${name} in header ${header.join(', ')}`);
    return i;
  };
  const [iId, iA, iB, iLabel, iSet] = ['pair_ID', 'sentence_A', 'sentence_B', 'entailment_label', 'SemEval_set'].map(col) as [number, number, number, number, number];
  const out: Pair[] = [];
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const f = line.split('\t');
    const label = (f[iLabel] ?? '').trim();
    if (!['NEUTRAL', 'ENTAILMENT', 'CONTRADICTION'].includes(label)) throw new Error(`${path}: unexpected label ${label}`);
    out.push({ id: f[iId]!.trim(), premise: f[iA]!.trim(), hypothesis: f[iB]!.trim(), gold: label === 'CONTRADICTION', split: (f[iSet] ?? '').trim() });
  }
  return out;
}

/**
 * Kalouli et al.'s correction: `pair id → corrected gold` (positive iff the corrected label is
 * `AcBBcA`, contradiction in both directions, which is how the official CONTRADICTION label maps:
 * all 904 official CONTRADICTION pairs in the file are `AcBBcA`, one-way `c` pairs are NEUTRAL).
 */
export function loadSickCorrection(path: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const lines = readFileSync(path, 'utf8').split(/\r?\n/);
  const header = lines[0]!.split('\t').map((h) => h.trim());
  const iId = header.indexOf('Pair_id');
  const iLabel = header.indexOf('corrected_label');
  if (iId < 0 || iLabel < 0) throw new Error(`${path}: unexpected header ${header.join(', ')}`);
  for (const line of lines.slice(1)) {
    if (line.trim() === '') continue;
    const f = line.split('\t');
    const label = (f[iLabel] ?? '').replace(/[^A-Za-z]/g, '');
    out.set(f[iId]!.trim(), label === 'AcBBcA');
  }
  return out;
}

/** SciFact claim/evidence pairs (fields `split`, `claim_id`, `doc_id`, `claim`, `evidence`, `label`). */
export function loadScifactPairs(path: string): Pair[] {
  const out: Pair[] = [];
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { split: string; claim_id: string; doc_id: string; claim: string; evidence: string; label: string; evidence_sentence_indices: number[] };
    if (row.label !== 'SUPPORT' && row.label !== 'CONTRADICT') throw new Error(`${path}: unexpected label ${row.label}`);
    out.push({
      id: `${row.claim_id}/${row.doc_id}/${row.evidence_sentence_indices.join(',')}`,
      premise: row.evidence.trim(),
      hypothesis: row.claim.trim(),
      gold: row.label === 'CONTRADICT',
      split: row.split,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------

export function prf(gold: readonly boolean[], pred: readonly boolean[]): Prf {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (let i = 0; i < gold.length; i++) {
    if (pred[i] && gold[i]) tp++;
    else if (pred[i]) fp++;
    else if (gold[i]) fn++;
  }
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { n: gold.length, positives: tp + fn, tp, fp, fn, precision: r4(precision), recall: r4(recall), f1: r4(f1) };
}

function fBeta(p: Prf, beta: number): number {
  const b2 = beta * beta;
  const d = b2 * p.precision + p.recall;
  return d === 0 ? 0 : ((1 + b2) * p.precision * p.recall) / d;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** Per-pair features of one feature configuration (everything but the threshold). */
interface Features {
  flip: boolean;
  sim: number;
}

function features(pairs: readonly Pair[], cfg: Omit<DetectorConfig, 'threshold'>): Features[] {
  const neg = new Set(cfg.negationWords === 'reference' ? NEGATION_WORDS : EXTENDED_NEGATION_WORDS);
  const stop = new Set(cfg.stopwords ? CONTENT_STOPWORDS : []);
  return pairs.map((p) => {
    const ta = negationTokens(p.premise);
    const tb = negationTokens(p.hypothesis);
    const na = ta.filter((t) => neg.has(t)).length;
    const nb = tb.filter((t) => neg.has(t)).length;
    const ca = new Set(ta.filter((t) => !neg.has(t) && !stop.has(t)));
    const cb = new Set(tb.filter((t) => !neg.has(t) && !stop.has(t)));
    const flip = cfg.negationMode === 'parity' ? na % 2 !== nb % 2 : na !== nb;
    return { flip, sim: cfg.similarity === 'jaccard' ? setJaccard(ca, cb) : overlapCoefficient(ca, cb) };
  });
}

const THRESHOLDS = Array.from({ length: 21 }, (_, i) => r4(i * 0.05));

function evalAt(pairs: readonly Pair[], feats: readonly Features[], threshold: number): Prf {
  return prf(
    pairs.map((p) => p.gold),
    feats.map((f) => f.flip && f.sim >= threshold),
  );
}

/** The best threshold for fixed features by F0.5 (ties: higher recall, then the lower threshold). */
function bestThreshold(pairs: readonly Pair[], feats: readonly Features[]): { threshold: number; prf: Prf; f05: number } {
  let best: { threshold: number; prf: Prf; f05: number } | null = null;
  for (const t of THRESHOLDS) {
    const m = evalAt(pairs, feats, t);
    const f05 = fBeta(m, 0.5);
    if (!best || f05 > best.f05 + 1e-12 || (Math.abs(f05 - best.f05) <= 1e-12 && m.recall > best.prf.recall)) best = { threshold: t, prf: m, f05 };
  }
  return best!;
}

function toOptions(cfg: DetectorConfig): DetectorOptions {
  return {
    threshold: cfg.threshold,
    negationWords: cfg.negationWords === 'reference' ? NEGATION_WORDS : EXTENDED_NEGATION_WORDS,
    negationMode: cfg.negationMode,
    similarity: cfg.similarity,
    stopwords: cfg.stopwords ? CONTENT_STOPWORDS : [],
  };
}

function evalDetector(pairs: readonly Pair[], predict: (p: Pair) => boolean): Prf {
  return prf(
    pairs.map((p) => p.gold),
    pairs.map(predict),
  );
}

function splitCounts(pairs: readonly Pair[]): Record<string, { pairs: number; contradictions: number }> {
  const out: Record<string, { pairs: number; contradictions: number }> = {};
  for (const p of pairs) {
    const s = (out[p.split] ??= { pairs: 0, contradictions: 0 });
    s.pairs++;
    if (p.gold) s.contradictions++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

export function defaultDataDir(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data');
}

/** Runs the whole evaluation and returns the figures as plain data. */
export function runContradictionEval(dataDir: string = defaultDataDir()): ContradictionEval {
  const sickPath = join(dataDir, 'sick', 'SICK.txt');
  const correctionPath = join(dataDir, 'sick', 'SICK_subset_corrected_12.03.2019.csv');
  const scifactPath = join(dataDir, 'scifact', 'claim_evidence_pairs.jsonl');
  for (const p of [sickPath, correctionPath, scifactPath]) if (!existsSync(p)) throw new Error(`missing data file ${p}`);

  const sick = loadSick(sickPath);
  const correction = loadSickCorrection(correctionPath);
  const scifact = loadScifactPairs(scifactPath);
  const sickSplit = (...names: string[]): Pair[] => sick.filter((p) => names.includes(p.split));
  const trainTrial = sickSplit('TRAIN', 'TRIAL');
  const test = sickSplit('TEST');
  const sciTrain = scifact.filter((p) => p.split === 'train');
  const sciDev = scifact.filter((p) => p.split === 'dev');

  // Tuning: every feature configuration × threshold, on TRAIN+TRIAL only. The negation rule stays
  // the reference's parity (the detector is "negation parity and polarity"); `count` mode is tuned
  // the same way and reported as a variant, not chosen.
  const tune = (modes: readonly ('parity' | 'count')[]): { cfg: DetectorConfig; f05: number; recall: number; candidates: number } => {
    let chosen: { cfg: DetectorConfig; f05: number; recall: number } | null = null;
    let candidates = 0;
    for (const negationWords of ['reference', 'extended'] as const)
      for (const negationMode of modes)
        for (const similarity of ['jaccard', 'overlap'] as const)
          for (const stopwords of [true, false]) {
            const base = { negationWords, negationMode, similarity, stopwords };
            const best = bestThreshold(trainTrial, features(trainTrial, base));
            candidates += THRESHOLDS.length;
            if (!chosen || best.f05 > chosen.f05 + 1e-12 || (Math.abs(best.f05 - chosen.f05) <= 1e-12 && best.prf.recall > chosen.recall)) {
              chosen = { cfg: { ...base, threshold: best.threshold }, f05: best.f05, recall: best.prf.recall };
            }
          }
    return { ...chosen!, candidates };
  };
  const chosen = tune(['parity']);
  const candidates = chosen.candidates;
  const countVariant = tune(['count']);
  const cfg = chosen.cfg;
  const library: DetectorConfig = { negationWords: 'extended', negationMode: 'parity', similarity: 'overlap', stopwords: true, threshold: DEFAULT_CONTRADICTION_THRESHOLD };
  const matchesLibraryDefault = JSON.stringify(cfg) === JSON.stringify(library);
  // Sanity: the tuned options reproduce through the public detector class.
  void new ContradictionDetector(toOptions(cfg));

  // The library default, through the public function.
  const predictDefault = (p: Pair): boolean => predictContradiction(p.premise, p.hypothesis);
  const correctedTest = test.map((p) => (correction.has(p.id) ? { ...p, gold: correction.get(p.id)! } : p));
  const coveredTestPairs = test.filter((p) => correction.has(p.id)).length;
  const labelsChanged = sick.filter((p) => correction.has(p.id) && correction.get(p.id) !== p.gold).length;

  // Plain reference parity: any negation flip, reference list, no content gate.
  const parity = (p: Pair): boolean =>
    predictContradiction(p.premise, p.hypothesis, { threshold: 0, negationWords: NEGATION_WORDS, negationMode: 'parity' });

  // SciFact-only threshold (same features as the default), tuned on SciFact train.
  const libFeatures = { negationWords: library.negationWords, negationMode: library.negationMode, similarity: library.similarity, stopwords: library.stopwords };
  const sciBest = bestThreshold(sciTrain, features(sciTrain, libFeatures));

  const chosenFeatures = { negationWords: cfg.negationWords, negationMode: cfg.negationMode, similarity: cfg.similarity, stopwords: cfg.stopwords };
  const ttFeats = features(trainTrial, chosenFeatures);
  const testFeats = features(test, chosenFeatures);
  const sweep = THRESHOLDS.map((t) => ({ threshold: t, train: evalAt(trainTrial, ttFeats, t), test: evalAt(test, testFeats, t) }));

  const sickTest = evalDetector(test, predictDefault);
  const countOpts = toOptions(countVariant.cfg);
  const predictCount = (p: Pair): boolean => predictContradiction(p.premise, p.hypothesis, countOpts);
  return {
    data: {
      sick: { path: sickPath, pairs: sick.length, bySplit: splitCounts(sick) },
      sickCorrection: { path: correctionPath, used: 'secondary TEST figure only', coveredTestPairs, labelsChanged },
      scifact: { path: scifactPath, pairs: scifact.length, bySplit: splitCounts(scifact) },
    },
    tuning: { criterion: 'max F0.5 on SICK TRAIN+TRIAL', chosen: cfg, matchesLibraryDefault, candidates },
    sick: {
      train: evalDetector(sickSplit('TRAIN'), predictDefault),
      trial: evalDetector(sickSplit('TRIAL'), predictDefault),
      trainTrial: evalDetector(trainTrial, predictDefault),
      test: sickTest,
      testCorrectedLabels: evalDetector(correctedTest, predictDefault),
    },
    scifact: { train: evalDetector(sciTrain, predictDefault), dev: evalDetector(sciDev, predictDefault) },
    baselineParity: {
      sickTrainTrial: evalDetector(trainTrial, parity),
      sickTest: evalDetector(test, parity),
      scifactTrain: evalDetector(sciTrain, parity),
      scifactDev: evalDetector(sciDev, parity),
    },
    scifactTuned: {
      threshold: sciBest.threshold,
      train: sciBest.prf,
      dev: evalAt(sciDev, features(sciDev, libFeatures), sciBest.threshold),
    },
    countVariant: {
      config: countVariant.cfg,
      sickTrainTrial: evalDetector(trainTrial, predictCount),
      sickTest: evalDetector(test, predictCount),
      scifactDev: evalDetector(sciDev, predictCount),
    },
    sweep,
    targetMet: { sickTestPrecisionAtLeast080: sickTest.precision >= 0.8 },
  };
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

function row(name: string, m: Prf): string {
  return `${name.padEnd(56)} ${String(m.n).padStart(5)} ${String(m.positives).padStart(5)} ${String(m.tp).padStart(5)} ${String(m.fp).padStart(5)} ${String(m.fn).padStart(5)}  ${m.precision.toFixed(3)}  ${m.recall.toFixed(3)}  ${m.f1.toFixed(3)}`;
}

function main(): void {
  const dataDir = process.argv[2] ? resolve(process.argv[2]) : defaultDataDir();
  const r = runContradictionEval(dataDir);
  const c = r.tuning.chosen;
  console.log(`Contradiction detector (data: ${dataDir})`);
  console.log(
    `tuned on SICK TRAIN+TRIAL (${r.tuning.criterion}, ${r.tuning.candidates} candidates): negations=${c.negationWords}, mode=${c.negationMode}, ` +
      `similarity=${c.similarity}, stopwords=${c.stopwords}, threshold=${c.threshold}` +
      (r.tuning.matchesLibraryDefault ? ' (= library default)' : '  ** differs from the library default **'),
  );
  console.log('');
  console.log(`${'set'.padEnd(56)} ${'n'.padStart(5)} ${'pos'.padStart(5)} ${'tp'.padStart(5)} ${'fp'.padStart(5)} ${'fn'.padStart(5)}  prec   rec    F1`);
  console.log(row('SICK TRAIN', r.sick.train));
  console.log(row('SICK TRIAL', r.sick.trial));
  console.log(row('SICK TRAIN+TRIAL', r.sick.trainTrial));
  console.log(row('SICK TEST', r.sick.test));
  console.log(row('SICK TEST (corrected labels, secondary)', r.sick.testCorrectedLabels));
  console.log(row('SciFact train', r.scifact.train));
  console.log(row('SciFact dev', r.scifact.dev));
  console.log(row('baseline parity: SICK TRAIN+TRIAL', r.baselineParity.sickTrainTrial));
  console.log(row('baseline parity: SICK TEST', r.baselineParity.sickTest));
  console.log(row('baseline parity: SciFact train', r.baselineParity.scifactTrain));
  console.log(row('baseline parity: SciFact dev', r.baselineParity.scifactDev));
  console.log(row(`SciFact-tuned t=${r.scifactTuned.threshold}: train`, r.scifactTuned.train));
  console.log(row(`SciFact-tuned t=${r.scifactTuned.threshold}: dev`, r.scifactTuned.dev));
  const v = r.countVariant.config;
  const vName = `count variant (${v.negationWords}, ${v.similarity}, t=${v.threshold})`;
  console.log(row(`${vName}: SICK TRAIN+TRIAL`, r.countVariant.sickTrainTrial));
  console.log(row(`${vName}: SICK TEST`, r.countVariant.sickTest));
  console.log(row(`${vName}: SciFact dev`, r.countVariant.scifactDev));
  console.log('');
  console.log('threshold trade-off (chosen features): TRAIN+TRIAL prec/rec/F1 | TEST prec/rec/F1 (TEST not used for the choice)');
  for (const s of r.sweep) {
    if (Math.round(s.threshold * 100) % 10 !== 0 && s.threshold !== c.threshold) continue;
    console.log(
      `  t=${s.threshold.toFixed(2)}  ${s.train.precision.toFixed(3)} ${s.train.recall.toFixed(3)} ${s.train.f1.toFixed(3)} | ${s.test.precision.toFixed(3)} ${s.test.recall.toFixed(3)} ${s.test.f1.toFixed(3)}${s.threshold === c.threshold ? '  <- chosen' : ''}`,
    );
  }
  console.log(`target precision ≥ 0.80 on SICK TEST: ${r.targetMet.sickTestPrecisionAtLeast080 ? 'met' : 'NOT met'}`);
  console.log(JSON.stringify(r));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();

// ---------------------------------------------------------------------------------------------
// The store's patterns (issue #14): negation with a content check, swapped alternatives, values
// ---------------------------------------------------------------------------------------------

export interface HandPair {
  older: string;
  newer: string;
  label: 'contradiction' | 'update' | 'duplicate' | 'compatible' | 'unrelated';
  pattern: string;
}

export function loadHandWritten(file = join(dirname(fileURLToPath(import.meta.url)), 'data', 'agent-conflicts.json')): HandPair[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { pairs: HandPair[] }).pairs;
}

export interface PatternsEval {
  /** The patterns (comparePair): positive class = contradiction or update. */
  handWritten: Prf & { kind_accuracy: number; by_label: Record<string, { n: number; flagged: number }> };
  /** Before: the store's previous rule (reference negation parity, no content check) and the previous evaluation detector. */
  handWrittenBefore: { parity: Prf; detector: Prf };
  sick: { train: Prf; test: Prf; testBefore: Prf };
  /** Hand-written pairs as a store would see them: flagged only when cosine ≥ the pattern gate (per embedder, when vectors are given). */
  gated?: Record<string, Prf>;
}

/**
 * The patterns on the hand-written agent-memory pairs and on SICK (premise = older, hypothesis =
 * newer). Nothing is tuned here: the content gate (0.85) was chosen on SICK TRAIN+TRIAL before.
 */
export function runPatternsEval(dataDir: string = defaultDataDir(), cosines?: Record<string, (older: string, newer: string) => number>, gate = 0.5): PatternsEval {
  const pairs = loadHandWritten();
  const gold = pairs.map((p) => p.label === 'contradiction' || p.label === 'update');
  const verdicts = pairs.map((p) => comparePair(p.older, p.newer));
  const handWritten = prf(gold, verdicts.map((v) => v !== null));
  const flaggedGold = pairs.map((p, i) => ({ p, v: verdicts[i] })).filter(({ p, v }) => v && (p.label === 'contradiction' || p.label === 'update'));
  const byLabel: Record<string, { n: number; flagged: number }> = {};
  pairs.forEach((p, i) => {
    const s = (byLabel[p.label] ??= { n: 0, flagged: 0 });
    s.n++;
    if (verdicts[i]) s.flagged++;
  });
  const sick = loadSick(join(dataDir, 'sick', 'SICK.txt'));
  const split = (name: string) => sick.filter((p) => p.split === name);
  const onSick = (ps: Pair[]) => prf(ps.map((p) => p.gold), ps.map((p) => comparePair(p.premise, p.hypothesis) !== null));
  const gated: Record<string, Prf> = {};
  for (const [name, cos] of Object.entries(cosines ?? {})) gated[name] = prf(gold, pairs.map((p, i) => verdicts[i] !== null && cos(p.older, p.newer) >= gate));
  return {
    handWritten: {
      ...handWritten,
      kind_accuracy: r4(flaggedGold.filter(({ p, v }) => v!.kind === p.label).length / Math.max(flaggedGold.length, 1)),
      by_label: byLabel,
    },
    handWrittenBefore: {
      parity: prf(gold, pairs.map((p) => negationDiff(p.older, p.newer))),
      detector: prf(gold, pairs.map((p) => predictContradiction(p.older, p.newer))),
    },
    sick: {
      train: onSick(split('TRAIN')),
      test: onSick(split('TEST')),
      testBefore: prf(split('TEST').map((p) => p.gold), split('TEST').map((p) => predictContradiction(p.premise, p.hypothesis))),
    },
    ...(cosines ? { gated } : {}),
  };
}
