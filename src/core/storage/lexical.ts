/**
 * The lexical postings role: BM25 statistics and candidates. Candidates come from the lexical
 * index held in memory (read-cache.ts: an exact BM25 top-k over every memory) once it is read;
 * until then, and when it cannot be, from the multi-entry `terms` index in storage.
 */
import { nominateCandidates } from '../domain/lexical-index.ts';
import type { LexicalCandidate, LexicalPostings, StoreMeta } from '../ports.ts';
import type { StorageEngine, StorageTx } from './port.ts';
import { lexicalKey, memoryOf, type ReadCache } from './read-cache.ts';
import { MEMORIES } from './memory-table.ts';
import type { MemoryRow } from './rows.ts';
import { rowsByLabels } from './memory-rows.ts';
import { readMeta, ONE_CALL, type Run } from './tx.ts';

/** Terms whose document frequency the candidate search in storage keeps between calls. */
const DF_CACHE_TERMS = 50_000;
/**
 * Candidates the postings in storage nominate per memory asked for: the nomination ranks by
 * summed IDF, an approximation of BM25, so a margin is read and scored exactly by the caller.
 */
export const CORPUS_CANDIDATES_PER_SLOT = 4;

/** Up to this many memories, the first recall waits for the lexical index to be read (about a second at most). */
export const AWAIT_LEXICAL_INDEX_UP_TO = 20_000;

const candidateOf = (row: MemoryRow): LexicalCandidate => ({ memory: memoryOf(row), label: row.label, terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });

export function lexicalPostings(engine: StorageEngine, run: Run, cache: ReadCache, waitUpTo = AWAIT_LEXICAL_INDEX_UP_TO): Omit<LexicalPostings, 'rederiveLexicalTerms'> {
  /** Document frequencies by term, valid for one state of the lexical statistics. */
  let dfCache: { key: string; df: Map<string, number> } = { key: '', df: new Map() };

  /**
   * The metadata row: the cache's when nothing can have changed it unseen, else read and compared
   * with what the cache mirrors. Calls while a read is under way share it (recall asks for the
   * statistics and the candidates side by side).
   */
  let reading: Promise<StoreMeta | undefined> | null = null;
  const checkedMeta = async (operation: string): Promise<StoreMeta | undefined> => {
    const known = cache.currentMeta();
    if (known) return known.row;
    reading ??= (async () => {
      const read = cache.beginMetaRead();
      try {
        const meta = await run(operation, 'r', ['meta'], readMeta, ONE_CALL);
        cache.check(meta, read);
        return meta;
      } finally {
        reading = null;
      }
    })();
    return reading;
  };

  /** Candidates from the postings in storage: keys only (core/domain/lexical-index.ts); only the best rows are read. */
  const fromStorage = (terms: string[], limit: number) =>
    run('lexicalCandidates', 'r', ['meta', MEMORIES], async (tx: StorageTx) => {
      // Document frequencies: counting an index range is linear in the term's postings in
      // IndexedDB, so the counts are kept until the lexical statistics change (any text change
      // bumps the generation and the document/length totals in the same transaction).
      const meta = await readMeta(tx);
      const documents = meta?.lexicalDocs ?? 0;
      const key = lexicalKey(meta);
      if (dfCache.key !== key || dfCache.df.size > DF_CACHE_TERMS) dfCache = { key, df: new Map() };
      const counts = dfCache.df;
      await Promise.all(terms.filter((t) => !counts.has(t)).map(async (t) => counts.set(t, await tx.count(MEMORIES, { index: 'terms', equals: t }))));
      const df = new Map(terms.map((t) => [t, counts.get(t) ?? 0] as const));
      const best = await nominateCandidates(df, documents, limit, async (term, max) =>
        (await tx.keys(MEMORIES, { index: 'terms', equals: term, limit: max })).map((k) => k.primaryKey as number),
      );
      const candidates = (await tx.getMany<MemoryRow>(MEMORIES, best)).flatMap((row) => (row ? [candidateOf(row)] : []));
      return { candidates, documentFrequencies: df };
    });

  return {
    lexicalStats: async () => {
      const meta = await checkedMeta('lexicalStats');
      const documents = meta?.lexicalDocs ?? 0;
      return { documents, averageLength: documents > 0 ? (meta?.lexicalLength ?? 0) / documents : 0 };
    },

    lexicalCandidates: async (terms, limit, options = {}) => {
      const unique = [...new Set(terms)];
      const meta = await checkedMeta('lexicalCandidates');
      const index = await cache.termIndex(meta?.lexicalDocs ?? 0, waitUpTo);
      if (!index) return fromStorage(unique, CORPUS_CANDIDATES_PER_SLOT * limit);
      const df = new Map(unique.map((t) => [t, index.documentFrequency(t)] as const));
      const { exclude, accept } = options;
      // The exact top; when the caller's filter refuses some, a wider top fills their places.
      for (let wanted = limit; ; wanted *= 2) {
        const hits = index.top(unique, wanted, exclude);
        const rows = await rowsByLabels(engine, run, cache, hits.map((h) => h.label), 'lexicalCandidates');
        const candidates = rows.flatMap((row) => (row ? [candidateOf(row)] : [])).filter((c) => !accept || accept(c.memory));
        if (candidates.length >= limit || hits.length < wanted) return { candidates: candidates.slice(0, limit), documentFrequencies: df };
      }
    },

    lexicalTermsOf: async (labels) => {
      const out = new Map<number, { terms: string[]; termCounts: number[]; termLength: number }>();
      for (const row of await rowsByLabels(engine, run, cache, labels, 'lexicalTermsOf')) if (row) out.set(row.label, { terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });
      return out;
    },
  };
}
