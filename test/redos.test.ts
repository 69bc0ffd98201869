/**
 * Issue #16 item 3: every place text enters runs in linear time on adversarial shapes up to
 * 1 MiB (the largest memory). Each case runs the shape at 16, 32, 64 … characters up to 1 MiB
 * and fails at the first size over a generous budget (`withinBudget`), so the quadratic
 * trailing-whitespace regex this replaced (380 ms at 20 KiB, ~30 min at 1 MiB) fails in seconds
 * instead of hanging the run.
 */
import { describe, expect, it } from 'vitest';
import { contentHash, foldWhitespaceLower, isBlank, pyStrip, utf8Length } from '../src/core/domain/text.ts';
import { lexicalTerms, tokenize } from '../src/core/domain/tokenize.ts';
import { MAX_TEXT_BYTES, checkTag, checkText } from '../src/core/domain/validate.ts';
import { parseHeader, rowFromLine } from '../src/core/archive/format.ts';
import { matchPatterns } from '../src/core/domain/suggest.ts';
import { parseTimeArgument } from '../src/agents/tools.ts';
import { memoryTools } from '../src/agents/index.ts';
import { MemoryError } from '../src/core/errors.ts';
import { openTestStore } from './helpers/store.ts';
import { MIB, withinBudget, withinBudgetAsync } from './helpers/linear.ts';
import { gzipSync } from 'fflate';
import fc from 'fast-check';
import { cleanPageText } from '../src/extension/page-text.ts';
import { fileSafe } from '../src/app/lib/format.ts';

/** Every character Python's `str.isspace()` accepts. */
const PY_SPACES = '\t\n\v\f\r \x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/**
 * Budgets (generous: linear code takes a small fraction; the quadratic normaliser crossed 5 s
 * at 80 KiB and 20 s at 160 KiB). The tokeniser builds a term per word and CJK bigram, 0.3–1 s
 * per MiB on a core shared by a dozen test runs; a store call adds embedding, hashing and
 * IndexedDB on top.
 */
const TOKEN_BUDGET_MS = 10_000;
const STORE_BUDGET_MS = 10_000;

const run = (ch: string, n: number): string => ch.repeat(Math.ceil(n / ch.length)).slice(0, n);

/** Whitespace shapes of about `n` characters that defeat an end-anchored or nested whitespace regex. */
const WHITESPACE_SHAPES: [string, (n: number) => string][] = [
  ["'a' + spaces + 'b ' (the report)", (n) => `a${' '.repeat(n)}b `],
  ['spaces, a letter, spaces', (n) => `${' '.repeat(n / 2)}a${' '.repeat(n / 2)}`],
  ['every Python space in turn, then a letter and a space', (n) => `x${run(PY_SPACES, n)}y\u3000`],
  ['alternating space and letter, space last', (n) => `${run(' a', n)} `],
  ['no-break spaces then ideographic space', (n) => `b${'\u00a0'.repeat(n)}c\u3000`],
  ['CR LF runs', (n) => `q${run('\r\n', n)}r\n`],
  ['tabs and vertical tabs', (n) => `${run('\t\v', n)}z${run('\v\t', n)}`],
  ['only spaces', (n) => ' '.repeat(n)],
];

/** Non-space shapes aimed at the tokeniser's identifier patterns. */
const TOKEN_SHAPES: [string, (n: number) => string][] = [
  ['a path with a long run of dots', (n) => run(`a/${'.'.repeat(509)}x `, n)],
  ['dashes', (n) => run(`${'a-'.repeat(255)} `, n)],
  ['dotted digits', (n) => run(`${'1.'.repeat(255)} `, n)],
  ['hash references', (n) => run('#1 ', n)],
  ['camel case without spaces', (n) => run('aB', n)],
  ['one identifier', (n) => 'a'.repeat(n)],
  ['slashes', (n) => '/'.repeat(n)],
  ['CJK without spaces', (n) => run('記憶の検索', n)],
  ['combining marks', (n) => run('e\u0301', n)],
];

