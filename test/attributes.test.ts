/**
 * Issue #50 item 3: changes beyond a value in the same words are updates — a move, a new employer
 * or manager, a car sold and another bought, a price rise, a new password — and a change of
 * someone else's attribute, or of another attribute, is not.
 */
import { describe, expect, it } from 'vitest';
import { attributeChange } from '../src/core/domain/attributes.ts';
import { comparePair } from '../src/core/domain/contradiction.ts';

describe('attribute changes', () => {
  it.each([
    ['I live in Leeds, in a flat on Kirkstall Road.', 'I moved to Sheffield last weekend; I live there now.'],
    ['I work at Acme Corp as a designer.', 'I started a new job at Globex last month.'],
    ['My manager is Priya Shah.', 'My new manager is Tom Okafor.'],
    ['I drive a blue Ford Focus.', 'I sold the Focus and bought a Honda Civic.'],
    ['The gym membership costs £30 a month.', 'The gym put its price up to £35 a month.'],
    ['The wifi password is tulip42.', 'I changed the wifi password to maple77.'],
    ['Our dog is a beagle called Biscuit.', 'Biscuit passed away; we adopted a collie called Pepper.'],
    ['Landlord: Mr Hughes', 'New landlord: Ms Adebayo'],
    ['Jon said, "My car is an old Golf."', 'Jon said, "Finally sold the Golf and got a Skoda Octavia!"'],
  ])('%s → %s is an update', (older, newer) => {
    expect(comparePair(older, newer)).toMatchObject({ kind: 'update', pattern: 'value' });
  });

  it.each([
    ['I drive a Honda Civic.', 'My partner drives a Mini.'],
    ['My sister lives in York.', 'I live in Leeds.'],
    ['I work at Globex.', 'My brother works at Initech.'],
    ['The product manager for search is Ola.', 'The product manager for payments is Ben.'],
    ['Sam said, "I moved to York."', 'Jo said, "I moved to Bath."'],
    ['I live in Leeds.', 'I love the Leeds music scene.'],
    ['I bank with Monzo.', 'My savings are with Nationwide as well.'],
  ])('%s / %s is not', (older, newer) => {
    // A chat turn is read by its speaker first (comparePair): two speakers, two people.
    if (!older.includes(' said, ')) expect(attributeChange(older, newer)).toBeNull();
    expect(comparePair(older, newer)?.kind).not.toBe('update');
  });
});
