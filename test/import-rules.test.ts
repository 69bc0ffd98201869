/**
 * The dependency rules of the architecture, checked on the imports themselves (type-only
 * imports count: they are dependencies too):
 * - `src/core` imports nothing but `src/core` (no vendor, no Node or DOM module, no adapter);
 *   inside it, only the API, the operations table and the wiring import `core/ops`;
 *   `core/domain` (pure algorithms) imports only itself and the contracts (types, errors, port
 *   types); `core/services` (state over the ports) imports no operation and none of the wiring;
 * - an adapter (a file of `src/adapters` named after its port: `storage-`, `registry-`,
 *   `index-`, `embedder-`, `gzip-`) imports no other adapter, and adapter helpers import none;
 * - no cycle between the folders of `src` (and `worker`), nor between any two files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const ADAPTER = /^(storage|registry|index|embedder|gzip)-[a-z0-9-]+\.ts$/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|svelte)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

interface Import {
  from: string;
  specifier: string;
  /** The imported file, relative to the repository (null for a package). */
  to: string | null;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: Import[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2]!;
    const relative = specifier.startsWith('.');
    out.push({ from: path.relative(ROOT, file), specifier, to: relative ? path.relative(ROOT, path.resolve(path.dirname(file), specifier)) : null });
  }
  return out;
}

const all = [...files(path.join(ROOT, 'src')), ...files(path.join(ROOT, 'worker'))].flatMap(importsOf);

/** The folder a file belongs to for the cycle check: `src/<folder>`, `src` for the entries, `worker`. */
function folderOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}` : 'src';
  return parts[0]!;
}

/** Every cycle a depth-first walk meets, as `a → b → … → a`. */
function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('import rules', () => {
  it('finds the imports it checks', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(all.some((i) => i.from === path.join('src', 'core', 'view.ts') && i.specifier === './operations.ts')).toBe(true);
  });

  it('core imports only core: no vendor, no Node or DOM module, no adapter or other layer', () => {
    const core = path.join('src', 'core') + path.sep;
    const bad = all.filter((i) => i.from.startsWith(core) && (i.to === null || !i.to.startsWith(core)));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
  });

  it('inside core, only the API, the operations table and the wiring depend on the operations', () => {
    const ops = path.join('src', 'core', 'ops') + path.sep;
    const allowed = new Set(['api.ts', 'operations.ts', 'store.ts', 'view.ts'].map((f) => path.join('src', 'core', f)));
    const bad = all.filter((i) => !i.from.startsWith(ops) && i.to?.startsWith(ops) && !allowed.has(i.from));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
  });

  it('core/domain is pure: it imports only itself and the contracts (types, errors, port types)', () => {
    const domain = path.join('src', 'core', 'domain') + path.sep;
    const contracts = new Set(['types.ts', 'errors.ts', 'ports.ts'].map((f) => path.join('src', 'core', f)));
    const bad = all.filter((i) => i.from.startsWith(domain) && i.to !== null && !i.to.startsWith(domain) && !contracts.has(i.to));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
    expect(all.filter((i) => i.from.startsWith(domain)).length).toBeGreaterThan(50);
  });

  it('core/services (state over the ports) use the domain, never an operation or the wiring', () => {
    const services = path.join('src', 'core', 'services') + path.sep;
    const above = ['ops', 'archive', 'sync', 'scope'].map((f) => path.join('src', 'core', f) + path.sep);
    const wiring = new Set(['context.ts', 'store.ts', 'view.ts', 'operations.ts', 'api.ts'].map((f) => path.join('src', 'core', f)));
    const bad = all.filter((i) => i.from.startsWith(services) && i.to !== null && (wiring.has(i.to) || above.some((a) => i.to!.startsWith(a))));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
  });

  it('core/storage (the storage rules, written once) uses only itself, the domain and the contracts', () => {
    const storage = path.join('src', 'core', 'storage') + path.sep;
    const domain = path.join('src', 'core', 'domain') + path.sep;
    const contracts = new Set(['types.ts', 'errors.ts', 'ports.ts'].map((f) => path.join('src', 'core', f)));
    const bad = all.filter((i) => i.from.startsWith(storage) && i.to !== null && !i.to.startsWith(storage) && !i.to.startsWith(domain) && !contracts.has(i.to));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
    expect(all.filter((i) => i.from.startsWith(storage)).length).toBeGreaterThan(20);
  });

  it('the storage backends only map the port: no backend imports a storage rule, and each file stays under 400 lines', () => {
    const backends = ['storage-dexie.ts', 'dexie-schema.ts', 'storage-memory.ts', 'memory-tables.ts'].map((f) => path.join('src', 'adapters', f));
    const rules = path.join('src', 'core', 'storage') + path.sep;
    const entry = new Set([path.join(rules, 'index.ts'), path.join(rules, 'port.ts'), path.join(rules, 'schema.ts'), path.join(rules, 'rows.ts')]);
    const bad = all.filter((i) => backends.includes(i.from) && i.to?.startsWith(rules) && !entry.has(i.to));
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
    const long = backends.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8').split('\n').length] as const).filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });

  it('an operation takes the storage roles it uses (Using<…>), not the whole storage', () => {
    const ops = path.join(ROOT, 'src', 'core', 'ops');
    // Sync hands its context to the replication bridge, which writes through every operation.
    const whole = new Set(['sync']);
    const wide: string[] = [];
    for (const file of readdirSync(ops)) {
      const text = readFileSync(path.join(ops, file), 'utf8');
      for (const m of text.matchAll(/export (?:async )?function (\w+)\(\s*ctx: StoreContext\b/g)) if (!whole.has(m[1]!)) wide.push(`${file}: ${m[1]}`);
    }
    expect(wide).toEqual([]);
  });

  it('an adapter imports no other adapter; adapter helpers import none', () => {
    const adapters = path.join('src', 'adapters') + path.sep;
    const isAdapter = (file: string): boolean => file.startsWith(adapters) && ADAPTER.test(path.basename(file));
    const bad = all.filter((i) => i.from.startsWith(adapters) && i.to !== null && isAdapter(i.to) && i.to !== i.from);
    expect(bad.map((i) => `${i.from} → ${i.specifier}`)).toEqual([]);
    // The rule has teeth: the adapters are there.
    expect(all.filter((i) => isAdapter(i.from)).length).toBeGreaterThan(10);
  });

  it('no cycle between folders', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of all) {
      if (i.to === null) continue;
      const a = folderOf(i.from);
      const b = folderOf(i.to);
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('no cycle between files, type-only imports included (issue #29)', () => {
    const edges = new Map<string, Set<string>>();
    for (const i of all) {
      if (i.to === null) continue;
      if (!edges.has(i.from)) edges.set(i.from, new Set());
      edges.get(i.from)!.add(i.to);
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('the cycle search finds a cycle', () => {
    const edges = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]]);
    expect(cyclesOf(edges)).toEqual(['a → b → c → a']);
  });
});
