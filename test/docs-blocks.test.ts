/**
 * Docs that cannot rot (issue #53 item 2, issue #52 item 5): every TypeScript/JavaScript block in
 * README.md and docs/ is extracted and type-checked against the package's entry points (the
 * `exports` map of package.json, read from their sources), strict, as a module of its own; a
 * failure names the file and the line. A block that several files share is split at its
 * `// name.mjs` / `// main thread` comments. Names a fragment uses without declaring them
 * (`connectMemory`, `memory`, `url`, `password`, `jwt`) are declared once, below, with the types a reader would
 * have. Node snippets (a block that imports `houkai-web/local` or `node:worker_threads`) are run
 * too, against the built package, and fail the test when they do not end within 60 s: pack smoke
 * runs them from the tarball (scripts/pack-smoke.mjs); here they run from source with tsx.
 * Links between pages (relative Markdown links and #anchors) are checked as well, and the README
 * stays a front door (issue #53 item 1): at most 400 lines, with a map naming every docs/ page.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMcpArgs } from '../src/mcp/cli.ts';
import { syncFromEnv } from '../src/mcp/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Block {
  file: string;
  line: number;
  lang: string;
  code: string;
}

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) out.push(join(dir, entry.name));
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}

/** The fenced code blocks of a Markdown text, with the line their first code line is on. */
export function codeBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    blocks.push({ file, line: start + 1, lang: open[1]!, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** A block split where it names another file (`// store-thread.mjs`, `// main thread`). */
export function units(block: Block): Block[] {
  const lines = block.code.split('\n');
  const cuts = lines.map((l, i) => (i > 0 && /^\/\/ ([\w.-]+\.m?[jt]s|main thread)\s*$/.test(l) ? i : -1)).filter((i) => i > 0);
  const bounds = [0, ...cuts, lines.length];
  return bounds.slice(0, -1).map((from, k) => ({ ...block, line: block.line + from, code: lines.slice(from, bounds[k + 1]).join('\n') }));
}

const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
const blocks = markdownFiles().flatMap((f) => codeBlocks(f, readFileSync(f, 'utf8'))).filter((b) => CODE.has(b.lang));

/** The package's entry points, from the `exports` map: `houkai-web/local` → src/local.ts. */
function entryPaths(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, { types?: string } | string> };
  const paths: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(pkg.exports)) {
    if (typeof value !== 'object' || !value.types) continue;
    const source = value.types.replace(/^\.\/dist\/lib\//, '').replace(/\.d\.ts$/, '.ts');
    paths[key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [join(ROOT, source)];
  }
  return paths;
}

/** What a fragment may use undeclared, as a reader holding the README's first example would. */
const AMBIENT = `
declare const connectMemory: typeof import('houkai-web').connectMemory;
declare const memory: import('houkai-web').MemoryClient;
declare const url: string;
declare const password: string;
declare const jwt: string;
`;

const work = mkdtempSync(join(tmpdir(), 'houkai-docs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the code blocks in README.md and docs/', () => {
  it('finds them', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  it('type-check against the package entry points; a failure names its file and line', () => {
    const files: string[] = [];
    const origin = new Map<string, Block>();
    for (const block of blocks) {
      for (const unit of units(block)) {
        const name = join(work, `${relative(ROOT, unit.file).replace(/[^\w]/g, '_')}_${unit.line}.ts`);
        writeFileSync(name, `${unit.code}\nexport {};\n`);
        files.push(name);
        origin.set(name, unit);
      }
    }
    writeFileSync(join(work, 'ambient.d.ts'), AMBIENT);
    const program = ts.createProgram([...files, join(work, 'ambient.d.ts')], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts', 'lib.webworker.importscripts.d.ts'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      baseUrl: ROOT,
      paths: entryPaths(),
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && origin.has(resolve(d.file.fileName)))
      .map((d) => {
        const unit = origin.get(resolve(d.file!.fileName))!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${relative(ROOT, unit.file)}:${unit.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  }, 120_000);

  it('JSON blocks parse, and an MCP client entry starts `houkai-web mcp` with options it reads', () => {
    const json = markdownFiles().flatMap((f) => codeBlocks(f, readFileSync(f, 'utf8'))).filter((b) => b.lang === 'json');
    const servers = json.flatMap((block) => {
      const where = `${relative(ROOT, block.file)}:${block.line}`;
      let value: { mcpServers?: Record<string, { command: string; args: string[]; env?: Record<string, string> }> };
      try {
        value = JSON.parse(block.code);
      } catch (error) {
        throw new Error(`${where}: ${(error as Error).message}`);
      }
      return Object.values(value.mcpServers ?? {}).map((server) => ({ where, ...server }));
    });
    expect(servers.map((s) => s.where)).toContain('README.md:' + json.find((b) => b.file.endsWith('README.md'))?.line);
    for (const server of servers) {
      expect([server.command, ...server.args.slice(0, 2)], server.where).toEqual(['npx', 'houkai-web', 'mcp']);
      expect(() => parseMcpArgs(server.args.slice(2)), server.where).not.toThrow();
      // The secrets the server reads from its environment, and nothing it would ignore.
      const env = server.env ?? {};
      for (const name of Object.keys(env)) expect(['HOUKAI_SYNC_USERNAME', 'HOUKAI_SYNC_PASSWORD', 'HOUKAI_SYNC_TOKEN', 'HOUKAI_SYNC_PASSPHRASE'], server.where).toContain(name);
      const sync = parseMcpArgs(server.args.slice(2)).sync;
      if (sync) {
        const options = syncFromEnv(sync, env);
        expect(options.auth !== undefined, server.where).toBe('HOUKAI_SYNC_USERNAME' in env || 'HOUKAI_SYNC_TOKEN' in env);
        expect(options.encryption !== undefined, server.where).toBe('HOUKAI_SYNC_PASSPHRASE' in env);
      }
    }
  });

  it('Node snippets run to their end within 60 s (a hanging one fails)', async () => {
    const node = blocks.filter((b) => /from 'houkai-web\/local'|from 'node:worker_threads'/.test(b.code));
    expect(node.length).toBeGreaterThanOrEqual(2);
    // Inside the repository, so `fake-indexeddb` and the SDK resolve from its node_modules.
    const runs = join(ROOT, 'node_modules', '.cache', 'houkai-docs-run');
    rmSync(runs, { recursive: true, force: true });
    const failures: string[] = [];
    const entries = entryPaths();
    for (const block of node) {
      const dir = join(runs, `${relative(ROOT, block.file).replace(/[^\w]/g, '_')}_${block.line}`);
      mkdirSync(dir, { recursive: true });
      let main = '';
      for (const unit of units(block)) {
        const named = /^\/\/ ([\w.-]+\.m?[jt]s)\s*$/.exec(unit.code.split('\n')[0]!)?.[1];
        // The package's own specifiers point at its sources (what `exports` publishes, built).
        const code = unit.code.replace(/from '(houkai-web(?:\/[\w-]+)?)'/g, (whole, spec: string) => (entries[spec] ? `from ${JSON.stringify(entries[spec]![0])}` : whole));
        if (named) {
          // A worker thread does not inherit the tsx loader: the file the snippet names registers
          // it, then runs the snippet's code.
          writeFileSync(join(dir, `${named}.body.mts`), code);
          writeFileSync(join(dir, named), `import { register } from 'tsx/esm/api';\nregister();\nawait import('./${named}.body.mts');\n`);
        } else writeFileSync(join(dir, 'main.mts'), code);
        if (!named) main = 'main.mts';
      }
      const where = `${relative(ROOT, block.file)}:${block.line}`;
      const outcome = await new Promise<string | null>((done) => {
        execFile(process.execPath, ['--import', 'tsx', main], { cwd: dir, timeout: 60_000, killSignal: 'SIGKILL' }, (error, _out, stderr) => {
          if (!error) return done(null);
          done((error as { killed?: boolean }).killed ? `${where}: did not end within 60 s` : `${where}: exit ${String((error as { code?: unknown }).code)}: ${stderr.trim().split('\n').filter((l) => /Error|error/.test(l)).slice(0, 3).join(' | ')}`);
        });
      });
      if (outcome) failures.push(outcome);
    }
    rmSync(runs, { recursive: true, force: true });
    expect(failures).toEqual([]);
  }, 300_000);

  it('links between pages resolve (files and #anchors)', () => {
    const slug = (heading: string): string =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s-]/gu, '')
        .replace(/\s/g, '-');
    const anchorsOf = (file: string): Set<string> => new Set(readFileSync(file, 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // http:, mailto:
        const [path, anchor] = target!.split('#');
        const to = path ? resolve(dirname(file), path) : file;
        if (!existsSync(to)) broken.push(`${relative(ROOT, file)}: ${target} (no such file)`);
        else if (anchor && to.endsWith('.md') && !anchorsOf(to).has(anchor)) broken.push(`${relative(ROOT, file)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front door: at most 400 lines, the quickstart and a map naming every docs/ page', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(pages.filter((page) => !readme.includes(`](docs/${page})`))).toEqual([]);
    for (const heading of ['## Quickstart', '## Install it in your project', '## Models', '## The app', '## Documentation']) expect(readme).toContain(`\n${heading}\n`);
    expect(readme).toMatch(/!\[[^\]]+\]\(docs\/images\/[^)]+\.png\)/);
  });
});

