/**
 * The persistent lexical index, as every storage keeps it: the terms stored beside a memory
 * (distinct terms, their counts, the document length: BM25's inputs), and how candidates are
 * nominated from the postings for a corpus-wide BM25 recall. Storage adapters hold the postings
 * (an IndexedDB multi-entry index, a map in memory); what goes in them and how they are read
 * for a query is decided here, once.
 */
import { bm25Idf, termFrequencies } from './bm25.ts';
import { lexicalTerms } from './tokenize.ts';

/** The lexical fields stored beside a memory. */
export interface LexicalFields {
  /** Distinct terms of the text (the postings' keys). */
  terms: string[];
  /** Occurrences of each term in `terms`, aligned. */
  termCounts: number[];
  /** Total number of terms (the BM25 document length). */
  termLength: number;
}

export function lexicalFields(text: string): LexicalFields {
  const all = lexicalTerms(text);
  const tf = termFrequencies(all);
  return { terms: [...tf.keys()], termCounts: [...tf.values()], termLength: all.length };
}

/** A term this rare nominates candidates even in a small store. */
export const NOMINATE_ALWAYS = 50;
/** Postings (keys) read per candidate row the lexical candidate search may return. */
export const POSTINGS_PER_CANDIDATE = 8;

/**
 * The memories most likely to score highest under BM25 for these terms, best first, at most
 * `limit`: candidates come from the postings (rarest terms first, at most
 * POSTINGS_PER_CANDIDATE·limit keys in all), each scored by the summed IDF of the query terms it
 * contains. Terms in more than a quarter of the memories nominate nobody (their IDF is a fraction
 * of a rare term's) but still count in the BM25 of whoever is nominated.
 *
 * MaxScore (Turtle & Flood, 1995) on that proxy: once `limit` memories are held, a memory not yet
 * seen can at best hold every term still unread, so when the summed IDF of those terms is below
 * the `limit`-th best proxy, the rest of the postings — the commonest terms, the longest lists —
 * cannot change the top `limit` and are not read. The held candidates are then scored exactly
 * from their stored terms, so nothing but reading is saved.
 *
 * @param documentFrequencies how many memories contain each query term
 * @param postings up to `max` keys (ids or labels) of memories containing `term`
 */
export async function nominateCandidates<K extends string | number>(
  documentFrequencies: ReadonlyMap<string, number>,
  documents: number,
  limit: number,
  postings: (term: string, max: number) => Promise<readonly K[]>,
): Promise<K[]> {
  const nominating = [...documentFrequencies]
    .filter(([, n]) => n > 0 && n <= Math.max(NOMINATE_ALWAYS, documents / 4))
    .sort((a, b) => a[1] - b[1])
    .map(([term, n]) => ({ term, idf: bm25Idf(Math.max(documents, n), n) }));
  const proxy = new Map<K, number>();
  let budget = POSTINGS_PER_CANDIDATE * limit;
  let unread = nominating.reduce((sum, t) => sum + t.idf, 0);
  for (const { term, idf } of nominating) {
    if (budget <= 0) break;
    if (proxy.size >= limit && unread < kthLargest(proxy, limit)) break;
    const ids = await postings(term, budget);
    budget -= ids.length;
    unread -= idf;
    for (const id of ids) proxy.set(id, (proxy.get(id) ?? 0) + idf);
  }
  return [...proxy]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, limit)
    .map(([id]) => id);
}

/** The k-th largest value of the map (k ≤ size). */
function kthLargest(values: ReadonlyMap<unknown, number>, k: number): number {
  return [...values.values()].sort((a, b) => b - a)[k - 1]!;
}
