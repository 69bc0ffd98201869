/**
 * Parsers and small statistics for `npm run eval` (bench/eval.ts). Pure functions over file
 * contents, so the unit tests (test/eval-metrics.test.ts) can feed them inline samples.
 *
 * The data itself is third-party and lives outside the repository, in `../shared/data/` beside
 * the checkout (see `resolveDataDir`); it is never copied into the project.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

// ---------------------------------------------------------------------------------------------
// Locating the data
// ---------------------------------------------------------------------------------------------

/** `$HOUKAI_DATA` when set, else `<repo root>/../shared/data`. Does not check that it exists. */
export function resolveDataDir(repoRoot: string, env: Record<string, string | undefined> = process.env): string {
  const override = env.HOUKAI_DATA;
  if (override !== undefined && override.trim() !== '') return path.resolve(override);
  return path.resolve(repoRoot, '..', 'shared', 'data');
}

/** The relative paths (under the data dir) that are missing. */
export function missingFiles(dataDir: string, relative: readonly string[]): string[] {
  return relative.filter((rel) => !existsSync(path.join(dataDir, rel)));
}

// ---------------------------------------------------------------------------------------------
// SciFact (BEIR layout)
// ---------------------------------------------------------------------------------------------

export interface ParseStats {
  /** Non-empty lines that could not be parsed (skipped). */
  malformed: number;
}

/** One JSON object per non-empty line; lines that are not JSON objects are skipped and counted. */
export function parseJsonl(text: string): { rows: Record<string, unknown>[] } & ParseStats {
  const rows: Record<string, unknown>[] = [];
  let malformed = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) rows.push(value as Record<string, unknown>);
      else malformed++;
    } catch {
      malformed++;
    }
  }
  return { rows, malformed };
}

export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
}

/** BEIR corpus.jsonl: `{ _id, title, text }` per line. Rows without an `_id` or any text are skipped. */
export function parseBeirCorpus(text: string): { docs: CorpusDoc[] } & ParseStats {
  const { rows, malformed } = parseJsonl(text);
  const docs: CorpusDoc[] = [];
  let bad = malformed;
  for (const row of rows) {
    const id = row._id;
    const title = typeof row.title === 'string' ? row.title : '';
    const body = typeof row.text === 'string' ? row.text : '';
    if ((typeof id !== 'string' && typeof id !== 'number') || (title.trim() === '' && body.trim() === '')) {
      bad++;
      continue;
    }
    docs.push({ id: String(id), title, text: body });
  }
  return { docs, malformed: bad };
}

/** The text a SciFact document is remembered as: title + " " + text (just one of them when the other is empty). */
export function docText(doc: CorpusDoc): string {
  return [doc.title.trim(), doc.text.trim()].filter((s) => s !== '').join(' ');
}

/** BEIR queries.jsonl: query id → text. */
export function parseBeirQueries(text: string): { queries: Map<string, string> } & ParseStats {
  const { rows, malformed } = parseJsonl(text);
  const queries = new Map<string, string>();
  let bad = malformed;
  for (const row of rows) {
    const id = row._id;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof row.text !== 'string' || row.text.trim() === '') {
      bad++;
      continue;
    }
    queries.set(String(id), row.text);
  }
  return { queries, malformed: bad };
}

/**
 * BEIR qrels TSV: `query-id corpus-id score`, optionally with that header line. Judgements with
 * score > 0 are relevant (binary relevance); score ≤ 0 rows are read but not kept. Rows with
 * fewer than 3 fields or a non-numeric score are skipped and counted.
 */
export function parseQrels(text: string): { qrels: Map<string, Set<string>> } & ParseStats {
  const qrels = new Map<string, Set<string>>();
  let malformed = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const fields = line.split('\t').map((f) => f.trim());
    if (i === 0 && fields[0]?.toLowerCase() === 'query-id') return; // header
    if (fields.length < 3 || fields[0] === '' || fields[1] === '') {
      malformed++;
      return;
    }
    const score = Number(fields[2]);
    if (fields[2] === '' || !Number.isFinite(score)) {
      malformed++;
      return;
    }
    if (score <= 0) return;
    const set = qrels.get(fields[0]!) ?? new Set<string>();
    set.add(fields[1]!);
    qrels.set(fields[0]!, set);
  });
  return { qrels, malformed };
}

