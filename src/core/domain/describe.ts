/**
 * Safe text for error messages. A message names the value it rejects, but that value comes from
 * outside: `JSON.stringify` throws on a BigInt, a cycle, a throwing getter or `toJSON`, and a
 * megabyte string would be copied into the message whole. These never throw and stay short.
 */

/** At most this many characters of a value are quoted in a message. */
const QUOTE_LIMIT = 80;

/** A short, never-throwing rendering of `value` for an error message: `"abc"`, `42`, `a bigint`, `an object`… */
export function describe(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string': {
        const quoted = JSON.stringify(value.length > QUOTE_LIMIT ? value.slice(0, QUOTE_LIMIT) : value);
        return value.length > QUOTE_LIMIT ? `${quoted.slice(0, -1)}…" (${value.length} characters)` : quoted;
      }
      case 'number':
        return Object.is(value, -0) ? '-0' : String(value);
      case 'boolean':
        return String(value);
      case 'undefined':
        return 'undefined';
      case 'bigint':
        return `a bigint (${value < 10n ** 20n && value > -(10n ** 20n) ? `${value}n` : 'huge'})`;
      case 'symbol':
        return 'a symbol';
      case 'function':
        return 'a function';
    }
    if (value === null) return 'null';
    if (Array.isArray(value)) return `an array of ${value.length}`;
    const text = JSON.stringify(value);
    if (typeof text === 'string' && text.length <= QUOTE_LIMIT) return text;
    return 'an object';
  } catch {
    return 'an unreadable value';
  }
}

/** The message of anything thrown, without trusting it to behave. */
export function thrownMessage(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return describe(error);
  } catch {
    return 'an unreadable error';
  }
}
