/**
 * The store's arguments as plain data, taken once at the API boundary.
 *
 * A caller in the same realm (`houkai-web/local`, an extension page, an agent loop) can pass
 * anything: getters that throw or answer differently on each read, proxies, cycles, BigInts,
 * symbols, an own `"__proto__"` key, a non-function `onProgress`. Each operation then validates
 * its arguments field by field, but a validator that reads a getter twice could check one value
 * and use another, and a `TypeError` from deep inside a check is not the typed error the API
 * promises. So every call first copies its arguments the way `structuredClone` would (own
 * enumerable properties, read once, into ordinary objects whose keys are all own data
 * properties) and anything that cannot be copied is `INVALID_ARGUMENT` naming where it was:
 *
 * - a getter or proxy trap that throws, a cycle, nesting deeper than {@link MAX_DEPTH}, an
 *   array longer than {@link MAX_ARRAY_LENGTH};
 * - a BigInt or a symbol (no option of this API takes one);
 * - `signal` that is not an AbortSignal, `onProgress` that is not a function (in any options
 *   object passed as an argument). A progress callback is advisory: one that throws is ignored.
 *
 * Functions, Blobs, streams, buffers, typed arrays, AbortSignals, CryptoKeys, Dates, Maps and Sets are passed
 * by reference (their validators check them); every other object is copied.
 */
import { thrownMessage } from './describe.ts';
import { MemoryError, invalid } from '../errors.ts';

/** Deepest nesting accepted in an argument (options objects are 1–3 levels deep). */
export const MAX_DEPTH = 32;
/** Longest array accepted anywhere in an argument (a sparse `new Array(2 ** 32 - 1)` must not be walked). */
export const MAX_ARRAY_LENGTH = 10_000_000;

function isHostObject(value: object): boolean {
  return (
    ArrayBuffer.isView(value) ||
    value instanceof ArrayBuffer ||
    value instanceof Date ||
    value instanceof Map ||
    value instanceof Set ||
    (typeof Blob !== 'undefined' && value instanceof Blob) ||
    (typeof ReadableStream !== 'undefined' && value instanceof ReadableStream) ||
    (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) ||
    (typeof CryptoKey !== 'undefined' && value instanceof CryptoKey) ||
    (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)
  );
}

/** An AbortSignal, also one from another realm (an iframe's), by its shape. */
function isSignalLike(value: unknown): boolean {
  if (typeof AbortSignal !== 'undefined' && value instanceof AbortSignal) return true;
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { aborted?: unknown }).aborted === 'boolean' &&
    typeof (value as { addEventListener?: unknown }).addEventListener === 'function'
  );
}

/** Sets `key` as an own data property (a plain `out[key] = v` with key `"__proto__"` would set the prototype). */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

class Copier {
  private readonly seen = new Set<object>();

  copy(value: unknown, path: string, depth: number): unknown {
    switch (typeof value) {
      case 'bigint':
        throw invalid(`${path} must not be a BigInt (use a number)`, { field: path });
      case 'symbol':
        throw invalid(`${path} must not be a symbol`, { field: path });
      case 'object':
        break;
      default:
        return value; // strings, numbers, booleans, undefined, functions
    }
    if (value === null) return null;
    if (depth > MAX_DEPTH) throw invalid(`${path} is nested more than ${MAX_DEPTH} levels deep`, { field: path });
    if (isHostObject(value)) return value;
    if (this.seen.has(value)) throw invalid(`${path} refers to itself (a cycle)`, { field: path });
    this.seen.add(value);
    try {
      if (Array.isArray(value)) {
        if (value.length > MAX_ARRAY_LENGTH) throw invalid(`${path} has more than ${MAX_ARRAY_LENGTH} elements`, { field: path, limit: MAX_ARRAY_LENGTH });
        const out: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) out[i] = this.copy(value[i], `${path}[${i}]`, depth + 1);
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) setOwn(out, key, this.copy((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1));
      return out;
    } finally {
      this.seen.delete(value);
    }
  }
}

/** Wraps a progress callback so that a throw inside it cannot break the operation it reports on. */
function advisory(callback: (...args: unknown[]) => unknown): (...args: unknown[]) => void {
  return (...args) => {
    try {
      const result = callback(...args);
      if (result && typeof (result as Promise<unknown>).catch === 'function') (result as Promise<unknown>).catch(() => undefined);
    } catch {
      // Progress is advisory.
    }
  };
}

/** Checks the reserved `signal` and `onProgress` keys of one options object (already copied). */
function checkReserved(options: Record<string, unknown>, path: string): void {
  if (Object.hasOwn(options, 'signal') && options.signal !== undefined && !isSignalLike(options.signal)) {
    throw invalid(`${path}.signal must be an AbortSignal`, { field: 'signal' });
  }
  if (Object.hasOwn(options, 'onProgress') && options.onProgress !== undefined) {
    if (typeof options.onProgress !== 'function') throw invalid(`${path}.onProgress must be a function`, { field: 'onProgress' });
    options.onProgress = advisory(options.onProgress as (...args: unknown[]) => unknown);
  }
}

/**
 * The arguments of one call as plain data (see the module comment).
 * @throws MemoryError INVALID_ARGUMENT naming the argument (`details.field`)
 */
export function plainArguments(method: string, args: readonly unknown[]): unknown[] {
  const copier = new Copier();
  const out: unknown[] = [];
  for (let i = 0; i < args.length; i++) {
    const path = `${method} argument ${i + 1}`;
    let copied: unknown;
    try {
      copied = copier.copy(args[i], path, 0);
    } catch (error) {
      if (error instanceof MemoryError) throw error;
      // A getter, a proxy trap or a host check threw: the argument cannot be read.
      throw invalid(`${path} cannot be read: ${thrownMessage(error)}`, { field: path });
    }
    if (copied !== null && typeof copied === 'object' && !Array.isArray(copied) && !isHostObject(copied)) {
      checkReserved(copied as Record<string, unknown>, path);
    }
    out.push(copied);
  }
  return out;
}
