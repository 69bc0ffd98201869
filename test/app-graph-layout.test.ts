import { describe, expect, it } from 'vitest';
import { layoutGraph, relColor, truncateLabel, CENTER_RADIUS, NODE_RADIUS } from '../src/app/lib/graph-layout.ts';
import { LINK_VOCABULARY } from '../src/core/graph.ts';

const nodes = [
  { id: 'c', text: 'The billing service is written in Go and owned by the payments team.' },
  { id: 'a', text: 'Invoices are generated nightly.' },
  { id: 'b', text: 'Billing talks to Postgres through the pgx driver.' },
  { id: 'd', text: '<b>Stripe</b> webhooks land in the billing queue first.' },
  { id: 'e', text: 'short' },
];
const edges = [
  { from: 'c', to: 'a', rel: 'related' },
  { from: 'b', to: 'c', rel: 'supports' },
  { from: 'c', to: 'd', rel: 'example_of' },
  { from: 'a', to: 'd', rel: 'causes' },
  { from: 'c', to: 'a', rel: 'refines' },
  { from: 'c', to: 'missing', rel: 'related' },
];

describe('neighbourhood graph layout', () => {
  it('is deterministic, keeps the centre in the middle and every node and label inside the box', () => {
    const one = layoutGraph('c', nodes, edges, { width: 320, height: 260 });
    const two = layoutGraph('c', nodes, edges, { width: 320, height: 260 });
    expect(one).toEqual(two);
    const center = one.nodes.find((n) => n.center)!;
    expect(center.id).toBe('c');
    expect([center.x, center.y]).toEqual([160, 130]);
    for (const n of one.nodes) {
      expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
      expect(n.x).toBeGreaterThanOrEqual(0);
      expect(n.x).toBeLessThanOrEqual(320);
      expect(n.y).toBeGreaterThanOrEqual(0);
      expect(n.y).toBeLessThanOrEqual(260);
      // The label's estimated extent stays inside the box.
      const half = (n.label.length * 6.6) / 2;
      expect(n.lx - half).toBeGreaterThanOrEqual(1);
      expect(n.lx + half).toBeLessThanOrEqual(319 + (n.center ? n.label.length * 0.3 : 0));
    }
  });

  it('spreads the neighbours apart (no two nodes on top of each other)', () => {
    const { nodes: placed } = layoutGraph('c', nodes, edges, { width: 340, height: 260 });
    for (let i = 0; i < placed.length; i++) {
      for (let j = i + 1; j < placed.length; j++) {
        expect(Math.hypot(placed[i]!.x - placed[j]!.x, placed[i]!.y - placed[j]!.y)).toBeGreaterThan(2 * NODE_RADIUS + 8);
      }
    }
  });

  it('drops edges to nodes outside the picture and ends each line at its target’s rim', () => {
    const layout = layoutGraph('c', nodes, edges);
    expect(layout.edges.map((e) => `${e.from}>${e.to}:${e.rel}`)).toEqual(['c>a:related', 'b>c:supports', 'c>d:example_of', 'a>d:causes', 'c>a:refines']);
    for (const e of layout.edges) {
      const target = layout.nodes.find((n) => n.id === e.to)!;
      const r = target.center ? CENTER_RADIUS : NODE_RADIUS;
      expect(Math.hypot(e.x2 - target.x, e.y2 - target.y)).toBeCloseTo(r + 3, 0);
    }
    // Two relations between c and a: their labels do not sit on the same spot.
    const [first, second] = layout.edges.filter((e) => e.from === 'c' && e.to === 'a');
    expect(first!.ly).not.toBe(second!.ly);
  });

  it('handles a lone node and a single neighbour', () => {
    expect(layoutGraph('c', nodes.slice(0, 1), []).nodes).toHaveLength(1);
    const pair = layoutGraph('c', nodes.slice(0, 2), edges.slice(0, 1), { width: 300, height: 220 });
    expect(pair.nodes.every((n) => Number.isFinite(n.x) && Number.isFinite(n.y))).toBe(true);
    expect(pair.edges).toHaveLength(1);
  });
});

describe('labels and colours', () => {
  it('cuts long text on a word boundary with an ellipsis and leaves short text alone', () => {
    expect(truncateLabel('short')).toBe('short');
    expect(truncateLabel('The billing service is written in Go', 24)).toBe('The billing service is…');
    expect(truncateLabel('Supercalifragilisticexpialidocious', 12)).toBe('Supercalifr…');
    expect(truncateLabel('  spread\n over\tlines  ')).toBe('spread over lines');
    for (const max of [8, 18, 24]) expect(truncateLabel(nodes[0]!.text, max).length).toBeLessThanOrEqual(max);
  });

  it('gives each vocabulary relation its own colour and a custom relation a stable one', () => {
    const colours = LINK_VOCABULARY.map(relColor);
    expect(new Set(colours).size).toBe(LINK_VOCABULARY.length);
    expect(relColor('my-own-rel')).toBe(relColor('my-own-rel'));
    expect(relColor('my-own-rel')).toMatch(/^#[0-9a-f]{6}$/);
  });
});
