/**
 * Page text as the content script keeps it: runs of spaces and tabs folded to one space, each
 * line trimmed, blank lines dropped, at most `limit` characters. A scan over lines: the former
 * `replace(/\s*\n\s*\/g, '\n')` retried its greedy `\s*` from every position of a whitespace run
 * without a newline, so a hostile page with 100k no-break spaces froze the tab (O(n²)).
 */
export function cleanPageText(text: string, limit = Number.POSITIVE_INFINITY): string {
  const out: string[] = [];
  let length = -1; // the joining newlines included
  for (let at = 0; at <= text.length && length < limit; ) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).trim().replace(/[ \t]+/g, ' ');
    if (line) {
      out.push(line);
      length += line.length + 1;
    }
    at = end + 1;
  }
  const joined = out.join('\n');
  return joined.length > limit ? joined.slice(0, limit) : joined;
}