describe('text normalisation is linear', () => {
  it.each(WHITESPACE_SHAPES)('pyStrip, isBlank, foldWhitespaceLower, checkText: %s', (_label, shape) => {
    withinBudget('normalise', MIB - 8, (n) => {
      const text = shape(n);
      const stripped = pyStrip(text);
      expect(isBlank(text)).toBe(stripped.length === 0);
      foldWhitespaceLower(text);
      if (stripped.length > 0 && utf8Length(stripped) <= MAX_TEXT_BYTES) expect(checkText(text)).toBe(stripped);
      else expect(() => checkText(text)).toThrow(MemoryError);
    });
  });

  it('pyStrip matches Python str.strip() on every space character', () => {
    for (const ch of PY_SPACES) expect(pyStrip(`${ch}${ch}a ${ch}b${ch}`)).toBe(`a ${ch}b`);
    expect(pyStrip('\ufeffa\ufeff')).toBe('\ufeffa\ufeff'); // U+FEFF is not a Python space
    expect(pyStrip('')).toBe('');
    expect(pyStrip(' \u2028 ')).toBe('');
  });

  it.each([...WHITESPACE_SHAPES, ...TOKEN_SHAPES])('tokenize and lexicalTerms: %s', (_label, shape) => {
    withinBudget('tokenise', MIB, (n) => {
      const text = shape(n);
      tokenize(text);
      lexicalTerms(text);
    }, TOKEN_BUDGET_MS);
  });

  it.each(WHITESPACE_SHAPES)('content hash: %s', async (_label, shape) => {
    await withinBudgetAsync('hash', MIB, async (n) => {
      await contentHash(shape(n));
    });
  });

  it('tags, archive lines and headers, tool time arguments and suggest patterns', () => {
    withinBudget('tag', MIB, (n) => {
      expect(() => checkTag(' '.repeat(n))).toThrow(MemoryError);
      checkTag(`a${' '.repeat(Math.min(n, 100))}b `);
    });
    withinBudget('archive row', MIB, (n) => {
      const line = `${' '.repeat(n)}{"id":"x","text":${JSON.stringify(`a${' '.repeat(n)}b `)}}${'\u3000'.repeat(n)}`;
      expect(rowFromLine(line, 2, { now: 0 })?.ok).toBe(true);
      expect(rowFromLine(' '.repeat(n), 3)).toBeNull();
    });
    withinBudget('archive header', MIB, (n) => {
      expect(parseHeader(`{"format":"ai-houkai/export","version":"${' '.repeat(n)}1${' '.repeat(n)}"}`).version).toBe(1);
    });
    withinBudget('time argument', MIB, (n) => {
      expect(() => parseTimeArgument(`${'1'.repeat(n)}x`, 'since', 0)).toThrow(MemoryError);
      expect(() => parseTimeArgument(`2024-01-01${'+'.repeat(n)}`, 'since', 0)).toThrow(MemoryError);
    });
    withinBudget('suggest keywords', MIB, (n) => {
      matchPatterns([`keyword:a${' '.repeat(400)}b`, 'deploy'], { conversationSnippet: `a${' '.repeat(n)}b `, errorMessage: run('deploy', n) });
    });
  });
});

