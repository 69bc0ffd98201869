/**
 * Hardening suite, agent tool dispatcher (#16 item 9 and "219 dispatcher calls" re-run).
 *
 * Every tool × every parameter × every way its schema can be violated (wrong JSON type, out of
 * range, not in the enum, too long, too many items, a bad item, a missing required field), each
 * also smuggled through `"__proto__"` (which used to set the prototype of the copied arguments
 * and slip past `required`, `maxItems`, `maximum` and `additionalProperties`), plus inherited
 * names (`constructor`, `toString`…), malformed argument strings, hostile argument objects
 * (getters, proxies, BigInts, cycles) and unknown tool names. Each call must answer with the
 * error envelope and the right code, change nothing, and pollute no prototype.
 */
import { describe, expect, it } from 'vitest';
import { dispatchTool, parseArguments, validateArguments, type JsonSchema, type ObjectSchema } from '../../src/agents/dispatch.ts';
import { memoryTools } from '../../src/agents/index.ts';
import { MemoryError } from '../../src/core/errors.ts';
import { openTestStore } from '../helpers/store.ts';
import { fingerprint } from './hostile.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SAMPLE: Record<string, Json> = { string: 'x', integer: 7, number: 1.5, boolean: true, array: [], object: {}, null: null };

function typesOf(schema: JsonSchema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** JSON values that violate `schema` (for a property that is `required` or not). */
function violations(schema: JsonSchema, required: boolean): [string, Json][] {
  const out: [string, Json][] = [];
  const types = typesOf(schema);
  if (types.length > 0) {
    for (const [type, value] of Object.entries(SAMPLE)) {
      const accepted = types.includes(type) || (type === 'integer' && types.includes('number'));
      if (accepted) continue;
      if (type === 'null' && !required) continue; // null for an optional property means "omitted"
      out.push([`a ${type}`, value]);
    }
  }
  if (schema.enum) out.push(['not in the enum', types.includes('integer') || types.includes('number') ? 99 : 'no-such-choice']);
  if (schema.minimum !== undefined) out.push([`below ${schema.minimum}`, types.includes('integer') ? schema.minimum - 1 : schema.minimum - 0.5]);
  if (schema.maximum !== undefined) out.push([`above ${schema.maximum}`, types.includes('integer') ? schema.maximum + 1 : schema.maximum + 0.5]);
  if (schema.minLength !== undefined && schema.minLength > 0) out.push(['too short', '']);
  if (schema.maxLength !== undefined) out.push(['too long', 'x'.repeat(schema.maxLength + 1)]);
  if (schema.maxItems !== undefined) out.push(['too many items', Array.from({ length: schema.maxItems + 1 }, (_, i) => `item-${i}`)]);
  if (schema.items) {
    for (const [name, value] of violations(schema.items, true)) out.push([`an item that is ${name}`, [value]]);
  }
  return out;
}

/** A valid value for a required property (ids point at a stored memory). */
function validValue(name: string, schema: JsonSchema, id: string, other: string): Json {
  if (schema.enum) return schema.enum[0] as Json;
  const type = typesOf(schema)[0];
  if (type === 'array') return [id];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return false;
  if (name === 'dst' || name === 'to' || name === 'new_id') return other;
  return /id$|^src$|^from$/.test(name) ? id : 'fine text';
}

interface Call {
  label: string;
  tool: string;
  args: unknown;
  expected: string;
}

describe('hardening: the tool dispatcher', () => {
  it('every tool × parameter × schema violation, also through __proto__, fails with its code and changes nothing', async () => {
    const store = await openTestStore();
    const a = (await store.remember('alpha memory about deploys', { tags: ['ops'] })).memory.id;
    const b = (await store.remember('beta memory about reviews')).memory.id;
    await store.link(a, b);
    const toolset = memoryTools(store, { actor: 'attack-suite' });

    const calls: Call[] = [];
    for (const tool of toolset.tools) {
      const schema = tool.inputSchema;
      const required = new Set(schema.required ?? []);
      const base: Record<string, Json> = {};
      for (const name of required) base[name] = validValue(name, schema.properties[name]!, a, b);
      for (const [name, prop] of Object.entries(schema.properties)) {
        for (const [what, value] of violations(prop, required.has(name))) {
          calls.push({ label: `${tool.name}.${name}: ${what}`, tool: tool.name, args: JSON.stringify({ ...base, [name]: value }), expected: 'INVALID_ARGUMENT' });
          // The report's attack: the same value as a property of "__proto__".
          const { [name]: _omitted, ...rest } = base;
          calls.push({ label: `${tool.name}.__proto__.${name}: ${what}`, tool: tool.name, args: `{${[...Object.entries(rest).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`), `"__proto__":${JSON.stringify({ [name]: value })}`].join(',')}}`, expected: 'INVALID_ARGUMENT' });
        }
        // A required field only present on the prototype is missing.
        if (required.has(name)) {
          const { [name]: value, ...rest } = base;
          calls.push({ label: `${tool.name}.${name}: missing`, tool: tool.name, args: JSON.stringify(rest), expected: 'INVALID_ARGUMENT' });
          calls.push({ label: `${tool.name}.${name}: only on __proto__`, tool: tool.name, args: JSON.stringify({ ...rest, ['__proto__']: { [name]: value } }).replace('"__proto__"', '"__proto__"'), expected: 'INVALID_ARGUMENT' });
        }
      }
      // Inherited and unknown names are unknown fields, whatever their value.
      for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf', 'not_a_parameter']) {
        calls.push({ label: `${tool.name}.${key}`, tool: tool.name, args: `{${[...Object.entries(base).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`), `${JSON.stringify(key)}:{"k":5000}`].join(',')}}`, expected: 'INVALID_ARGUMENT' });
      }
    }
    // The exact report: recall with the query and k = 5000 only on the prototype.
    calls.push({ label: 'recall: __proto__ {k: 5000}', tool: 'recall', args: '{"query":"deploys","__proto__":{"k":5000}}', expected: 'INVALID_ARGUMENT' });
    calls.push({ label: 'remember: __proto__ {text}', tool: 'remember', args: '{"__proto__":{"text":"smuggled"}}', expected: 'INVALID_ARGUMENT' });
    calls.push({ label: 'remember: nested __proto__ in tags', tool: 'remember', args: '{"text":"x","tags":[{"__proto__":{"length":1}}]}', expected: 'INVALID_ARGUMENT' });
    // Malformed argument strings and non-object arguments.
    for (const [what, args] of [
      ['not JSON', '{"query": '],
      ['a JSON array', '["deploys"]'],
      ['a JSON string', '"deploys"'],
      ['a JSON number', '42'],
      ['JSON true', 'true'],
      ['NaN literal', '{"query":"x","k":NaN}'],
      ['100,000 nested arrays', `{"query":"x","tags":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
      ['a lone surrogate key', '{"query":"x","\\ud800":1}'],
      ['a getter', Object.defineProperty({ query: 'x' }, 'k', { enumerable: true, get: () => { throw new Error('getter'); } })],
      ['a BigInt', { query: 'x', k: 5n }],
      ['a cycle', (() => { const o: Record<string, unknown> = { query: 'x' }; o.self = o; return o; })()],
      ['a revoked proxy', (() => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; })()],
      ['a proxy whose traps throw', new Proxy({ query: 'x' }, { ownKeys: () => { throw new Error('trap'); } })],
      ['a toJSON that throws', { query: 'x', toJSON: () => { throw new Error('toJSON'); } }],
      ['a function', () => 0],
      ['a symbol', Symbol('x')],
    ] as [string, unknown][]) {
      calls.push({ label: `recall: ${what}`, tool: 'recall', args, expected: 'INVALID_ARGUMENT' });
    }
    // Unknown tool names, including inherited property names of the tool table.
    for (const name of ['', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'graph', 'REMEMBER', 'remember ', 'x'.repeat(10_000)]) {
      calls.push({ label: `tool ${JSON.stringify(name.slice(0, 20))}`, tool: name, args: '{}', expected: 'UNKNOWN_TOOL' });
    }

    const wrong: string[] = [];
    const changed: string[] = [];
    let before = await fingerprint(store);
    for (const call of calls) {
      const text = await toolset.dispatch(call.tool, call.args as string);
      let code: unknown;
      try {
        code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
      } catch {
        code = `unparseable ${text.slice(0, 60)}`;
      }
      if (code !== call.expected) wrong.push(`${call.label}: expected ${call.expected}, got ${String(code)} (${text.slice(0, 160)})`);
      const after = await fingerprint(store);
      if (after !== before) {
        changed.push(call.label);
        before = after;
      }
    }
    expect(wrong).toEqual([]);
    expect(changed).toEqual([]);
    expect(({} as Record<string, unknown>).k).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('text');
    console.log(`[attack] dispatcher: ${calls.length} bad tool calls over ${toolset.tools.length} tools, each the right error code, store unchanged, no prototype reached`);
    expect(calls.length).toBeGreaterThanOrEqual(219);
    await store.close();
  }, 600_000);

  it('validateArguments: a "__proto__" key is an own, unknown key; declared names are matched as own properties only', () => {
    const schema: ObjectSchema = {
      type: 'object',
      properties: { query: { type: 'string' }, k: { type: 'integer', maximum: 10 }, tags: { type: 'array', maxItems: 1 } },
      required: ['query'],
      additionalProperties: false,
    };
    const attempt = (json: string): MemoryError => {
      try {
        validateArguments(schema, parseArguments(json));
      } catch (error) {
        return error as MemoryError;
      }
      throw new Error(`${json} was accepted`);
    };
    expect(attempt('{"query":"x","__proto__":{"k":5000}}').details).toMatchObject({ field: '__proto__' });
    expect(attempt('{"__proto__":{"query":"x"}}').details).toMatchObject({ field: 'query' });
    expect(attempt('{"query":"x","__proto__":{"tags":[1,2,3]}}').message).toContain('unknown field');
    expect(attempt('{"query":"x","constructor":{}}').message).toContain('unknown field "constructor"');
    const ok = validateArguments(schema, parseArguments('{"query":"x","k":3}'));
    expect(Object.getPrototypeOf(ok)).toBeNull();
    expect(ok).toEqual(Object.assign(Object.create(null), { query: 'x', k: 3 }));
  });

  it('dispatchTool never throws, whatever the tool list or arguments', async () => {
    for (const args of [undefined, null, '', '   ', '{}', '[', { a: 1n }]) {
      const text = await dispatchTool([], 'nothing', args as string);
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('UNKNOWN_TOOL');
    }
  });
});

describe('other JSON walked from outside: the extension-port codec', () => {
  it('a "__proto__" key decodes (and encodes) as an own key, never as a prototype', async () => {
    const { decodeJson, encodeJson } = await import('../../src/transport/json-codec.ts');
    const decoded = decodeJson(JSON.parse('{"options":{"__proto__":{"k":5000,"trust":"trusted"},"tags":["a"]}}')) as { options: Record<string, unknown> };
    expect(Object.getPrototypeOf(decoded.options)).toBe(Object.prototype);
    expect(decoded.options.k).toBeUndefined();
    expect(Object.keys(decoded.options)).toEqual(['__proto__', 'tags']);
    const own = JSON.parse('{"__proto__":{"x":1},"$hk":"not a tag"}') as object;
    const roundTrip = decodeJson(JSON.parse(JSON.stringify(encodeJson(own)))) as Record<string, unknown>;
    expect(Object.keys(roundTrip)).toEqual(['__proto__', '$hk']);
    expect((roundTrip as { x?: unknown }).x).toBeUndefined();
  });

  it('an encoded value naming an inherited property is refused with a MemoryError, not a TypeError', async () => {
    const { decodeJson } = await import('../../src/transport/json-codec.ts');
    for (const t of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      expect(() => decodeJson({ $hk: 'view', t, b: '' })).toThrow(MemoryError);
    }
  });
});
