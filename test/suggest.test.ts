import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryError } from '../src/core/errors.ts';
import {
  conceptTerms,
  globMatches,
  matchPatterns,
  overlapCoefficient,
  suggestMemories,
  type SuggestCandidate,
  type SuggestContext,
} from '../src/core/domain/suggest.ts';
import type { Memory } from '../src/core/types.ts';
import { makeMemory, NOW } from './helpers/memory.ts';
import { expectInvalid } from './helpers/expect.ts';




const candidates: SuggestCandidate[] = [
  { memory: makeMemory('ts-style', 'Use strict TypeScript with named exports only'), surfacesWhen: ['*.ts', 'tsconfig'] },
  { memory: makeMemory('econn', 'The dev database must be started with docker compose up db'), surfacesWhen: ['ECONNREFUSED', 'keyword:connection refused'] },
  { memory: makeMemory('deploy', 'Deploys go through the release pipeline, never by hand'), surfacesWhen: ['deploy'] },
  { memory: makeMemory('hnsw', 'The HNSW index snapshot is rebuilt when the generation counter mismatches', { importance: 0.9 }) },
  { memory: makeMemory('store', 'Store tests live in test/store.test.ts'), surfacesWhen: ['src/core/**'] },
];

describe('pattern matching', () => {
  it('globs: base-name globs, directory globs, anchors, classes and braces', () => {
    expect(globMatches('*.ts', 'src/core/store.ts')).toBe(true);
    expect(globMatches('*.ts', 'src/core/store.tsx')).toBe(false);
    expect(globMatches('*.{ts,tsx}', 'C:\\repo\\src\\App.tsx')).toBe(true);
    expect(globMatches('src/core/**', '/home/u/proj/src/core/store.ts')).toBe(true);
    expect(globMatches('src/core/*.ts', '/home/u/proj/src/core/deep/store.ts')).toBe(false);
    expect(globMatches('src/**/*.ts', 'src/a/b/c.ts')).toBe(true);
    expect(globMatches('**/test/*.test.ts', 'test/store.test.ts')).toBe(true);
    expect(globMatches('/src/*.ts', 'src/a.ts')).toBe(true);
    expect(globMatches('/src/*.ts', 'lib/src/a.ts')).toBe(false);
    expect(globMatches('store.[jt]s', 'x/store.ts')).toBe(true);
    expect(globMatches('store.[!jt]s', 'x/store.ts')).toBe(false);
    expect(globMatches('STORE.TS', 'src/store.ts')).toBe(true);
    expect(globMatches('[z-a].ts', 'a.ts')).toBe(false);
  });

  it('keywords match whole words in any context field, case- and space-insensitively', () => {
    const ctx: SuggestContext = { errorMessage: 'Error: connect  ECONNREFUSED 127.0.0.1:5432', conversationSnippet: 'the deployment failed' };
    expect(matchPatterns(['econnrefused'], ctx)).toEqual([{ pattern: 'econnrefused', kind: 'keyword', field: 'errorMessage' }]);
    expect(matchPatterns(['Connect ECONNREFUSED'], ctx)).toHaveLength(1);
    expect(matchPatterns(['deploy'], ctx)).toEqual([]); // "deployment" is another word
    expect(matchPatterns(['deployment failed'], ctx)).toHaveLength(1);
    expect(matchPatterns(['store'], { filePath: 'src/core/store.ts' })).toEqual([{ pattern: 'store', kind: 'keyword', field: 'filePath' }]);
    expect(matchPatterns(['東京'], { conversationSnippet: '明日東京に行く' })).toHaveLength(1);
    expect(matchPatterns(['glob:*.md', 'keyword:*.md'], { filePath: 'README.md', conversationSnippet: 'edit *.md files' })).toEqual([
      { pattern: 'glob:*.md', kind: 'glob', field: 'filePath' },
      { pattern: 'keyword:*.md', kind: 'keyword', field: 'conversationSnippet' },
    ]);
    expect(matchPatterns(['*.ts', '  ', ''], { errorMessage: 'x.ts failed' })).toEqual([]); // globs only test filePath
  });

  it('concepts drop stop words and short tokens but keep identifiers and CJK bigrams', () => {
    expect([...conceptTerms('Fix the PR #441 in src/core/store.ts')]).toEqual(
      expect.arrayContaining(['fix', 'src', 'core', 'store', '441', '#441', 'pr#441', 'src/core/store.ts', 'store.ts']),
    );
    expect(conceptTerms('the of to an')).toEqual(new Set());
    expect(conceptTerms('東京タワー').has('東京')).toBe(true);
    expect(overlapCoefficient(new Set(['a', 'b']), new Set(['b', 'c', 'd', 'e']))).toEqual({ overlap: 0.5, shared: ['b'] });
  });
});

