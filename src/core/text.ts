/**
 * Text normalisation that matches Python's `str.strip()`, `str.split()` and the content hash
 * AI-Houkai records, so hashes computed here equal the ones in `.ahkai` archives.
 */

/** The characters Python's `str.isspace()` accepts (JS `\s` differs: it has U+FEFF, lacks U+001C–U+001F and U+0085). */
const PY_SPACE = '\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_SPACE}]+`, 'u');
const TRAILING = new RegExp(`[${PY_SPACE}]+$`, 'u');
const RUNS = new RegExp(`[${PY_SPACE}]+`, 'u');

/** Python's `text.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python's `" ".join(text.lower().split())`. */
export function foldWhitespaceLower(text: string): string {
  return text
    .toLowerCase()
    .split(RUNS)
    .filter((part) => part.length > 0)
    .join(' ');
}

const encoder = new TextEncoder();

/** UTF-8 byte length, without allocating for short ASCII strings. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** First 32 hex characters of SHA-256 over the folded text: AI-Houkai's `content_hash`. */
export async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(foldWhitespaceLower(text)));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex.slice(0, 32);
}