describe('page text and file names (extension, app) are cleaned in linear time', () => {
  it.each(WHITESPACE_SHAPES)('the content script cleaning page text: %s', (_label, shape) => {
    withinBudget('page text', MIB, (n) => void cleanPageText(shape(n)), TOKEN_BUDGET_MS);
    withinBudget('page text, first 4,000 characters', MIB, (n) => expect(cleanPageText(shape(n), 4000).length).toBeLessThanOrEqual(4000));
  });

  it('page text agrees with the former regex on random short texts', () => {
    const former = (text: string): string => text.replace(/[ \t]+/g, ' ').replace(/\s*\n\s*/g, '\n').trim();
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '\u00a0', '\u2028', '\v', '\u3000'), { maxLength: 30 }), (chars) => {
        const text = chars.join('');
        expect(cleanPageText(text)).toBe(former(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('page text keeps the former rules: spaces folded, lines trimmed, blank lines dropped', () => {
    expect(cleanPageText('  a \t b  \n \n\u00a0\n  c\r\n d ')).toBe('a b\nc\nd');
    expect(cleanPageText('a\rb')).toBe('a\rb');
    expect(cleanPageText(' \n\t\n ')).toBe('');
    expect(cleanPageText('ab \n cd\nef', 5)).toBe('ab\ncd');
  });

  it('a store name made file-safe, with long runs of dashes', () => {
    withinBudget('file name', MIB, (n) => expect(fileSafe(`a${'-'.repeat(n)}b${'-'.repeat(n)}`)).toBe(`a${'-'.repeat(n)}b`));
    expect(fileSafe('--my store!--')).toBe('my-store');
    expect(fileSafe('***')).toBe('houkai');
  });
});

describe('text entering the store is normalised in linear time', () => {
  it('remember, recall (semantic and hybrid), recallPack, edit and suggest with 1 MiB of adversarial whitespace', async () => {
    const store = await openTestStore();
    const { memory } = await store.remember('the deploy checklist');
    const text = (n: number): string => `a${' '.repeat(n)}b `;
    const calls: [string, (n: number) => Promise<unknown>][] = [
      ['remember', async (n) => store.forget((await store.remember(text(n), { tags: [`t${' '.repeat(50)}x`] })).memory.id)],
      ['recall', (n) => store.recall(text(n), { k: 3 })],
      ['recall hybrid', (n) => store.recall(text(n), { k: 3, mode: 'hybrid' })],
      ['recallPack', (n) => store.recallPack(text(n), { tokenBudget: 50 })],
      ['edit', (n) => store.edit(memory.id, { text: `b${' '.repeat(n)}c\u3000` })],
      ['suggest', (n) => store.suggest({ conversationSnippet: text(n) })],
    ];
    for (const [label, call] of calls) await withinBudgetAsync(label, MIB - 8, async (n) => void (await call(n)), STORE_BUDGET_MS);
    expect((await store.get(memory.id))!.text.startsWith('b ')).toBe(true);
    await store.close();
  });

  it('an archive row whose text holds a whitespace run imports in linear time (the report: 60k spaces, 14 s)', async () => {
    const store = await openTestStore();
    const header = JSON.stringify({ format: 'ai-houkai/export', version: 1, source: { embedding_dim: 0 } });
    let i = 0;
    await withinBudgetAsync('import', MIB - 8, async (n) => {
      i += 1;
      const row = JSON.stringify({ id: `row-${i}`, text: `a${' '.repeat(n)}b `, meta: { tags: [`x${' '.repeat(30)}y`] } });
      const bytes = gzipSync(new TextEncoder().encode(`${header}\n${row}\n${' '.repeat(n)}\n`));
      const result = await store.importArchive(bytes);
      expect(result).toMatchObject({ imported: 1, errors: [] });
    }, STORE_BUDGET_MS);
    await store.close();
  });

  it('agent tools: a 1 MiB whitespace query and time argument', async () => {
    const store = await openTestStore();
    await store.remember('the deploy checklist');
    const tools = memoryTools(store);
    await withinBudgetAsync('tools', MIB - 8, async (n) => {
      const out = JSON.parse(await tools.dispatch('recall', JSON.stringify({ query: `deploy${' '.repeat(n)}x `, since: `${' '.repeat(n)}7d ` })));
      expect(Array.isArray(out)).toBe(true);
    }, STORE_BUDGET_MS);
    await store.close();
  });
});

describe('the readers of issues #26 and #27 on adversarial shapes up to 1 MiB', () => {
  // Questions and statements are read by their opening (4,000 characters); a longer text costs no more.
  const SHAPES: [string, (n: number) => string][] = [
    ['"X said, " repeated', (n) => run('Caroline said, ', n)],
    ['month names', (n) => run('May ', n)],
    ['numbers and times', (n) => run('9:30 10am 2,000 ', n)],
    ['opening quotes', (n) => run('"', n)],
    ['brackets', (n) => `${run('(', n)}x`],
    ['capitalised words', (n) => run('Anna Ben ', n)],
  ];
  it.each(SHAPES)('%s: the transcript, query and statement readers stay linear', async (_label, shape) => {
    const { readTranscriptLine } = await import('../src/core/domain/transcript.ts');
    const { analyseQuery, memoryEntities } = await import('../src/core/domain/query.ts');
    const { comparePair, valuesDiffer } = await import('../src/core/domain/contradiction.ts');
    withinBudget('readers', MIB, (n) => {
      const text = shape(n);
      readTranscriptLine(text);
      analyseQuery(text, 1_700_000_000);
      const e = memoryEntities({ text: `${text} ` });
      void e.mentions;
      void e.saysWhen;
      comparePair(text, `${text} x`);
      valuesDiffer(text, `${text} y`);
    });
  });
});
