/**
 * The stored lexical terms brought up to today's definition (domain/tokenize.ts,
 * `LEXICAL_TERMS_VERSION`) in a store written under an earlier one, on any engine: the memory rows
 * are read in label order a page at a time, the rows whose terms the change touches
 * (`lexicalTermsChanged`) are written again with their terms derived anew, and the corpus length
 * moves by the difference, in the same transaction as the page. The last page records the
 * version. Each page stands alone: stopped halfway (a closed tab, a killed process), the next
 * open reads the store again from the start, and a row already rewritten derives the same terms
 * and is left alone.
 */
import { lexicalFields } from '../domain/lexical-index.ts';
import { LEXICAL_TERMS_VERSION, lexicalTermsChanged } from '../domain/tokenize.ts';
import type { LexicalPostings } from '../ports.ts';
import { MEMORIES } from './memory-table.ts';
import type { MemoryRow } from './rows.ts';
import { readMeta, type Run } from './tx.ts';

/** Memory rows read a transaction. */
export const REDERIVE_PAGE = 2_000;

const sameTerms = (row: MemoryRow, next: Pick<MemoryRow, 'terms' | 'termCounts' | 'termLength'>): boolean =>
  row.termLength === next.termLength && row.terms.length === next.terms.length && row.terms.every((t, i) => t === next.terms[i] && row.termCounts[i] === next.termCounts[i]);

export function lexicalRederivation(run: Run): Pick<LexicalPostings, 'rederiveLexicalTerms'> {
  return {
    async rederiveLexicalTerms({ pageSize = REDERIVE_PAGE, onProgress } = {}) {
      const meta = await run('rederiveLexicalTerms', 'r', ['meta'], readMeta);
      const from = meta?.lexicalVersion ?? 1;
      if (!meta || from >= LEXICAL_TERMS_VERSION) return { scanned: 0, rewritten: 0 };
      const total = meta.lexicalDocs ?? 0;
      let after: number | null = null;
      let scanned = 0;
      let rewritten = 0;
      for (let last = false; !last; ) {
        const start: number | null = after;
        ({ last, after } = await run('rederiveLexicalTerms', 'rw', ['meta', MEMORIES], async (tx): Promise<{ last: boolean; after: number | null }> => {
          const rows: MemoryRow[] = await tx.query<MemoryRow>(MEMORIES, { ...(start === null ? {} : { range: { lower: start, lowerOpen: true } }), limit: pageSize });
          const changed: MemoryRow[] = [];
          let length = 0;
          for (const row of rows) {
            if (!lexicalTermsChanged(row.text, from)) continue;
            const next = lexicalFields(row.text);
            if (sameTerms(row, next)) continue;
            length += next.termLength - row.termLength;
            changed.push({ ...row, ...next });
          }
          if (changed.length > 0) await tx.put(MEMORIES, changed);
          const end = rows.length < pageSize;
          if (changed.length > 0 || end) {
            const current = await readMeta(tx);
            if (current) {
              const value = { ...current, lexicalLength: (current.lexicalLength ?? 0) + length, ...(end ? { lexicalVersion: LEXICAL_TERMS_VERSION } : {}) };
              await tx.put('meta', [{ key: 'store', value }]);
            }
          }
          scanned += rows.length;
          rewritten += changed.length;
          return { last: end, after: rows.length > 0 ? rows[rows.length - 1]!.label : start };
        }));
        onProgress?.(scanned, Math.max(total, scanned));
      }
      return { scanned, rewritten };
    },
  };
}
