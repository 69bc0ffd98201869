/** The lexical postings role: BM25 statistics and candidates from the multi-entry `terms` index. */
import { nominateCandidates } from '../domain/lexical-index.ts';
import type { LexicalCandidate, LexicalPostings } from '../ports.ts';
import type { StorageEngine } from './port.ts';
import { strip, type MemoryRow } from './rows.ts';
import { rowsByLabels } from './memory-rows.ts';
import { readMeta, ONE_CALL, type Run } from './tx.ts';

/** Terms whose document frequency the candidate search keeps between calls. */
const DF_CACHE_TERMS = 50_000;

export function lexicalPostings(engine: StorageEngine, run: Run): LexicalPostings {
  /** Document frequencies by term, valid for one state of the lexical statistics. */
  let dfCache: { key: string; df: Map<string, number> } = { key: '', df: new Map() };
  return {
    lexicalStats: () =>
      run('lexicalStats', 'r', ['meta'], async (tx) => {
        const meta = await readMeta(tx);
        const documents = meta?.lexicalDocs ?? 0;
        return { documents, averageLength: documents > 0 ? (meta?.lexicalLength ?? 0) / documents : 0 };
      }, ONE_CALL),

    lexicalCandidates: (terms, limit) =>
      run('lexicalCandidates', 'r', ['meta', 'memories'], async (tx) => {
        const unique = [...new Set(terms)];
        // Document frequencies: counting an index range is linear in the term's postings in
        // IndexedDB, so the counts are kept until the lexical statistics change (any text change
        // bumps the generation and the document/length totals in the same transaction).
        const meta = await readMeta(tx);
        const documents = meta?.lexicalDocs ?? 0;
        const key = `${meta?.generation ?? 0}:${documents}:${meta?.lexicalLength ?? 0}`;
        if (dfCache.key !== key || dfCache.df.size > DF_CACHE_TERMS) dfCache = { key, df: new Map() };
        const cache = dfCache.df;
        await Promise.all(unique.filter((t) => !cache.has(t)).map(async (t) => cache.set(t, await tx.count('memories', { index: 'terms', equals: t }))));
        const df = new Map(unique.map((t) => [t, cache.get(t) ?? 0] as const));
        // Candidates from the postings, keys only (core/domain/lexical-index.ts); only the best rows are read.
        const best = await nominateCandidates(df, documents, limit, async (term, max) =>
          (await tx.keys('memories', { index: 'terms', equals: term, limit: max })).map((k) => k.primaryKey as string),
        );
        const candidates: LexicalCandidate[] = [];
        for (const row of await tx.getMany<MemoryRow>('memories', best)) {
          if (row) candidates.push({ memory: strip(row), label: row.label, terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });
        }
        return { candidates, documentFrequencies: df };
      }),

    lexicalTermsOf: async (labels) => {
      const out = new Map<number, { terms: string[]; termCounts: number[]; termLength: number }>();
      for (const row of await rowsByLabels(engine, run, labels, 'lexicalTermsOf')) if (row) out.set(row.label, { terms: row.terms, termCounts: row.termCounts, termLength: row.termLength });
      return out;
    },
  };
}