describe('suggestMemories', () => {
  it('surfaces by file glob, error keyword and concept overlap, with reasons', () => {
    const byFile = suggestMemories(candidates, { filePath: 'src/core/store.ts' });
    expect(byFile.map((s) => s.memory.id)).toEqual(['store', 'ts-style']);
    expect(byFile[0]!.matchedPatterns[0]).toMatchObject({ kind: 'glob', field: 'filePath' });
    expect(byFile[0]!.reason).toContain('src/core/**');

    const byError = suggestMemories(candidates, { errorMessage: 'Error: connect ECONNREFUSED 127.0.0.1:5432' });
    expect(byError.map((s) => s.memory.id)).toEqual(['econn']);

    const byConcept = suggestMemories(candidates, { conversationSnippet: 'why is the hnsw snapshot rebuilt every time?' });
    expect(byConcept.map((s) => s.memory.id)).toEqual(['hnsw']);
    expect(byConcept[0]!.matchedPatterns).toEqual([]);
    expect(byConcept[0]!.sharedConcepts).toEqual(expect.arrayContaining(['hnsw', 'snapshot', 'rebuilt']));
    expect(byConcept[0]!.overlap).toBeGreaterThan(0.3);
    expect(byConcept[0]!.reason).toContain('shares concepts');
  });

  it('a pattern match outranks a concept-only match; ties go to importance', () => {
    const pool: SuggestCandidate[] = [
      { memory: makeMemory('concept', 'release pipeline deploys staging production', { importance: 1 }) },
      { memory: makeMemory('pattern', 'unrelated words entirely', { importance: 0 }), surfacesWhen: ['release'] },
    ];
    const out = suggestMemories(pool, { conversationSnippet: 'the release pipeline deploys to staging' });
    expect(out.map((s) => s.memory.id)).toEqual(['pattern', 'concept']);
    expect(out[0]!.score).toBeGreaterThanOrEqual(1);
    expect(out[1]!.score).toBeLessThanOrEqual(1);
  });

  it('a single shared concept is not enough by default', () => {
    const pool: SuggestCandidate[] = [{ memory: makeMemory('one', 'snapshot') }];
    expect(suggestMemories(pool, { conversationSnippet: 'snapshot' })).toEqual([]);
    expect(suggestMemories(pool, { conversationSnippet: 'snapshot', minSharedConcepts: 1 }).map((s) => s.memory.id)).toEqual(['one']);
  });

  it('an empty context yields no suggestions', () => {
    for (const ctx of [{}, { filePath: '' }, { filePath: null, errorMessage: '   ', conversationSnippet: '\n' }]) {
      expect(suggestMemories(candidates, ctx)).toEqual([]);
    }
  });

  it('respects limit (default 3)', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ memory: makeMemory(`m${i}`, 'x'), surfacesWhen: ['*.ts'] }));
    expect(suggestMemories(many, { filePath: 'a.ts' })).toHaveLength(3);
    expect(suggestMemories(many, { filePath: 'a.ts', limit: 5 })).toHaveLength(5);
    expect(suggestMemories(many, { filePath: 'a.ts', limit: 0 })).toEqual([]);
  });

  const bad: [string, unknown, string][] = [
    ['negative limit', { filePath: 'a.ts', limit: -1 }, 'limit'],
    ['fractional limit', { filePath: 'a.ts', limit: 1.5 }, 'limit'],
    ['filePath not a string', { filePath: 5 }, 'filePath'],
    ['errorMessage not a string', { errorMessage: {} }, 'errorMessage'],
    ['minOverlap > 1', { filePath: 'a.ts', minOverlap: 2 }, 'minOverlap'],
    ['minSharedConcepts 0', { filePath: 'a.ts', minSharedConcepts: 0 }, 'minSharedConcepts'],
    ['unknown option', { file: 'a.ts' }, 'options'],
    ['options not an object', 'a.ts', 'options'],
  ];
  it.each(bad)('rejects %s', (_label, options, field) => {
    expectInvalid(() => suggestMemories(candidates, options as never), field);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties 7 and 8 (Elefante V5)
// ---------------------------------------------------------------------------------------------

const WORDS = ['deploy', 'release', 'pipeline', 'snapshot', 'index', 'hnsw', 'docker', 'database', 'lint', 'ruff', 'typescript', 'store', 'the', 'of', 'ECONNREFUSED', 'timeout', '東京タワー'];
const PATTERNS = ['*.ts', '*.py', 'src/**', 'test/*.test.ts', 'deploy', 'ECONNREFUSED', 'timeout', 'keyword:release pipeline', 'glob:docs/*', '{a,b}.md'];
const PATHS = ['src/core/store.ts', 'test/store.test.ts', 'docs/readme.md', 'a.md', 'main.py', 'lib/x.js'];

const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 10 }).map((w) => w.join(' '));
const candidateArb = fc.record({
  text: sentence.filter((s) => s.trim().length > 0),
  tags: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
  surfacesWhen: fc.option(fc.array(fc.constantFrom(...PATTERNS), { maxLength: 3 }), { nil: undefined }),
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
});
const contextArb = fc.record({
  filePath: fc.option(fc.constantFrom(...PATHS), { nil: undefined }),
  errorMessage: fc.option(sentence, { nil: undefined }),
  conversationSnippet: fc.option(sentence, { nil: undefined }),
});

