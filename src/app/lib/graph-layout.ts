/**
 * The neighbourhood graph's layout: d3-force run synchronously for a fixed number of ticks (no
 * animation), the current memory pinned at the origin, then the whole drawing — node labels
 * included — fitted to the box on each axis, so the graph fills the canvas instead of huddling in
 * its middle. Node labels wrap to two lines; edge labels go where they overlap nothing (a node, a
 * label, another edge label) and inside the box, or are left to the legend. Pure and
 * deterministic: d3-force seeds its own jiggle, and the initial positions are a fixed circle.
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
  /** The label wrapped into at most two lines. */
  lines: string[];
  x: number;
  y: number;
  /** Where the label's first line is centred (its baseline); the lines go down from there. */
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
  /** Where the edge's label sits, when it has room (`labelled`); else the legend names the colour. */
  lx: number;
  ly: number;
  labelled: boolean;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

export const NODE_RADIUS = 9;
export const CENTER_RADIUS = 13;
/** A generous average glyph width of the 12 px label font, to keep labels inside the box. */
export const CHAR_WIDTH = 6.8;
/** Line height of node labels. */
export const LINE_HEIGHT = 14;
const EDGE_CHAR_WIDTH = 6.2;
const TICKS = 300;

/** Cuts `text` to at most `max` characters, on a word boundary when one is near, with an ellipsis. */
export function truncateLabel(text: string, max = 22): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Wraps `text` into at most `maxLines` lines of at most `lineLength` characters, the last cut with an ellipsis. */
export function wrapLabel(text: string, lineLength = 26, maxLines = 2): string[] {
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = line ? `${line} ${word}` : word;
    if (next.length <= lineLength) {
      line = next;
      continue;
    }
    if (lines.length === maxLines - 1) {
      // The last line: what is left, cut with an ellipsis.
      lines.push(truncateLabel(words.slice(i - (line ? line.split(' ').length : 0)).join(' '), lineLength));
      return lines;
    }
    lines.push(line || truncateLabel(word, lineLength));
    line = line ? (word.length <= lineLength ? word : truncateLabel(word, lineLength)) : '';
  }
  if (line) lines.push(line);
  return lines.length ? lines : [''];
}

interface SimNode extends SimulationNodeDatum {
  id: string;
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const overlaps = (a: Box, b: Box): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/** Whether the segment a–b passes through `box` (sampled finely enough for label-sized boxes). */
function segmentHitsBox(a: { x: number; y: number }, b: { x: number; y: number }, box: Box): boolean {
  const steps = Math.max(2, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 4));
  for (let i = 1; i < steps; i++) {
    const x = a.x + ((b.x - a.x) * i) / steps;
    const y = a.y + ((b.y - a.y) * i) / steps;
    if (x > box.x0 && x < box.x1 && y > box.y0 && y < box.y1) return true;
  }
  return false;
}

function labelBox(lines: string[], lx: number, ly: number): Box {
  const half = (Math.max(...lines.map((l) => l.length)) * CHAR_WIDTH) / 2;
  return { x0: lx - half, x1: lx + half, y0: ly - 11, y1: ly + 3 + (lines.length - 1) * LINE_HEIGHT };
}

/**
 * Places `nodes` (the one whose id is `centerId` drawn larger) and `edges` inside a
 * `width × height` box with `pad` around it. Edges whose ends are not both among `nodes` are
 * dropped.
 */
