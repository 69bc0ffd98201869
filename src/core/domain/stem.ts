/**
 * A light English stemmer for lexical matching: the inflectional first step of Porter's
 * algorithm (M. F. Porter, "An algorithm for suffix stripping", 1980, step 1a–1c), so
 * plurals, -ed and -ing forms meet their base word ("offices" → "office", "moved" → "move",
 * "deploying" → "deploy", "memories"/"memory" → "memori"). Derivational suffixes (-ation,
 * -ness, -ful, …) are left alone: on SciFact train they changed little, and they merge words
 * that users keep apart ("general"/"generate").
 *
 * Two deviations, both from Porter's later English (Snowball) stemmer: a final `s` is kept when
 * it follows `u`, `s` or `i` ("status", "class", "analysis"), or when the word has no vowel
 * before the letter preceding the `s` ("gas", "bus", "yes"); and words of three letters or less
 * are never changed. Only lower-case ASCII letter words are stemmed: anything with a digit,
 * underscore or non-ASCII letter is returned as it is (identifiers, versions, other scripts).
 */

const ASCII_WORD = /^[a-z]+$/;

function isConsonant(word: string, i: number): boolean {
  const c = word[i]!;
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
  // `y` is a consonant at the start or after a vowel, a vowel after a consonant ("happy").
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(stem: string): boolean {
  const n = stem.length;
  return n >= 2 && stem[n - 1] === stem[n - 2] && isConsonant(stem, n - 1);
}

/** Consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "bow"). */
function endsCvc(stem: string): boolean {
  const n = stem.length;
  if (n < 3) return false;
  const last = stem[n - 1]!;
  return isConsonant(stem, n - 3) && !isConsonant(stem, n - 2) && isConsonant(stem, n - 1) && last !== 'w' && last !== 'x' && last !== 'y';
}

function step1a(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ies')) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('s')) {
    // Snowball: drop the s only if a vowel occurs before the letter preceding it ("gas", "bus" stay).
    const stem = word.slice(0, -1);
    return hasVowel(stem.slice(0, -1)) ? stem : word;
  }
  return word;
}

function step1b(word: string): string {
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? word.slice(0, -1) : word;
  }
  let stem: string | null = null;
  if (word.endsWith('ed') && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith('ing') && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === null) return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return `${stem}e`;
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1];
    return last === 'l' || last === 's' || last === 'z' ? stem : stem.slice(0, -1);
  }
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  if (word.endsWith('y') && hasVowel(word.slice(0, -1))) return `${word.slice(0, -1)}i`;
  return word;
}

/** The light stem of one lower-case word (see the module comment). */
export function stem(word: string): string {
  if (word.length <= 3 || !ASCII_WORD.test(word)) return word;
  return step1c(step1b(step1a(word)));
}
