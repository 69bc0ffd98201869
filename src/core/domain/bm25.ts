/**
 * BM25 (Okapi) scoring.
 *
 * Two flavours share one per-term formula:
 *
 * - `bm25Pool` is AI-Houkai's `_bm25_score_pool`: statistics come from the candidate pool only
 *   (the cosine over-fetch), no second index. With n pool documents, df(t) the number of pool
 *   documents containing t, dl a document's term count and avgdl the pool mean:
 *
 *       idf(t)   = ln((n − df(t) + 0.5) / (df(t) + 0.5) + 1)
 *       s(t, d)  = idf(t) · tf(t,d)·(k1 + 1) / (tf(t,d) + k1·(1 − b + b·dl / max(avgdl, 1)))
 *       raw(d)   = Σ s(t, d) over the *set* of query terms that occur somewhere in the pool
 *       score(d) = raw(d) / max raw over the pool   (0 for every document when that max is 0)
 *   and, for the `weighted` fusion, bounded(d) = min(1, raw(d) / Σ_t idf(t)), the query's
 *   theoretical best (see normaliseBm25).
 *
 *   with k1 = 1.5 and b = 0.75. The `max(avgdl, 1)` guard is the reference's.
 *
 * - `Bm25Corpus` is the same formula with n, df and avgdl taken from a whole corpus instead of the
 *   pool, for a persistent inverted index to implement later. `InMemoryBm25Corpus` is the plain
 *   in-memory implementation (tests, small stores). Corpus scores are raw (not normalised).
 */

export const BM25_K1 = 1.5;
export const BM25_B = 0.75;

export interface Bm25Params {
  k1?: number;
  b?: number;
}

/** Lucene-style BM25 idf with the +1 that keeps it positive: ln((n − df + 0.5)/(df + 0.5) + 1). */
export function bm25Idf(documentCount: number, documentFrequency: number): number {
  return Math.log((documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5) + 1);
}

/** One term's contribution: idf · tf·(k1+1) / (tf + k1·(1 − b + b·dl/max(avgdl, 1))). */
export function bm25TermScore(
  idf: number,
  termFrequency: number,
  docLength: number,
  averageLength: number,
  k1 = BM25_K1,
  b = BM25_B,
): number {
  if (termFrequency === 0) return 0;
  return (idf * (termFrequency * (k1 + 1))) / (termFrequency + k1 * (1 - b + (b * docLength) / Math.max(averageLength, 1)));
}

/** Term → count. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/** The query terms as a set, in first-seen order (the order only affects float summation). */
export function uniqueTerms(terms: readonly string[]): string[] {
  return [...new Set(terms)];
}

export interface PoolBm25Result {
  /** Per document, `raw / max(raw)` in [0, 1] (the reference's normalisation, which the `linear` and `rrf` rules keep); all 0 when nothing matched. */
  scores: number[];
  /** Per document, `raw` over the query's theoretical best, capped at 1 (see {@link normaliseBm25}): what the `weighted` rule reads. */
  bounded: number[];
  /** Per document, the unnormalised BM25 sum. */
  raw: number[];
  /** The pool maximum of `raw` (0 when nothing matched). */
  max: number;
  /** Per document, the query terms it contains, in query order. Always a subset of the query terms. */
  matched: string[][];
}

/**
 * Pool BM25 with local IDF (see the module comment). `queryTerms` may repeat; it is used as a set.
 * `docs[i]` are the terms of pool document i.
 */
