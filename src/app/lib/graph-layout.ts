/**
 * The neighbourhood graph's layout: d3-force run synchronously for a fixed number of ticks (no
 * animation), the current memory pinned in the middle, then every position scaled into a fixed
 * viewBox so labels keep their size whatever the graph's spread. Pure and deterministic: d3-force
 * seeds its own jiggle, and the initial positions are a fixed circle.
 */
import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY, type SimulationLinkDatum, type SimulationNodeDatum } from 'd3-force';

export interface GraphInputNode {
  id: string;
  text: string;
}

export interface GraphInputEdge {
  from: string;
  to: string;
  rel: string;
}

export interface PlacedNode {
  id: string;
  text: string;
  /** The text cut to a short label (whole words when it can, an ellipsis when cut). */
  label: string;
  x: number;
  y: number;
  /** Where the label's centre sits: under the node, moved in from the sides so it is never cut. */
  lx: number;
  ly: number;
  center: boolean;
}

export interface PlacedEdge {
  from: string;
  to: string;
  rel: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Where the edge's label sits (the middle, nudged apart for parallel edges). */
  lx: number;
  ly: number;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

export const NODE_RADIUS = 9;
/** A generous average glyph width of the 11.5 px label font, to keep labels inside the box. */
const CHAR_WIDTH = 6.6;
export const CENTER_RADIUS = 13;
const TICKS = 300;

/** Cuts `text` to at most `max` characters, on a word boundary when one is near, with an ellipsis. */
export function truncateLabel(text: string, max = 22): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

interface SimNode extends SimulationNodeDatum {
  id: string;
}

/**
 * Places `nodes` (the one whose id is `centerId` in the middle) and `edges` inside a
 * `width × height` box, leaving `pad` around it for labels. Edges whose ends are not both among
 * `nodes` are dropped.
 */
export function layoutGraph(
  centerId: string,
  nodes: readonly GraphInputNode[],
  edges: readonly GraphInputEdge[],
  options: { width?: number; height?: number; pad?: number; labelLength?: number } = {},
): GraphLayout {
  const width = options.width ?? 340;
  const height = options.height ?? 250;
  const pad = options.pad ?? 30;
  const ids = new Set(nodes.map((n) => n.id));
  const kept = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);

  // A fixed circle to start from: the same input always gives the same picture.
  const others = nodes.filter((n) => n.id !== centerId);
  const sim: SimNode[] = nodes.map((n) => {
    if (n.id === centerId) return { id: n.id, x: 0, y: 0, fx: 0, fy: 0 };
    const i = others.indexOf(n);
    const angle = (2 * Math.PI * i) / Math.max(1, others.length) - Math.PI / 2;
    return { id: n.id, x: 80 * Math.cos(angle), y: 80 * Math.sin(angle) };
  });
  // One spring per connected pair, however many relations join them.
  const pairs = new Map<string, SimulationLinkDatum<SimNode>>();
  for (const e of kept) {
    const key = [e.from, e.to].sort().join('\u0000');
    if (!pairs.has(key)) pairs.set(key, { source: e.from, target: e.to });
  }
  const simulation = forceSimulation<SimNode>(sim)
    .force('link', forceLink<SimNode, SimulationLinkDatum<SimNode>>([...pairs.values()]).id((d) => d.id).distance(85).strength(0.6))
    .force('charge', forceManyBody<SimNode>().strength(-260))
    .force('collide', forceCollide<SimNode>(34))
    .force('x', forceX<SimNode>(0).strength(0.04))
    // The box is wider than tall: pull harder vertically.
    .force('y', forceY<SimNode>(0).strength(0.09))
    .stop();
  simulation.tick(TICKS);

  // Scale into the box, keeping the centre node in the middle (so the picture is stable when
  // one neighbour is added) and the aspect ratio.
  let spanX = 1;
  let spanY = 1;
  for (const n of sim) {
    spanX = Math.max(spanX, Math.abs(n.x ?? 0));
    spanY = Math.max(spanY, Math.abs(n.y ?? 0));
  }
  const scale = Math.min((width / 2 - pad) / spanX, (height / 2 - pad) / spanY, 2.2);
  const position = new Map<string, { x: number; y: number }>();
  for (const n of sim) position.set(n.id, { x: round(width / 2 + (n.x ?? 0) * scale), y: round(height / 2 + (n.y ?? 0) * scale) });

  // Labels go on the side away from the centre, where the edges are not; the centre's label
  // goes on the side with fewer neighbours.
  const cy = height / 2;
  const above = [...position.entries()].filter(([id, p]) => id !== centerId && p.y < cy - 4).length;
  const below = [...position.entries()].filter(([id, p]) => id !== centerId && p.y > cy + 4).length;
  const placed: PlacedNode[] = nodes.map((n) => {
    const label = truncateLabel(n.text, options.labelLength ?? 22);
    const { x, y } = position.get(n.id)!;
    const center = n.id === centerId;
    const r = center ? CENTER_RADIUS : NODE_RADIUS;
    const labelAbove = center ? above < below : y < cy - 4;
    const half = Math.min(width / 2 - 2, (label.length * CHAR_WIDTH * (center ? 1.08 : 1)) / 2);
    return {
      id: n.id,
      text: n.text,
      label,
      x,
      y,
      lx: round(Math.min(width - 2 - half, Math.max(2 + half, x))),
      ly: round(labelAbove ? y - r - 7 : y + r + 14),
      center,
    };
  });

  // Edge labels sit nearer the far end of an edge from the centre (the middle is crowded), and
  // parallel edges (several relations between one pair) get theirs stacked apart.
  const seen = new Map<string, number>();
  const placedEdges: PlacedEdge[] = kept.map((e) => {
    const a = position.get(e.from)!;
    const b = position.get(e.to)!;
    const key = [e.from, e.to].sort().join('\u0000');
    const k = seen.get(key) ?? 0;
    seen.set(key, k + 1);
    // Stop the line at the target's rim so the arrowhead shows.
    const r = (e.to === centerId ? CENTER_RADIUS : NODE_RADIUS) + 3;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const t = e.from === centerId ? 0.6 : e.to === centerId ? 0.4 : 0.5;
    return {
      ...e,
      x1: a.x,
      y1: a.y,
      x2: round(b.x - (dx / len) * r),
      y2: round(b.y - (dy / len) * r),
      lx: round(a.x + dx * t),
      ly: round(a.y + dy * t + k * 12),
    };
  });
  return { width, height, nodes: placed, edges: placedEdges };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

const REL_COLORS: Record<string, string> = {
  related: '#6f7890',
  supersedes: '#b3261e',
  refines: '#3f8f7a',
  derived_from: '#8b5fbf',
  example_of: '#2f6fed',
  contradicts: '#d0601b',
  causes: '#a87708',
  supports: '#2e7d32',
  promoted_from: '#9a4f7c',
};
const EXTRA_COLORS = ['#1d7a8c', '#7a5c1d', '#5b6bd6', '#b0487a', '#4d7f2a'];

/** One colour per relation: the vocabulary's own, and a stable pick from a palette for custom rels. */
export function relColor(rel: string): string {
  const known = REL_COLORS[rel];
  if (known) return known;
  let h = 0;
  for (let i = 0; i < rel.length; i++) h = (Math.imul(h, 31) + rel.charCodeAt(i)) >>> 0;
  return EXTRA_COLORS[h % EXTRA_COLORS.length]!;
}