export function layoutGraph(
  centerId: string,
  nodes: readonly GraphInputNode[],
  edges: readonly GraphInputEdge[],
  options: { width?: number; height?: number; pad?: number; lineLength?: number } = {},
): GraphLayout {
  const width = options.width ?? 340;
  const height = options.height ?? 250;
  const pad = options.pad ?? 8;
  const lineLength = options.lineLength ?? 26;
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
    .force('link', forceLink<SimNode, SimulationLinkDatum<SimNode>>([...pairs.values()]).id((d) => d.id).distance(90).strength(0.5))
    .force('charge', forceManyBody<SimNode>().strength(-320))
    .force('collide', forceCollide<SimNode>(40))
    .force('x', forceX<SimNode>(0).strength(0.03))
    .force('y', forceY<SimNode>(0).strength(0.05))
    .stop();
  simulation.tick(TICKS);

  // Labels first (their size decides how far the nodes may go), then fit the drawing on each axis.
  const lines = new Map(nodes.map((n) => [n.id, wrapLabel(n.text, lineLength)]));
  const halfLabel = new Map(nodes.map((n) => [n.id, (Math.max(...lines.get(n.id)!.map((l) => l.length)) * CHAR_WIDTH) / 2]));
  const labelDown = (id: string): number => (id === centerId ? CENTER_RADIUS : NODE_RADIUS) + 4 + lines.get(id)!.length * LINE_HEIGHT;
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (const n of sim) {
    minX = Math.min(minX, n.x!);
    maxX = Math.max(maxX, n.x!);
    minY = Math.min(minY, n.y!);
    maxY = Math.max(maxY, n.y!);
  }
  // Room each side for the widest label and the tallest label under a node.
  const widest = Math.max(...halfLabel.values());
  const room = { left: pad + widest, right: pad + widest, top: pad + CENTER_RADIUS + 4, bottom: pad + Math.max(...nodes.map((n) => labelDown(n.id))) };
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  const availX = Math.max(1, width - room.left - room.right);
  const availY = Math.max(1, height - room.top - room.bottom);
  let sx = spanX > 1 ? availX / spanX : 1;
  let sy = spanY > 1 ? availY / spanY : 1;
  // Stretch to fill, but not into a distorted picture: neither axis more than 2.5× the other.
  if (spanX <= 1) sx = sy;
  if (spanY <= 1) sy = sx;
  sx = Math.min(sx, sy * 2.5);
  sy = Math.min(sy, sx * 2.5);
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  const position = new Map<string, { x: number; y: number }>();
  for (const n of sim) {
    position.set(n.id, {
      x: round(room.left + availX / 2 + (n.x! - cx) * sx),
      y: round(room.top + availY / 2 + (n.y! - cy) * sy),
    });
  }

  // Each label goes where it crosses least: under its node by default, else above it, or (the
  // centre, whose edges leave in every direction) beside it — never outside the box, and away
  // from the labels already placed and from the edges.
  const segments = kept.map((e) => [position.get(e.from)!, position.get(e.to)!] as const);
  const crossings = (box: Box): number => segments.filter(([a, b]) => segmentHitsBox(a, b, box)).length;
  const placedBoxes: Box[] = [];
  // The centre first (it has the most edges around it), then the others in order.
  const order = [...nodes].sort((a, b) => (a.id === centerId ? -1 : b.id === centerId ? 1 : 0));
  const placedById = new Map<string, PlacedNode>();
  for (const n of order) {
    const { x, y } = position.get(n.id)!;
    const center = n.id === centerId;
    const r = center ? CENTER_RADIUS : NODE_RADIUS;
    const nodeLines = lines.get(n.id)!;
    const half = halfLabel.get(n.id)!;
    const clampX = (lx: number): number => round(Math.min(width - 2 - half, Math.max(2 + half, lx)));
    const extra = (nodeLines.length - 1) * LINE_HEIGHT;
    const candidates = [
      { lx: clampX(x), ly: round(y + r + 14) },
      { lx: clampX(x), ly: round(y - r - 7 - extra) },
      { lx: clampX(x + r + 8 + half), ly: round(y + 4 - extra / 2) },
      { lx: clampX(x - r - 8 - half), ly: round(y + 4 - extra / 2) },
      // Diagonals: beside an edge that leaves straight down or up.
      { lx: clampX(x + r + half - 4), ly: round(y + r + 12) },
      { lx: clampX(x - r - half + 4), ly: round(y + r + 12) },
      { lx: clampX(x + r + half - 4), ly: round(y - r - 6 - extra) },
      { lx: clampX(x - r - half + 4), ly: round(y - r - 6 - extra) },
      { lx: clampX(x), ly: round(y + r + 14 + LINE_HEIGHT) },
    ];
    let best = candidates[0]!;
    let bestScore = Infinity;
    for (const [i, c] of candidates.entries()) {
      const box = labelBox(nodeLines, c.lx, c.ly);
      if (box.y0 < 0 || box.y1 > height) continue;
      const score = placedBoxes.filter((b) => overlaps(b, box)).length * 10 + crossings(box) + i * 0.1;
      if (score < bestScore) {
        bestScore = score;
        best = c;
      }
    }
    placedBoxes.push(labelBox(nodeLines, best.lx, best.ly));
    placedById.set(n.id, { id: n.id, text: n.text, label: nodeLines.join(' '), lines: nodeLines, x, y, lx: best.lx, ly: best.ly, center });
  }
  const placed = nodes.map((n) => placedById.get(n.id)!);

  // Edge labels: the first free spot along the edge, or none.
  const obstacles: Box[] = [
    ...placedBoxes,
    ...placed.map((n) => {
      const r = (n.center ? CENTER_RADIUS : NODE_RADIUS) + 2;
      return { x0: n.x - r, x1: n.x + r, y0: n.y - r, y1: n.y + r };
    }),
  ];
  const placedEdges: PlacedEdge[] = kept.map((e) => {
    const a = position.get(e.from)!;
    const b = position.get(e.to)!;
    // Stop the line at the target's rim so the arrowhead shows.
    const r = (e.to === centerId ? CENTER_RADIUS : NODE_RADIUS) + 3;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const half = (e.rel.length * EDGE_CHAR_WIDTH) / 2 + 3;
    let spot: { lx: number; ly: number } | null = null;
    for (const t of [0.5, 0.38, 0.62, 0.28, 0.72]) {
      const lx = round(a.x + dx * t);
      const ly = round(a.y + dy * t - 3);
      const box = { x0: lx - half, x1: lx + half, y0: ly - 10, y1: ly + 3 };
      if (box.x0 < 0 || box.x1 > width || box.y0 < 0 || box.y1 > height) continue;
      if (obstacles.some((o) => overlaps(o, box))) continue;
      obstacles.push(box);
      spot = { lx, ly };
      break;
    }
    return {
      ...e,
      x1: a.x,
      y1: a.y,
      x2: round(b.x - (dx / len) * r),
      y2: round(b.y - (dy / len) * r),
      lx: spot?.lx ?? round(a.x + dx / 2),
      ly: spot?.ly ?? round(a.y + dy / 2),
      labelled: spot !== null,
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
