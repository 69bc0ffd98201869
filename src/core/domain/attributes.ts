/**
 * Changes beyond a value in the same words (issue #50 item 3): "I live in Leeds" / "I moved to
 * Sheffield", "I drive a Ford Focus" / "I sold the Focus and bought a Honda Civic", "Priya is my
 * boss" / "Since the reorg, Tom is my boss", "The gym costs £30" / "The gym put its price up to
 * £35". The two statements need not share a frame; they share an **attribute** (where someone
 * lives, their employer, manager, car, a price, a password, a phone number…), each holds a value
 * (a name, a number), the newer holds one the older lacks, and either the older holds one the
 * newer lacks or the newer says it changed. Then the newer is an update of the older. Pure, no
 * model; the families and words were chosen on the tuning half of bench/data/everyday-changes.json.
 */
import { contentTokens, valueSlots, type StatementView } from './statement.ts';
import { comparableKind } from './values.ts';

/** Attributes a person or a thing holds one value of at a time, by the words that name them. */
export const ATTRIBUTE_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  residence: ['live', 'lives', 'living', 'lived', 'moved', 'move', 'moving', 'relocated', 'flat', 'apartment', 'address', 'house', 'home'],
  employer: ['work', 'works', 'working', 'job', 'employer', 'company', 'hired', 'joined', 'employed', 'firm', 'contract'],
  manager: ['manager', 'boss', 'supervisor', 'reports', 'report', 'lead', 'mentor'],
  vehicle: ['car', 'drive', 'drives', 'driving', 'vehicle', 'motorbike', 'van', 'bike'],
  price: ['cost', 'costs', 'price', 'prices', 'priced', 'fee', 'fees', 'rent', 'charge', 'charges', 'subscription', 'membership', 'salary', 'rate', 'pay', 'pays', 'paid'],
  secret: ['password', 'passcode', 'pin', 'passphrase', 'code'],
  phone: ['phone', 'mobile', 'cell', 'number'],
  email: ['email', 'e-mail', 'inbox'],
  partner: ['partner', 'girlfriend', 'boyfriend', 'wife', 'husband', 'dating', 'married', 'engaged'],
  study: ['school', 'university', 'college', 'studying', 'studies', 'course', 'degree'],
  carer: ['doctor', 'gp', 'dentist', 'therapist', 'vet', 'physio', 'hairdresser', 'accountant', 'lawyer'],
  provider: ['provider', 'bank', 'insurer', 'insurance', 'broadband', 'energy', 'supplier', 'plan', 'tariff'],
  version: ['version', 'release', 'upgraded', 'upgrade'],
  pet: ['dog', 'cat', 'puppy', 'kitten', 'pet', 'rabbit', 'hamster'],
  team: ['team', 'squad', 'department', 'role', 'title', 'position', 'club'],
  landlord: ['landlord', 'landlady'],
  owner: ['owner', 'owns', 'owned', 'maintainer', 'maintains'],
};

/** Words that say the newer statement replaces a value, beyond the markers statement.ts reads. */
const REPLACING = new Set(['sold', 'bought', 'new', 'now', 'switched', 'changed', 'started', 'joined', 'left', 'quit', 'raised', 'increased', 'up', 'down', 'dropped', 'reduced', 'upgraded', 'downgraded', 'replaced', 'moved', 'relocated', 'became', 'anymore', 'longer', 'since', 'reset', 'renamed', 'traded', 'adopted', 'hired']);

/**
 * Verbs that hand a value over to another ("sold the Focus and bought a Civic", "Biscuit passed
 * away; we adopted Pepper", "Kim handed it over to Luis"): a statement that names the old value
 * and a new one with one of these changes the attribute, whichever words name it.
 */
const HANDOVER = new Set(['sold', 'traded', 'replaced', 'swapped', 'stolen', 'passed', 'died', 'adopted', 'handed', 'joined', 'quit', 'switched', 'instead']);

/** People a statement can be about; two statements about different ones are not one attribute. */
const HOLDERS = new Set([
  'sister', 'brother', 'mum', 'mom', 'mother', 'dad', 'father', 'son', 'daughter', 'friend', 'colleague', 'neighbour', 'neighbor',
  'aunt', 'uncle', 'cousin', 'grandma', 'grandpa', 'grandmother', 'grandfather', 'niece', 'nephew', 'flatmate', 'roommate', 'boss', 'wife', 'husband', 'partner', 'kids', 'children',
]);

/** Words before an attribute's name that do not make it another attribute ("my new manager"). */
const NEUTRAL_MODIFIERS = new Set(['my', 'our', 'your', 'his', 'her', 'their', 'its', 'the', 'a', 'an', 'new', 'current', 'old', 'former', 'previous', 'line', 'user', 'users', 'is', 'now', 'i', 'we', 'and', 'to', 'at', 'in', 'on', 'with', 'for', 'of', 'from', 's']);

