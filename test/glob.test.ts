import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_GLOB_PATH, compileGlob, globMatches } from '../src/core/domain/glob.ts';
import { withinBudget } from './helpers/linear.ts';

/**
 * The former RegExp translation, kept as the oracle: the automaton must agree with it wherever
 * the regex engine finishes (on short inputs it always does).
 */
function regexOracle(glob: string, path: string): boolean {
  const source = (g: string): string => {
    let out = '';
    let i = 0;
    let depth = 0;
    while (i < g.length) {
      const ch = g[i]!;
      if (ch === '*') {
        if (g[i + 1] === '*') {
          if (g[i + 2] === '/') {
            out += '(?:.*/)?';
            i += 3;
          } else {
            out += '.*';
            i += 2;
          }
        } else {
          out += '[^/]*';
          i += 1;
        }
      } else if (ch === '?') {
        out += '[^/]';
        i += 1;
      } else if (ch === '[') {
        const close = g.indexOf(']', i + 2);
        if (close < 0) {
          out += '\\[';
          i += 1;
        } else {
          let body = g.slice(i + 1, close);
          const negate = body.startsWith('!') || body.startsWith('^');
          if (negate) body = body.slice(1);
          out += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
          i = close + 1;
        }
      } else if (ch === '{') {
        depth++;
        out += '(?:';
        i += 1;
      } else if (ch === '}' && depth > 0) {
        depth--;
        out += ')';
        i += 1;
      } else if (ch === ',' && depth > 0) {
        out += '|';
        i += 1;
      } else {
        out += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        i += 1;
      }
    }
    return out + ')'.repeat(depth);
  };
  const p = path.replace(/\\/g, '/');
  const g = glob.replace(/\\/g, '/');
  const src = source(g.startsWith('/') ? g.slice(1) : g);
  try {
    if (!g.includes('/')) return new RegExp(`^${src}$`, 'iu').test(p.slice(p.lastIndexOf('/') + 1));
    return new RegExp(g.startsWith('/') ? `^/?${src}$` : `(?:^|/)${src}$`, 'iu').test(p);
  } catch {
    return false;
  }
}

describe('globs run in linear time (no backtracking)', () => {
  it('agrees with the former RegExp translation on random globs and paths', () => {
    // Classes are generated whole ([ab], [!a-c]) so the oracle's quirks with `]` do not enter.
    const atom = fc.constantFrom('a', 'b', 'A', '.', '/', '*', '**', '**/', '?', '[ab]', '[!a-c]', '[a-]', '{a,b}', '{,a/}', ',', '}');
    const glob = fc.array(atom, { maxLength: 8 }).map((parts) => parts.join(''));
    const path = fc.array(fc.constantFrom('a', 'b', 'B', '.', '/', '-', 'c'), { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(glob, path, (g, p) => {
        expect(globMatches(g, p), `${g} vs ${p}`).toBe(regexOracle(g, p));
      }),
      { numRuns: 4000 },
    );
  });

  it('keeps the documented cases', () => {
    expect(globMatches('*.ts', 'src/core/store.ts')).toBe(true);
    expect(globMatches('*.{ts,tsx}', 'C:\\repo\\src\\App.tsx')).toBe(true);
    expect(globMatches('src/**/*.ts', 'src/a/b/c.ts')).toBe(true);
    expect(globMatches('/src/*.ts', 'lib/src/a.ts')).toBe(false);
    expect(globMatches('[z-a].ts', 'a.ts')).toBe(false);
    expect(compileGlob('[z-a]')).toBeNull();
    expect(globMatches('ÉTÉ.md', 'docs/été.md')).toBe(true);
    expect(globMatches('?.md', 'docs/😀.md')).toBe(true);
  });

  it('star-heavy globs against long paths stay linear (the RegExp took minutes on 200 characters)', () => {
    const shapes: [string, (n: number) => string][] = [
      ['*a*a*a*a*a*a*a*a*a*a*a*a*b', (n) => 'a'.repeat(n)],
      ['**a**a**a**a**a**a**a**b', (n) => 'a'.repeat(n)],
      ['x/**/a**/a**/a**/a**/a**/b', (n) => `x/${'a/'.repeat(n / 2)}`],
      ['{*a,*a*}{*a,*a*}{*a,*a*}{*a,*a*}c', (n) => 'a'.repeat(n)],
      [`${'*a'.repeat(240)}b`, (n) => 'a'.repeat(n)],
    ];
    for (const [glob, path] of shapes) {
      withinBudget(`glob ${glob.slice(0, 30)}`, MAX_GLOB_PATH, (n) => {
        expect(globMatches(glob, path(n))).toBe(false);
      });
    }
  });

  it('a path over MAX_GLOB_PATH matches no glob', () => {
    expect(globMatches('**', 'a'.repeat(MAX_GLOB_PATH))).toBe(true);
    expect(globMatches('**', 'a'.repeat(MAX_GLOB_PATH + 1))).toBe(false);
  });
});
