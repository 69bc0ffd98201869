import { describe, expect, it } from 'vitest';
import { layoutGraph, relColor, truncateLabel, wrapLabel, CENTER_RADIUS, CHAR_WIDTH, LINE_HEIGHT, NODE_RADIUS } from '../src/app/lib/graph-layout.ts';
import { LINK_VOCABULARY } from '../src/core/domain/graph.ts';

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

type Box = { x0: number; x1: number; y0: number; y1: number };
const overlap = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
const nodeLabelBox = (n: { lines: string[]; lx: number; ly: number }): Box => {
  const half = (Math.max(...n.lines.map((l) => l.length)) * CHAR_WIDTH) / 2;
  return { x0: n.lx - half, x1: n.lx + half, y0: n.ly - 11, y1: n.ly + 3 + (n.lines.length - 1) * LINE_HEIGHT };
};
const edgeLabelBox = (e: { rel: string; lx: number; ly: number }): Box => {
  const half = (e.rel.length * 6.2) / 2 + 3;
  return { x0: e.lx - half, x1: e.lx + half, y0: e.ly - 10, y1: e.ly + 3 };
};

describe('neighbourhood graph layout', () => {
  it('is deterministic and keeps every node and every label inside the box', () => {
    const one = layoutGraph('c', nodes, edges, { width: 320, height: 300 });
    const two = layoutGraph('c', nodes, edges, { width: 320, height: 300 });
    expect(one).toEqual(two);
    expect(one.nodes.find((n) => n.center)!.id).toBe('c');
    for (const n of one.nodes) {
      expect(Number.isFinite(n.x) && Number.isFinite(n.y)).toBe(true);
      const box = nodeLabelBox(n);
      expect(box.x0).toBeGreaterThanOrEqual(0);
      expect(box.x1).toBeLessThanOrEqual(320);
      expect(box.y0).toBeGreaterThanOrEqual(0);
      expect(box.y1).toBeLessThanOrEqual(300);
    }
  });

  it('fills the canvas: the nodes spread over most of its width and height', () => {
    for (const [width, height] of [[560, 330], [320, 300]] as const) {
      const { nodes: placed } = layoutGraph('c', nodes, edges, { width, height, lineLength: width < 420 ? 20 : 26 });
      const xs = placed.map((n) => n.x);
      const ys = placed.map((n) => n.y);
      const widest = Math.max(...placed.map((n) => (Math.max(...n.lines.map((l) => l.length)) * CHAR_WIDTH) / 2));
      // The spread, plus the room the labels need at the sides and below, covers the box.
      expect(Math.max(...xs) - Math.min(...xs) + 2 * widest).toBeGreaterThan(0.85 * width);
      expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(0.45 * height);
    }
  });

  it('spreads the neighbours apart (no two nodes on top of each other)', () => {
    const { nodes: placed } = layoutGraph('c', nodes, edges, { width: 340, height: 300 });
    for (let i = 0; i < placed.length; i++) {
      for (let j = i + 1; j < placed.length; j++) {
        expect(Math.hypot(placed[i]!.x - placed[j]!.x, placed[i]!.y - placed[j]!.y)).toBeGreaterThan(2 * NODE_RADIUS + 8);
      }
    }
  });

  it('labels edges only where the label overlaps nothing and stays inside the box', () => {
    for (const [width, height] of [[560, 330], [300, 260]] as const) {
      const layout = layoutGraph('c', nodes, edges, { width, height });
      const labelled = layout.edges.filter((e) => e.labelled);
      // Room for most labels on a desktop-sized canvas; on a small one the legend names the rest.
      if (width > 500) expect(labelled.length).toBeGreaterThanOrEqual(3);
      const boxes = labelled.map(edgeLabelBox);
      for (const [i, b] of boxes.entries()) {
        expect(b.x0).toBeGreaterThanOrEqual(0);
        expect(b.x1).toBeLessThanOrEqual(width);
        for (const other of boxes.slice(i + 1)) expect(overlap(b, other)).toBe(false);
        for (const n of layout.nodes) expect(overlap(b, nodeLabelBox(n))).toBe(false);
      }
    }
  });

  it('wraps node labels to two lines of whole words', () => {
    const layout = layoutGraph('c', nodes, edges, { width: 560, height: 330, lineLength: 26 });
    const c = layout.nodes.find((n) => n.id === 'c')!;
    expect(c.lines).toEqual(['The billing service is', 'written in Go and owned…']);
    expect(layout.nodes.find((n) => n.id === 'e')!.lines).toEqual(['short']);
    expect(wrapLabel('Invoices are generated nightly.', 26)).toEqual(['Invoices are generated', 'nightly.']);
  });

  it('drops edges to nodes outside the picture and ends each line at its target’s rim', () => {
    const layout = layoutGraph('c', nodes, edges);
    expect(layout.edges.map((e) => `${e.from}>${e.to}:${e.rel}`)).toEqual(['c>a:related', 'b>c:supports', 'c>d:example_of', 'a>d:causes', 'c>a:refines']);
    for (const e of layout.edges) {
      const target = layout.nodes.find((n) => n.id === e.to)!;
      const r = target.center ? CENTER_RADIUS : NODE_RADIUS;
      expect(Math.hypot(e.x2 - target.x, e.y2 - target.y)).toBeCloseTo(r + 3, 0);
    }
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
