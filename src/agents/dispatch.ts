/**
 * The agent-loop side of the tool surface: JSON in, JSON out, as AI-Houkai's `_dispatch_tool`
 * — a tool call arrives as a name and an arguments string (OpenAI and Ollama
 * function calling, an MCP `tools/call`, a WebMCP `execute`), and the answer goes back as a JSON
 * string the loop appends to the conversation.
 *
 * Arguments are validated against the tool's input schema before anything runs, with a small
 * validator for the JSON Schema subset the tools use (types, `required`, `additionalProperties:
 * false`, `enum`, `minimum`/`maximum`, string lengths, arrays and their items), so a malformed call
 * writes nothing. Arguments are JSON: an already-parsed object is read as its JSON text would be, and
 * every key is looked up as an own property, so `"__proto__"`, `"constructor"` or `"toString"`
 * are ordinary (unknown) keys that cannot reach a prototype or pass for a declared property; the
 * tool receives a null-prototype copy. Failures are returned, never thrown into the agent loop:
 * `{"error": {"code": "...", "message": "..."}}`, where the code is the store's `MemoryError` code
 * or one of `INVALID_ARGUMENT` (bad JSON, schema violations), `UNKNOWN_TOOL` and `INTERNAL`.
 */
import { thrownMessage } from '../core/domain/describe.ts';
import { ERROR_CODES, MemoryError, type ErrorCode } from '../core/errors.ts';

// ---------------------------------------------------------------------------------------------
// Schema subset
// ---------------------------------------------------------------------------------------------

export type JsonSchemaType = 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'null';

/**
 * The JSON Schema (draft 2020-12) subset every tool schema here is written in: the keywords that
 * OpenAI function calling, Anthropic tool use and MCP `tools/list` all accept. Defaults are stated
 * in `description` rather than with `default`.
 */
export interface JsonSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  enum?: (string | number | boolean | null)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

/** A tool's input schema: always an object with named properties and no others. */
export interface ObjectSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties: false;
}

/** One tool of the surface, independent of any provider's wire format. */
export interface ToolDef {
  /** Matches `/^[a-zA-Z0-9_-]{1,64}$/` (the strictest of the three formats). */
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  /** True when the tool changes nothing the user would see (MCP `readOnlyHint`). */
  readOnly: boolean;
  /** May delete or overwrite data (MCP `destructiveHint`); meaningful for write tools only. */
  destructive?: boolean;
  /** Repeating the same call has no further effect (MCP `idempotentHint`). */
  idempotent?: boolean;
  /** Runs the tool on arguments that already passed {@link validateArguments}; resolves to plain JSON data. */
  run(args: Record<string, unknown>): Promise<unknown>;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** Codes a tool call can fail with: the store's, plus the dispatcher's own. */
export type ToolErrorCode = ErrorCode | 'UNKNOWN_TOOL' | 'INTERNAL';

export interface ToolErrorBody {
  code: ToolErrorCode;
  message: string;
  /** Plain data from the `MemoryError` (the offending `field`, a conflict list…), when it has any. */
  details?: Record<string, unknown>;
}

/** What a call produced: the tool's result, or the error envelope's body. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: ToolErrorBody };

/** A MemoryError, also one rebuilt by another copy of this library (e.g. across a bundle boundary). */
function isMemoryErrorLike(error: unknown): error is { code: ErrorCode; message: string; details?: unknown } {
  if (error instanceof MemoryError) return true;
  if (error === null || typeof error !== 'object') return false;
  const e = error as { name?: unknown; code?: unknown; message?: unknown };
  return e.name === 'MemoryError' && typeof e.message === 'string' && (ERROR_CODES as readonly unknown[]).includes(e.code);
}

/** Maps anything thrown by a tool to the envelope's body: a MemoryError keeps its code, anything else is INTERNAL. */
export function toToolError(error: unknown): ToolErrorBody {
  if (isMemoryErrorLike(error)) {
    const details = error.details;
    const hasDetails = details !== null && typeof details === 'object' && Object.keys(details).length > 0;
    return { code: error.code, message: error.message, ...(hasDetails ? { details: details as Record<string, unknown> } : {}) };
  }
  if (error instanceof Error) return { code: 'INTERNAL', message: error.message || error.name };
  return { code: 'INTERNAL', message: String(error) };
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: JsonSchemaType): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
  }
}