function toCandidates(rows: { text: string; tags: string[]; surfacesWhen?: string[]; importance: number }[]): SuggestCandidate[] {
  return rows.map((r, i) => ({
    memory: makeMemory(`m${i}`, r.text, { tags: [...new Set(r.tags)], importance: r.importance }),
    ...(r.surfacesWhen ? { surfacesWhen: r.surfacesWhen } : {}),
  }));
}

describe('suggestion properties', () => {
  it('property 7: every suggestion has a matching pattern or concept overlap > 0.3', () => {
    fc.assert(
      fc.property(fc.array(candidateArb, { maxLength: 15 }), contextArb, (rows, context) => {
        const pool = toCandidates(rows);
        const contextText = [context.filePath, context.errorMessage, context.conversationSnippet].filter((v) => v && v.trim()).join('\n');
        const contextConcepts = conceptTerms(contextText);
        for (const s of suggestMemories(pool, { ...context, limit: 20 })) {
          const candidate = pool.find((c) => c.memory === s.memory)!;
          const patternHit = matchPatterns(candidate.surfacesWhen ?? [], context).length > 0;
          const memoryConcepts = conceptTerms(s.memory.text);
          for (const tag of s.memory.tags) for (const t of conceptTerms(tag)) memoryConcepts.add(t);
          const { overlap } = overlapCoefficient(contextConcepts, memoryConcepts);
          expect(patternHit || overlap > 0.3).toBe(true);
          expect(s.matchedPatterns.length > 0 || s.overlap > 0.3).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('property 8: never more suggestions than the limit (default 3)', () => {
    fc.assert(
      fc.property(fc.array(candidateArb, { maxLength: 20 }), contextArb, fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }), (rows, context, limit) => {
        const out = suggestMemories(toCandidates(rows), limit === undefined ? context : { ...context, limit });
        expect(out.length).toBeLessThanOrEqual(limit ?? 3);
        for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
      }),
      { numRuns: 200 },
    );
  });

  it('an empty context never suggests anything', () => {
    fc.assert(
      fc.property(fc.array(candidateArb, { maxLength: 10 }), fc.constantFrom(undefined, null, '', '  ', '\t\n'), (rows, blank) => {
        expect(suggestMemories(toCandidates(rows), { filePath: blank, errorMessage: blank, conversationSnippet: blank })).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('suggest() through a store', () => {
  it('refuses a context field over 1 MiB, as recall and remember do, before any work (repro-suggest-size)', async () => {
    const { openTestStore } = await import('./helpers/store.ts');
    const store = await openTestStore();
    try {
      await store.remember('deploys go out on Fridays', { surfacesWhen: ['deploy'] });
      const big = 'alpha beta deploy '.repeat(70_000);
      for (const field of ['conversationSnippet', 'errorMessage', 'filePath'] as const) {
        await expect(store.suggest({ [field]: big })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: `context.${field}`, limit: 1_048_576 } });
      }
      expect((await store.suggest({ conversationSnippet: 'about the deploy' })).length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
