/**
 * Stop words: words that carry no topic of their own, so they neither score in BM25 nor get
 * highlighted. Written for this project (not copied from a published list): English function
 * words, question words, auxiliaries and the apostrophe-less contractions the tokeniser makes
 * ("don't" → "dont"), plus the commonest function words of German, French and Spanish that are
 * not also English content words ("die", "war", "man", "son", "est", "con" stay searchable).
 * Negations are stop words here too: for matching they are noise ("not" matches every rule), and
 * contradiction detection reads them from the reference tokeniser, not from these terms.
 *
 * CJK text is tokenised into character bigrams; `CJK_FUNCTION_CHARACTERS` are the particles and
 * function characters of Japanese and Chinese whose bigrams are dropped ("京の", "の天").
 */

const ENGLISH = `
a about above after again against all almost along already also although always am among an and
another any anybody anyone anything anyway anywhere are around as at away be became because become
becomes been before behind being below beside besides between beyond both but by can cannot could
did do does doing done down during each either else elsewhere enough etc even ever every everybody
everyone everything everywhere few for from further furthermore had has have having he hence her
here hers herself him himself his how however i if in indeed into is it its itself just least less
let lets many may maybe me meanwhile might mine more moreover most mostly much must my myself
namely neither never nevertheless no nobody none noone nor not nothing now nowhere of off often on
once only onto or other others otherwise our ours ourselves out over own per perhaps please
quite rather really same several shall she should since so some somebody someone something
sometime sometimes somewhat somewhere still such than that the their theirs them themselves then
there thereby therefore these they this those though through throughout thus to together too
toward towards under unless until up upon us very via was we were what whatever when whenever where
whereas wherever whether which while who whoever whom whose why will with within without
would yet you your yours yourself yourselves
aint arent cant couldnt didnt doesnt dont hadnt hasnt havent hes heres hows im isnt ive mustnt
neednt shant shes shouldnt thats theres theyd theyll theyre theyve wasnt weve werent whats whens
wheres whos whys wont wouldnt youd youll youre youve
`;

const GERMAN = `
aber alle allem allen aller alles als auch auf aus bei beim bis bist dann dass daß dein deine dem
den denn der des dich dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem
einen einer eines er es etwas euch euer eure für gegen hatte hatten ich ihm ihn ihr ihre im ist
jede jedem jeden jeder jedes jetzt kann kein keine können mein meine mich mir mit muss nach nicht
noch nur ob oder ohne sehr sein seine sich sie sind soll sollte über um und uns unser unsere unter
vom von vor war waren warum was weil welche welcher wenn wer werden wie wieder wir wird wo wurde
wurden zu zum zur zwischen
`;

const FRENCH = `
au aux avec ce ces cet cette dans de des du elle elles en et eux il ils je la le les leur leurs
lui ma mais me mes moi mon ne nos notre nous ou où par pas pour qu que qui sa se ses sur ta te tes
toi ton tu un une vos votre vous
`;

const SPANISH = `
al algo como cual cuando de del desde donde el ella ellas ellos en entre era eres es esa ese eso
esta este esto estos hay la las le les lo los mas más me mi mis muy nos nosotros o para pero por
porque que qué se sin sobre su sus también te tu tus un una uno unos y ya yo
`;

function words(...lists: string[]): Set<string> {
  const out = new Set<string>();
  for (const list of lists) for (const w of list.split(/\s+/)) if (w) out.add(w);
  return out;
}

/** Every stop word, lower-case, apostrophes removed (as the tokeniser leaves them). */
export const STOP_WORDS: ReadonlySet<string> = words(ENGLISH, GERMAN, FRENCH, SPANISH);

/** Only the English list (for callers that want it alone). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = words(ENGLISH);

/** Japanese particles and Chinese function characters whose CJK bigrams carry no topic. */
export const CJK_FUNCTION_CHARACTERS: ReadonlySet<string> = new Set([
  ...'のはがをにへとでもやかねよ',
  ...'的了是在和与及或也都就而之',
]);

export function isStopWord(token: string): boolean {
  return STOP_WORDS.has(token);
}