function describeTypes(types: readonly JsonSchemaType[]): string {
  const words = types.map((t) => (t === 'integer' ? 'a whole number' : t === 'array' ? 'an array' : t === 'object' ? 'an object' : t === 'null' ? 'null' : `a ${t}`));
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** The schema of a declared property: an own key only (`properties.constructor` is Object's, not a property). */
function propertyOf(properties: Record<string, JsonSchema>, key: string): JsonSchema | undefined {
  return Object.hasOwn(properties, key) ? properties[key] : undefined;
}

/** Returns the first problem with `value` under `schema`, naming `path`, or null when it conforms. */
function problem(schema: JsonSchema, value: unknown, path: string): { path: string; message: string } | null {
  const where = path === '' ? 'arguments' : path;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => matchesType(value, t))) {
      return { path, message: `${where} must be ${describeTypes(types)} — got ${typeOf(value)}` };
    }
  }
  if (schema.enum !== undefined && !schema.enum.some((option) => option === value)) {
    return { path, message: `${where} must be one of: ${schema.enum.map((o) => JSON.stringify(o)).join(', ')} — got ${JSON.stringify(value)}` };
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return { path, message: `${where} must be ≥ ${schema.minimum} — got ${value}` };
    if (schema.maximum !== undefined && value > schema.maximum) return { path, message: `${where} must be ≤ ${schema.maximum} — got ${value}` };
  }
  if (typeof value === 'string') {
    const length = [...value].length; // JSON Schema counts code points
    if (schema.minLength !== undefined && length < schema.minLength) {
      return { path, message: `${where} must be at least ${schema.minLength} character(s) long` };
    }
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      return { path, message: `${where} must be at most ${schema.maxLength} characters long — got ${length}` };
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return { path, message: `${where} must have at least ${schema.minItems} item(s)` };
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      return { path, message: `${where} must have at most ${schema.maxItems} items — got ${value.length}` };
    }
    if (schema.items !== undefined) {
      for (const [i, item] of value.entries()) {
        const found = problem(schema.items, item, `${path}[${i}]`);
        if (found) return found;
      }
    }
  }
  if (matchesType(value, 'object') && (schema.properties !== undefined || schema.required !== undefined || schema.additionalProperties === false)) {
    const record = value as Record<string, unknown>;
    const properties = schema.properties ?? {};
    const prefix = path === '' ? '' : `${path}.`;
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(record, key) || record[key] === undefined) return { path: `${prefix}${key}`, message: `${prefix}${key} is required` };
    }
    for (const [key, item] of Object.entries(record)) {
      const sub = propertyOf(properties, key);
      if (sub === undefined) {
        if (schema.additionalProperties === false) {
          const known = Object.keys(properties);
          return {
            path: `${prefix}${key}`,
            message: `${where} has an unknown field ${JSON.stringify(key)}${known.length ? `; expected one of: ${known.join(', ')}` : '; this tool takes no arguments'}`,
          };
        }
        continue;
      }
      if (item === undefined) continue;
      const found = problem(sub, item, `${prefix}${key}`);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Validates tool arguments against an object schema and returns a clean copy. An explicit `null`
 * for an optional property whose type does not admit null is taken as "omitted" (models often send
 * `null` for parameters they do not use, and AI-Houkai's tools treat `None` as the default).
 * @throws MemoryError INVALID_ARGUMENT naming the offending field (`details.field`).
 */
export function validateArguments(schema: ObjectSchema, value: unknown): Record<string, unknown> {
  if (!matchesType(value, 'object')) {
    throw new MemoryError('INVALID_ARGUMENT', `arguments must be a JSON object — got ${typeOf(value)}`, { field: 'arguments' });
  }
  const required = new Set(schema.required ?? []);
  // A null prototype: assigning the key "__proto__" makes an own property, not a new prototype.
  const cleaned: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const sub = propertyOf(schema.properties, key);
    const admitsNull = sub?.type === 'null' || (Array.isArray(sub?.type) && sub.type.includes('null'));
    if (item === null && sub !== undefined && !required.has(key) && !admitsNull) continue;
    cleaned[key] = item;
  }
  const found = problem(schema, cleaned, '');
  if (found) throw new MemoryError('INVALID_ARGUMENT', found.message, { field: found.path || 'arguments' });
  return cleaned;
}

/**
 * Parses an arguments string (empty → `{}`). An object (Anthropic's `block.input`, a WebMCP
 * `execute` input) is read as its JSON: getters run once, here, and what comes out is plain data
 * (no proxies, accessors, prototypes or cycles reach the validator or the tool).
 */
export function parseArguments(argumentsJson: unknown): unknown {
  if (argumentsJson === undefined || argumentsJson === null) return {};
  if (typeof argumentsJson !== 'string') {
    let text: string | undefined;
    try {
      text = JSON.stringify(argumentsJson);
    } catch (error) {
      throw new MemoryError('INVALID_ARGUMENT', `arguments are not JSON data: ${thrownMessage(error)}`, { field: 'arguments' });
    }
    if (text === undefined) throw new MemoryError('INVALID_ARGUMENT', `arguments must be a JSON object — got ${typeof argumentsJson}`, { field: 'arguments' });
    return JSON.parse(text) as unknown;
  }
  if (argumentsJson.trim() === '') return {};
  try {
    return JSON.parse(argumentsJson) as unknown;
  } catch (error) {
    throw new MemoryError('INVALID_ARGUMENT', `arguments are not valid JSON: ${(error as Error).message}`, { field: 'arguments' });
  }
}

// ---------------------------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------------------------

export type ToolList = readonly ToolDef[] | ReadonlyMap<string, ToolDef>;

function findTool(tools: ToolList, name: string): ToolDef | undefined {
  if (tools instanceof Map) return tools.get(name);
  return (tools as readonly ToolDef[]).find((t) => t.name === name);
}

function toolNames(tools: ToolList): string[] {
  return tools instanceof Map ? [...tools.keys()] : (tools as readonly ToolDef[]).map((t) => t.name);
}

/** The UNKNOWN_TOOL body, listing what is available. */
export function unknownTool(name: unknown, available: readonly string[], reason?: string): ToolErrorBody {
  const shown = typeof name === 'string' ? JSON.stringify(name) : `(${typeOf(name)})`;
  return {
    code: 'UNKNOWN_TOOL',
    message: `${reason ?? `Unknown tool ${shown}`}; available tools: ${available.length ? available.join(', ') : '(none)'}`,
    details: { tool: typeof name === 'string' ? name : null, available: [...available] },
  };
}

/**
 * Finds, validates and runs one tool call; never throws. `args` is the arguments JSON string (or an
 * already-parsed object).
 */
export async function invokeTool(tools: ToolList, name: unknown, args: unknown): Promise<ToolOutcome> {
  const tool = typeof name === 'string' ? findTool(tools, name) : undefined;
  if (!tool) return { ok: false, error: unknownTool(name, toolNames(tools)) };
  try {
    const checked = validateArguments(tool.inputSchema, parseArguments(args));
    return { ok: true, result: await tool.run(checked) };
  } catch (error) {
    return { ok: false, error: toToolError(error) };
  }
}

/** The JSON text of an outcome: the result itself, or `{"error": {...}}`. Never throws. */
export function outcomeJson(outcome: ToolOutcome): string {
  if (!outcome.ok) return JSON.stringify({ error: outcome.error });
  try {
    return JSON.stringify(outcome.result) ?? 'null';
  } catch (error) {
    return JSON.stringify({ error: { code: 'INTERNAL', message: `The result could not be serialised: ${(error as Error).message}` } });
  }
}

/**
 * AI-Houkai's `_dispatch_tool(name, arguments) -> str`: parses `argumentsJson`, validates it
 * against the tool's schema, runs the tool and returns `JSON.stringify(result)`; on any failure
 * returns `{"error": {"code", "message"}}` instead of throwing.
 *
 * @example
 * ```ts
 * // OpenAI / Ollama: tc.function.arguments is already a JSON string
 * const text = await dispatchTool(tools, tc.function.name, tc.function.arguments);
 * messages.push({ role: 'tool', tool_call_id: tc.id, content: text });
 * ```
 */
export async function dispatchTool(tools: ToolList, name: string, argumentsJson: string | Record<string, unknown> | null | undefined): Promise<string> {
  return outcomeJson(await invokeTool(tools, name, argumentsJson));
}

/** An MCP `CallToolResult` (also WebMCP's `execute` result): the JSON as one text block, `isError` on failure. */
export interface CallToolResult {
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** Wraps an outcome as an MCP / WebMCP tool result. */
export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  return { content: [{ type: 'text', text: outcomeJson(outcome) }], ...(outcome.ok ? {} : { isError: true }) };
}