export function bm25Pool(queryTerms: readonly string[], docs: readonly (readonly string[])[], params: Bm25Params = {}): PoolBm25Result {
  const k1 = params.k1 ?? BM25_K1;
  const b = params.b ?? BM25_B;
  const n = docs.length;
  if (n === 0) return { scores: [], bounded: [], raw: [], max: 0, matched: [] };
  const query = uniqueTerms(queryTerms);
  let totalLength = 0;
  for (const d of docs) totalLength += d.length;
  const avgdl = totalLength / n;

  const querySet = new Set(query);
  const df = new Map<string, number>();
  const tfs: Map<string, number>[] = [];
  for (const d of docs) {
    const tf = termFrequencies(d);
    tfs.push(tf);
    for (const t of tf.keys()) if (querySet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const idf = new Map<string, number>();
  for (const [t, f] of df) idf.set(t, bm25Idf(n, f));

  const raw: number[] = [];
  const matched: string[][] = [];
  for (let i = 0; i < n; i++) {
    const tf = tfs[i]!;
    const dl = docs[i]!.length;
    let score = 0;
    const hits: string[] = [];
    for (const t of query) {
      const termIdf = idf.get(t);
      if (termIdf === undefined) continue;
      const freq = tf.get(t) ?? 0;
      if (freq > 0) hits.push(t);
      score += bm25TermScore(termIdf, freq, dl, avgdl, k1, b);
    }
    raw.push(score);
    matched.push(hits);
  }
  return normaliseBm25(raw, matched, query.map((t) => idf.get(t) ?? bm25Idf(n, 0)));
}

/**
 * The scores of a BM25 result in [0, 1]: `scores` over the pool's best (the reference's), and
 * `bounded` over the query's **theoretical** best, which the weighted fusion reads. The best is the score of a document of average length that holds every query term
 * once — Σ idf(t) (tf = 1, dl = avgdl; a term no document holds at its highest idf, since the
 * query still asks for it) — and a document above it counts 1.
 * Normalising by the pool maximum instead gave a memory sharing one common word with the query
 * full lexical credit whenever nothing matched better (worth 0.36 of cosine under the default
 * weights), which pulled wrong memories above the right one for questions asked in other words.
 * The theoretical bound is the "TM2C2" normalisation of Bruch et al. (2023), "An Analysis of
 * Fusion Functions for Hybrid Retrieval".
 */
export function normaliseBm25(raw: number[], matched: string[][], queryIdfs: readonly number[]): PoolBm25Result {
  let max = 0;
  for (const s of raw) if (s > max) max = s;
  let ideal = 0;
  for (const w of queryIdfs) ideal += w;
  const scores = raw.map((s) => (max > 0 ? s / max : 0));
  const bounded = raw.map((s) => (ideal > 0 ? Math.min(1, s / ideal) : 0));
  return { scores, bounded, raw, max, matched };
}

// ---------------------------------------------------------------------------------------------
// Corpus-level scoring
// ---------------------------------------------------------------------------------------------

export interface Bm25DocScore {
  /** Raw BM25 sum (not normalised). */
  score: number;
  /** Query terms present in the document, in query order. */
  matched: string[];
}

/**
 * Corpus statistics for BM25 with global IDF. A persistent inverted index (terms → postings,
 * plus a document-length table) implements this; `score` then works without reading the whole
 * corpus.
 */
export interface Bm25Corpus {
  /** Number of indexed documents (n). */
  readonly documentCount: number;
  /** Mean document length in terms (avgdl); 0 for an empty corpus. */
  readonly averageLength: number;
  /** Number of documents containing `term` (df). */
  documentFrequency(term: string): number;
  /** BM25 of a document's terms against the query terms (used as a set), with corpus n/df/avgdl. */
  score(queryTerms: readonly string[], docTerms: readonly string[]): Bm25DocScore;
}

/** Scores with the corpus statistics of `corpus`; shared by every `Bm25Corpus` implementation. */
export function scoreWithCorpus(
  corpus: Pick<Bm25Corpus, 'documentCount' | 'averageLength' | 'documentFrequency'>,
  queryTerms: readonly string[],
  docTerms: readonly string[],
  params: Bm25Params = {},
): Bm25DocScore {
  const k1 = params.k1 ?? BM25_K1;
  const b = params.b ?? BM25_B;
  const tf = termFrequencies(docTerms);
  const dl = docTerms.length;
  let score = 0;
  const matched: string[] = [];
  for (const t of uniqueTerms(queryTerms)) {
    const df = corpus.documentFrequency(t);
    if (df === 0) continue;
    const freq = tf.get(t) ?? 0;
    if (freq === 0) continue;
    matched.push(t);
    score += bm25TermScore(bm25Idf(corpus.documentCount, df), freq, dl, corpus.averageLength, k1, b);
  }
  return { score, matched };
}

/** A plain in-memory `Bm25Corpus`: document id → term counts, with df and total length kept incrementally. */
export class InMemoryBm25Corpus implements Bm25Corpus {
  private readonly docs = new Map<string, { length: number; terms: Set<string> }>();
  private readonly df = new Map<string, number>();
  private totalLength = 0;
  private readonly params: Bm25Params;

  constructor(params: Bm25Params = {}) {
    this.params = params;
  }

  get documentCount(): number {
    return this.docs.size;
  }

  get averageLength(): number {
    return this.docs.size === 0 ? 0 : this.totalLength / this.docs.size;
  }

  documentFrequency(term: string): number {
    return this.df.get(term) ?? 0;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** Adds or replaces document `id`. */
  add(id: string, terms: readonly string[]): void {
    this.remove(id);
    const set = new Set(terms);
    this.docs.set(id, { length: terms.length, terms: set });
    this.totalLength += terms.length;
    for (const t of set) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** Removes document `id`; returns whether it was present. */
  remove(id: string): boolean {
    const doc = this.docs.get(id);
    if (!doc) return false;
    this.docs.delete(id);
    this.totalLength -= doc.length;
    for (const t of doc.terms) {
      const f = (this.df.get(t) ?? 0) - 1;
      if (f > 0) this.df.set(t, f);
      else this.df.delete(t);
    }
    return true;
  }

  clear(): void {
    this.docs.clear();
    this.df.clear();
    this.totalLength = 0;
  }

  score(queryTerms: readonly string[], docTerms: readonly string[]): Bm25DocScore {
    return scoreWithCorpus(this, queryTerms, docTerms, this.params);
  }
}
