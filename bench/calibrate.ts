/**
 * Fits each embedder's reference relevance calibration (src/core/domain/relevance.ts) and writes
 * src/core/domain/calibration-data.ts. `npm run eval -- --calibrate` runs it; alone:
 * `npx tsx bench/calibrate.ts [--embedder use-lite|minilm|bge-small] [--dry-run]`.
 *
 * Data (train/dev splits only; nothing here is measured on):
 * - background: 20,000 random pairs (an STS-B dev first sentence, embedded as a query, against a
 *   random STS-B dev sentence): median and robust spread of their cosine;
 * - related pairs: STS-B dev pairs with gold ≥ 3 (sentence 1 as the query), SciFact train claims
 *   (as queries) with each evidence sentence;
 * - unrelated pairs: STS-B dev pairs with gold < 1, 1,500 random STS-B dev pairs, each SciFact
 *   train claim with two random evidence sentences and one that shares a query term with it;
 * - coverage: `lexicalCoverage` with document frequencies over all those sentences.
 * A logistic regression of related (1) vs unrelated (0) on z = (cosine − median)/spread and the
 * coverage, both classes weighted equally, fitted by Newton's method. The probability cut-offs
 * are the library's (`DEFAULT_RELEVANCE_THRESHOLDS`, chosen on the dev half of the agent-memory
 * set). Seeded: a rerun with the same vectors writes the same numbers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { bm25Idf } from '../src/core/domain/bm25.ts';
import { robustStats } from '../src/core/domain/confidence.ts';
import { DEFAULT_RELEVANCE_THRESHOLDS, type RelevanceCalibration, type RelevanceModel } from '../src/core/domain/relevance.ts';
import { lexicalTerms } from '../src/core/domain/tokenize.ts';
import { parseStsb, resolveDataDir } from './datasets.ts';
import { benchEmbedders, cachedEmbed, type BenchEmbedder } from './embedders.ts';
import { QUESTION_FITTED, calibrateOnQuestions } from './calibrate-questions.ts';
import { mulberry32 } from '../test/helpers/prng.ts';
import { cosineInOrder as cosine } from '../src/core/domain/vector-math.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(REPO, 'src', 'core', 'domain', 'calibration-data.ts');
const log = (line: string): void => void process.stderr.write(`${line}\n`);

export interface Example {
  z: number;
  coverage: number;
  related: boolean;
}

/** Balanced-class logistic regression by Newton's method (3 parameters). */
export function fitLogistic(examples: readonly Example[], iterations = 50): RelevanceModel {
  const pos = examples.filter((e) => e.related).length;
  const neg = examples.length - pos;
  if (pos === 0 || neg === 0) throw new Error('calibrate: both classes are needed');
  let b = [0, 0, 0];
  for (let it = 0; it < iterations; it++) {
    const g = [0, 0, 0];
    const H = [
      [1e-6, 0, 0],
      [0, 1e-6, 0],
      [0, 0, 1e-6],
    ];
    for (const e of examples) {
      const x = [1, e.z, e.coverage];
      const w = e.related ? 0.5 / pos : 0.5 / neg;
      const p = 1 / (1 + Math.exp(-(b[0]! + b[1]! * e.z + b[2]! * e.coverage)));
      for (let i = 0; i < 3; i++) {
        g[i]! += w * (p - (e.related ? 1 : 0)) * x[i]!;
        for (let j = 0; j < 3; j++) H[i]![j]! += w * p * (1 - p) * x[i]! * x[j]!;
      }
    }
    const step = solve3(H, g);
    b = b.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-10) break;
  }
  return { bias: round(b[0]!), cosine: round(b[1]!), coverage: round(b[2]!) };
}

function solve3(A: number[][], y: number[]): number[] {
  const det = (M: number[][]): number =>
    M[0]![0]! * (M[1]![1]! * M[2]![2]! - M[1]![2]! * M[2]![1]!) -
    M[0]![1]! * (M[1]![0]! * M[2]![2]! - M[1]![2]! * M[2]![0]!) +
    M[0]![2]! * (M[1]![0]! * M[2]![1]! - M[1]![1]! * M[2]![0]!);
  const D = det(A);
  return [0, 1, 2].map((k) => det(A.map((row, i) => row.map((v, j) => (j === k ? y[i]! : v)))) / D);
}

const round = (x: number): number => Number(x.toFixed(4));

interface SciPair {
  claim: string;
  evidence: string;
}