export interface ClaimSet {
  /** claim id → claim text. */
  queries: Map<string, string>;
  /** claim id → ids of the corpus documents holding its evidence. */
  qrels: Map<string, Set<string>>;
}

/**
 * SciFact `claim_evidence_pairs.jsonl` (`split`, `claim_id`, `claim`, `doc_id`, …) → the claims
 * of one split with their evidence documents as relevance judgements.
 */
export function parseClaimEvidencePairs(text: string, split: string): ClaimSet & ParseStats {
  const { rows, malformed } = parseJsonl(text);
  const queries = new Map<string, string>();
  const qrels = new Map<string, Set<string>>();
  let bad = malformed;
  for (const row of rows) {
    if (row.split !== split) continue;
    const claimId = row.claim_id;
    const docId = row.doc_id;
    if (
      (typeof claimId !== 'string' && typeof claimId !== 'number') ||
      (typeof docId !== 'string' && typeof docId !== 'number') ||
      typeof row.claim !== 'string' ||
      row.claim.trim() === ''
    ) {
      bad++;
      continue;
    }
    const id = String(claimId);
    queries.set(id, row.claim);
    const set = qrels.get(id) ?? new Set<string>();
    set.add(String(docId));
    qrels.set(id, set);
  }
  return { queries, qrels, malformed: bad };
}

// ---------------------------------------------------------------------------------------------
// STS Benchmark
// ---------------------------------------------------------------------------------------------

export interface StsPair {
  score: number;
  s1: string;
  s2: string;
}

/**
 * STS Benchmark CSV: tab-separated, no quoting (quotes are literal text); fields 5, 6, 7 (1-based)
 * are the gold score (0–5), sentence 1 and sentence 2. Some rows carry extra trailing fields
 * (sources), which are ignored. Rows with fewer than 7 fields, a score that is not a number in
 * [0, 5], or an empty sentence are skipped and counted.
 */
export function parseStsb(text: string): { pairs: StsPair[] } & ParseStats {
  const pairs: StsPair[] = [];
  let malformed = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const fields = line.split('\t');
    if (fields.length < 7) {
      malformed++;
      continue;
    }
    const rawScore = fields[4]!.trim();
    const score = Number(rawScore);
    const s1 = fields[5]!.trim();
    const s2 = fields[6]!.trim();
    if (rawScore === '' || !Number.isFinite(score) || score < 0 || score > 5 || s1 === '' || s2 === '') {
      malformed++;
      continue;
    }
    pairs.push({ score, s1, s2 });
  }
  return { pairs, malformed };
}

// ---------------------------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------------------------

/** 1-based ranks, ascending; tied values share the mean of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start + 1;
    while (end < order.length && values[order[end]!] === values[order[start]!]) end++;
    const rank = (start + 1 + end) / 2; // mean of ranks start+1 … end
    for (let j = start; j < end; j++) ranks[order[j]!] = rank;
    start = end;
  }
  return ranks;
}

/** Pearson correlation; NaN when either side is constant or there are fewer than 2 points. */
export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new Error(`pearson: ${x.length} vs ${y.length} values`);
  const n = x.length;
  if (n < 2) return Number.NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : Number.NaN;
}

/** Spearman's ρ with ties: the Pearson correlation of the average ranks (as scipy.stats.spearmanr). */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new Error(`spearman: ${x.length} vs ${y.length} values`);
  if (x.some((v) => !Number.isFinite(v)) || y.some((v) => !Number.isFinite(v))) throw new Error('spearman: values must be finite');
  return pearson(averageRanks(x), averageRanks(y));
}

/** MRR@k's per-query part: 1/rank of the first relevant id within the top k, else 0. */
export function reciprocalRankAtK(retrieved: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  const n = Math.min(k, retrieved.length);
  for (let i = 0; i < n; i++) if (relevant.has(retrieved[i]!)) return 1 / (i + 1);
  return 0;
}
