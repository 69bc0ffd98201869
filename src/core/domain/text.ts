/**
 * Text normalisation that matches Python's `str.strip()`, `str.split()` and the content hash
 * AI-Houkai records, so hashes computed here equal the ones in `.ahkai` archives.
 */

/** The characters Python's `str.isspace()` accepts (JS `\s` differs: it has U+FEFF, lacks U+001C–U+001F and U+0085). */
const PY_SPACE = '\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const RUNS = new RegExp(`[${PY_SPACE}]+`, 'u');

/** Whether a UTF-16 code unit is one of `PY_SPACE` (all of them are single units). */
function isPySpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    (c >= 0x1c && c <= 0x1f) ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Python's `text.strip()`, by scanning inwards from both ends: linear in the whitespace removed.
 * (An end-anchored regex such as `[\s]+$` is not: the backtracking engine retries it from every
 * position of every inner whitespace run, so `'a' + ' '.repeat(n) + 'b '` costs O(n²).)
 */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text.charCodeAt(start))) start++;
  while (end > start && isPySpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Whether the text is empty or only Python whitespace (`not text.strip()`), without copying it. */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isPySpace(text.charCodeAt(i))) return false;
  return true;
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