/** The reference data: STS-B dev pairs and SciFact train claim/evidence pairs. */
export function referenceData(dataDir: string): { sts: { s1: string; s2: string; score: number }[]; sci: SciPair[] } {
  const sts = parseStsb(readFileSync(path.join(dataDir, 'stsb', 'sts-dev.csv'), 'utf8')).pairs;
  const sci = readFileSync(path.join(dataDir, 'scifact', 'claim_evidence_pairs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { split: string; claim: string; evidence: string })
    .filter((r) => r.split === 'train')
    .map((r) => ({ claim: r.claim.trim(), evidence: r.evidence.trim() }));
  return { sts, sci };
}

export async function calibrate(embedder: BenchEmbedder, dataDir: string): Promise<{ calibration: RelevanceCalibration; examples: { related: number; unrelated: number } }> {
  const { sts, sci } = referenceData(dataDir);
  const stsSentences = [...new Set(sts.flatMap((p) => [p.s1, p.s2]))];
  const firsts = [...new Set(sts.map((p) => p.s1))];
  const evidence = [...new Set(sci.map((p) => p.evidence))];
  const claims = [...new Set(sci.map((p) => p.claim))];
  const passages = [...new Set([...stsSentences, ...evidence])];
  log(`  ${embedder.key}: ${passages.length} passages, ${firsts.length + claims.length} queries`);
  const pv = await cachedEmbed(embedder, 'calibration-passages', passages, 'passage');
  const qv = await cachedEmbed(embedder, 'calibration-queries', [...firsts, ...claims], 'query');
  const P = new Map(passages.map((t, i) => [t, pv[i]!]));
  const Q = new Map([...firsts, ...claims].map((t, i) => [t, qv[i]!]));

  const random = mulberry32(20261123);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const background: number[] = [];
  while (background.length < 20_000) {
    const a = pick(firsts);
    const b = pick(stsSentences);
    if (a !== b) background.push(cosine(Q.get(a)!, P.get(b)!));
  }
  const { median, spread } = robustStats(background);

  const termSets = new Map(passages.map((t) => [t, new Set(lexicalTerms(t))]));
  const df = new Map<string, number>();
  for (const set of termSets.values()) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const n = termSets.size;
  const coverage = (query: string, doc: string): number => {
    const terms = [...new Set(lexicalTerms(query))];
    const idf = terms.map((t) => bm25Idf(n, df.get(t) ?? 0));
    const total = idf.reduce((a, b) => a + b, 0);
    const d = termSets.get(doc)!;
    return total > 0 ? terms.reduce((a, t, i) => a + (d.has(t) ? idf[i]! : 0), 0) / total : 0;
  };
  const examples: Example[] = [];
  const add = (query: string, doc: string, related: boolean): void => {
    examples.push({ z: (cosine(Q.get(query)!, P.get(doc)!) - median) / spread, coverage: coverage(query, doc), related });
  };
  for (const p of sts) {
    if (p.score >= 3) add(p.s1, p.s2, true);
    else if (p.score < 1) add(p.s1, p.s2, false);
  }
  for (let i = 0; i < 1500; i++) {
    const a = pick(firsts);
    const b = pick(stsSentences);
    if (a !== b) add(a, b, false);
  }
  const evidenceTerms = evidence.map((e) => termSets.get(e)!);
  for (const p of sci) {
    add(p.claim, p.evidence, true);
    for (let k = 0; k < 2; k++) {
      const other = pick(evidence);
      if (other !== p.evidence) add(p.claim, other, false);
    }
    const terms = new Set(lexicalTerms(p.claim));
    for (let tries = 0; tries < 300; tries++) {
      const j = Math.floor(random() * evidence.length);
      if (evidence[j] === p.evidence || ![...terms].some((t) => evidenceTerms[j]!.has(t))) continue;
      add(p.claim, evidence[j]!, false);
      break;
    }
  }
  const model = fitLogistic(examples);
  const related = examples.filter((e) => e.related).length;
  return {
    calibration: {
      version: 1,
      embedderId: embedder.id,
      background: { median: round(median), spread: round(spread) },
      model,
      thresholds: { ...DEFAULT_RELEVANCE_THRESHOLDS },
      source: `STS-B dev (gold ≥ 3 vs < 1, random pairs) + SciFact train claims vs evidence sentences; ${related} related, ${examples.length - related} unrelated pairs; npm run eval -- --calibrate, ${new Date().toISOString().slice(0, 10)}`,
    },
    examples: { related, unrelated: examples.length - related },
  };
}

function render(calibrations: RelevanceCalibration[]): string {
  const body = calibrations
    .map((c) => `  ${JSON.stringify(c.embedderId)}: ${JSON.stringify(c, null, 2).replace(/\n/g, '\n  ')},`)
    .join('\n');
  return `// Generated by \`npm run eval -- --calibrate\` (bench/calibrate.ts); do not edit by hand.\nimport type { RelevanceCalibration } from './relevance.ts';\n\nexport const CALIBRATION_DATA: Readonly<Record<string, RelevanceCalibration>> = {\n${body}\n};\n`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = args.includes('--embedder') ? args[args.indexOf('--embedder') + 1] : undefined;
  const dataDir = resolveDataDir(REPO);
  const existing = (await import(pathToFileURL(OUT).href)) as { CALIBRATION_DATA: Record<string, RelevanceCalibration> };
  const out = new Map(Object.entries(existing.CALIBRATION_DATA));
  for (const embedder of benchEmbedders()) {
    if (only && embedder.key !== only) continue;
    if (!embedder.available()) {
      log(`calibrate: ${embedder.key} is not provisioned (npm run models); its calibration is left as it is`);
      continue;
    }
    const fitted = await calibrate(embedder, dataDir);
    const { examples } = fitted;
    // The default embedder's model is fitted on questions (bench/calibrate-questions.ts).
    const calibration = QUESTION_FITTED.has(embedder.key) ? await calibrateOnQuestions(embedder, fitted.calibration) : fitted.calibration;
    out.set(calibration.embedderId, calibration);
    console.log(`${embedder.key}: background ${calibration.background.median} ± ${calibration.background.spread}, model ${JSON.stringify(calibration.model)} (${examples.related} related / ${examples.unrelated} unrelated)`);
    await embedder.dispose();
  }
  if (args.includes('--dry-run')) return;
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, render([...out.values()].sort((a, b) => a.embedderId.localeCompare(b.embedderId))));
  log(`calibrate: wrote ${path.relative(REPO, OUT)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