/** The plain word after a statement's first value of a kind (its unit: "8 engineers"), if any. */
function unitOf(v: StatementView, kind: string): string | undefined {
  const at = v.seq.findIndex((_, i) => v.kinds[i] !== null && comparableKind(v.kinds[i]!) === kind);
  const next = at >= 0 ? at + 1 : -1;
  return next > 0 && next < v.seq.length && v.kinds[next] === null && !v.named.has(next) ? v.seq[next] : undefined;
}

/** Longest statement read, in words: attributes are short facts, not paragraphs. */
export const MAX_ATTRIBUTE_WORDS = 24;

const words = (text: string): string[] => text.toLowerCase().replace(/['’]s\b/g, '').match(/[\p{L}\p{N}-]+/gu) ?? [];

/** The attribute families a statement names. */
export function attributesOf(text: string): Set<string> {
  const w = new Set(words(text));
  const out = new Set<string>();
  for (const [family, names] of Object.entries(ATTRIBUTE_FAMILIES)) if (names.some((n) => w.has(n))) out.add(family);
  return out;
}

/**
 * Whether `newerText` changes an attribute `olderText` holds (see the module comment): the changed
 * values as `older → newer`, or null. Different holders ("my sister lives in York" / "I live in
 * Leeds"), an added value ("also", "too") or a statement longer than {@link MAX_ATTRIBUTE_WORDS}
 * are never one.
 */
export function attributeChange(olderText: string, newerText: string): { attribute: string; detail: string } | null {
  const [ow, nw] = [words(olderText), words(newerText)];
  if (ow.length > MAX_ATTRIBUTE_WORDS || nw.length > MAX_ATTRIBUTE_WORDS) return null;
  const shared = [...attributesOf(olderText)].filter((f) => attributesOf(newerText).has(f));
  const handover = nw.some((w) => HANDOVER.has(w));
  if (shared.length === 0 && !handover) return null;
  // A holder word names the attribute itself when it is the shared one ("my partner is Alex").
  const named = new Set(shared.flatMap((f) => ATTRIBUTE_FAMILIES[f]!));
  const holders = (ws: string[]): string => [...new Set(ws.filter((w) => HOLDERS.has(w) && !named.has(w)))].sort().join(' ');
  if (holders(ow) !== holders(nw)) return null;
  // "The product manager for search …" / "… for payments …": another holder of the attribute.
  const qualifier = (ws: string[]): string | undefined => ws[ws.indexOf('for') + 1];
  if (ow.includes('for') && nw.includes('for') && qualifier(ow) !== qualifier(nw)) return null;
  // "The project lead …" / "The tech lead …": another attribute of the same family.
  const common = ow.find((w) => named.has(w) && nw.includes(w));
  const modifier = (ws: string[]): string | undefined => {
    const at = common === undefined ? -1 : ws.indexOf(common);
    return at > 0 ? ws[at - 1] : undefined;
  };
  const [ma, mb] = [modifier(ow), modifier(nw)];
  if (ma && mb && ma !== mb && !NEUTRAL_MODIFIERS.has(ma) && !NEUTRAL_MODIFIERS.has(mb)) return null;
  const [a, b] = [contentTokens(olderText), contentTokens(newerText)];
  if (b.additive && !b.change) return null;
  const [va, vb] = [valueSlots(a), valueSlots(b)];
  // A name at the start of a sentence is not written as one; the other statement says it is.
  const recognise = (v: StatementView, own: Map<string, Set<string>>, other: Map<string, Set<string>>): void => {
    const names = other.get('name');
    if (!names) return;
    for (const w of v.seq) if (names.has(w)) own.set('name', (own.get('name') ?? new Set()).add(w));
  };
  recognise(a, va, vb);
  recognise(b, vb, va);
  const says = b.change || nw.some((w) => REPLACING.has(w) || HANDOVER.has(w));
  for (const [kind, newer] of vb) {
    const older = va.get(kind);
    // A colour tells things apart more often than it changes ("a black dog" / "a brown dog").
    if (!older || kind === 'colour') continue;
    // "8 engineers" / "2 designers": numbers of different things.
    if (kind !== 'name' && unitOf(a, kind) !== unitOf(b, kind)) continue;
    const gained = [...newer].filter((x) => !older.has(x));
    const lost = [...older].filter((x) => !newer.has(x));
    if (gained.length === 0 || (lost.length === 0 && !says)) continue;
    // Without a shared attribute word, only a handover of a value the older names.
    if (shared.length === 0 && lost.length === older.size) continue;
    return { attribute: shared[0] ?? 'handover', detail: `${(lost.length ? lost : [...older]).join(' ')} → ${gained.join(' ')}` };
  }
  return null;
}
