import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import {
  bandPanelsSvg,
  colourScale,
  heatmapSvg,
  intervalChartSvg,
  lineChartSvg,
  SERIES_COLOURS,
} from '../publish/figures.ts';

type Spec = Record<string, unknown>;

/** Every object in a spec with a given key, depth first. */
function withKey(value: unknown, key: string, found: Spec[] = []): Spec[] {
  if (Array.isArray(value)) for (const item of value) withKey(item, key, found);
  else if (typeof value === 'object' && value !== null) {
    if (key in value) found.push(value as Spec);
    for (const item of Object.values(value)) withKey(item, key, found);
  }
  return found;
}

/** The colour each series gets in a spec: its colour encodings' scale, domain to range. */
function seriesColours(spec: Spec): Record<string, string> {
  const colours: Record<string, string> = {};
  for (const { color } of withKey(spec, 'color')) {
    const scale = (color as { scale?: { domain?: string[]; range?: string[] } } | string).valueOf() as {
      scale?: { domain?: string[]; range?: string[] };
    };
    scale.scale?.domain?.forEach((name, i) => (colours[name] = scale.scale!.range![i]!));
  }
  return colours;
}

const band = (name: string, ks: number[]) => ({
  name,
  points: ks.map((k) => ({ x: k, y: 0.5, low: 0.4, high: 0.6 })),
});

describe('one colour map', () => {
  it('a series has the same colour in every figure, whatever else is beside it', async () => {
    const profiles = await bandPanelsSvg([
      {
        title: 'p',
        xTitle: 'tau',
        yTitle: 'share',
        series: ['step 0', 'step 20', 'step 80'].map((n) => band(n, [0, 0.5])),
      },
    ]);
    const passk = await bandPanelsSvg([
      {
        title: 'k',
        xTitle: 'k',
        yTitle: 'pass@k',
        series: ['step 0', 'step 80'].map((n) => band(n, [1, 2])),
      },
    ]);
    const bars = await intervalChartSvg({
      title: 'b',
      xTitle: '',
      yTitle: 'y',
      points: ['step 80', 'step 0'].map((series) => ({
        group: 'g',
        series,
        estimate: 0.5,
        low: 0.4,
        high: 0.6,
      })),
    });
    const lines = await lineChartSvg({
      title: 'l',
      xTitle: 'x',
      yTitle: 'y',
      series: [{ name: 'step 80: 2/64', points: [{ x: 1, y: 0.1 }] }],
    });
    for (const figure of [profiles, passk, bars]) {
      expect(seriesColours(figure.spec)['step 80']).toBe(SERIES_COLOURS['step 80']);
      expect(seriesColours(figure.spec)['step 0']).toBe(SERIES_COLOURS['step 0']);
    }
    expect(seriesColours(lines.spec)['step 80: 2/64']).toBe(SERIES_COLOURS['step 80']);
    // In the SVG too: the step-80 line is drawn in its colour in both figures.
    expect(profiles.svg).toContain(`stroke="${SERIES_COLOURS['step 80']}"`);
    expect(passk.svg).toContain(`stroke="${SERIES_COLOURS['step 80']}"`);
  });

  it('other names keep a colour chosen by the name, distinct within a figure', () => {
    const one = colourScale(['speed', 'tail', 'is_odd']);
    const other = colourScale(['is_odd', 'speed']);
    expect(one.range[0]).toBe(other.range[1]);
    expect(one.range[2]).toBe(other.range[0]);
    const many = colourScale(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'step 0']);
    expect(new Set(many.range).size).toBe(many.range.length);
  });
});

describe('tooltips', () => {
  it('an integer field (k, a step) prints as an integer, a rate with three decimals', async () => {
    const figure = await bandPanelsSvg([
      { title: 't', xTitle: 'k', yTitle: 'pass@k', series: [band('step 0', [1, 2, 4, 8])] },
    ]);
    const tips = withKey(figure.spec, 'tooltip').flatMap(({ tooltip }) => tooltip as Spec[]);
    const xFormats = tips.filter((tip) => tip['field'] === 'x').map((tip) => tip['format']);
    expect(xFormats.length).toBeGreaterThan(0);
    expect(new Set(xFormats)).toEqual(new Set(['d']));
    expect(new Set(tips.filter((tip) => tip['field'] === 'y').map((tip) => tip['format']))).toEqual(
      new Set(['.3f']),
    );
  });
});

describe('the narrowing heat map', () => {
  it('diverges at zero: a fall is red, a gain blue, both ends as far from zero', async () => {
    const figure = await heatmapSvg({
      title: 'h',
      rowTitle: 'task',
      columnTitle: 'seed',
      valueTitle: 'change',
      cells: [
        { row: 'a', column: '0', value: -3 },
        { row: 'b', column: '0', value: 1 },
        { row: 'c', column: '0', value: 0 },
      ],
      divergingAt: 0,
    });
    const color = withKey(figure.spec, 'color')
      .map((entry) => entry['color'] as { field?: string; scale?: Spec })
      .find((entry) => entry.field === 'value')!;
    expect(color.scale).toEqual({ scheme: 'redblue', domain: [-3, 3], domainMid: 0 });
    const fills = [...figure.svg.matchAll(/<path[^>]*fill="(#[0-9a-f]{6}|rgb\([^)]*\))"/g)].map((m) => m[1]!);
    const rgb = (fill: string) =>
      fill.startsWith('#')
        ? [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16))
        : fill.slice(4, -1).split(',').map(Number);
    const reds = fills.map(rgb).filter(([r, , b]) => r! > b! + 40);
    const blues = fills.map(rgb).filter(([r, , b]) => b! > r! + 20);
    expect(reds.length).toBeGreaterThan(0);
    expect(blues.length).toBeGreaterThan(0);
  });
});

describe('the committed step-80 seeds figure', () => {
  const spec = JSON.parse(readFileSync(join(ROOT, 'results', 'figures', 'seeds-step80.vl.json'), 'utf8')) as {
    data: { values: Array<{ group: string; series: string; estimate: number; low: number; high: number }> };
  };
  const points = spec.data.values;

  it('shows each seed with its own interval, and the mean and IQM with theirs, side by side', () => {
    const seeds = points.filter((point) => point.series === 'seeds');
    expect(seeds.length).toBeGreaterThanOrEqual(16);
    expect(new Set(points.map((point) => point.group)).size).toBe(seeds.length + 2);
    for (const point of points) {
      expect(point.low).toBeLessThan(point.high);
      expect(point.low).toBeLessThanOrEqual(point.estimate);
      expect(point.high).toBeGreaterThanOrEqual(point.estimate);
    }
    expect(points.filter((point) => point.series !== 'seeds').map((point) => point.group)).toEqual([
      'mean',
      'IQM',
    ]);
  });
});

describe('a panel without data', () => {
  it('is refused, naming the panel: vega would size it to the largest double and push a page out of reach', async () => {
    const left = { title: 'curves', xTitle: 'k', yTitle: 'pass@k', series: [band('step 0', [1, 2, 4])] };
    await expect(
      bandPanelsSvg([left, { title: 'nothing narrows', xTitle: 'step', yTitle: 'share', series: [] }]),
    ).rejects.toThrow(/"nothing narrows" has no series/);
    const alone = await bandPanelsSvg([left]);
    expect(alone.svg).toMatch(/^<svg[^>]*width="\d{3}"/);
  });
});
