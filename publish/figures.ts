import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

/**
 * A figure: its vega-lite spec (data inlined, with tooltip encodings: the values, the task or
 * series, the interval) and the SVG rendered from that spec headless. writeResults writes both,
 * `figures/NAME.svg` for the Markdown and `figures/NAME.vl.json` for the interactive report page.
 */
export interface Figure {
  svg: string;
  spec: Record<string, unknown>;
}

/**
 * A tooltip field with its title and, for numbers, three decimals as the reports print them; a
 * field whose every value in `values` is an integer (k, a step, a count) prints as one (`3`, not
 * `3.000`).
 */
function tip(
  field: string,
  title: string,
  quantitative = true,
  values: readonly object[] = [],
): Record<string, unknown> {
  if (!quantitative) return { field, type: 'nominal', title };
  const present = values
    .map((value) => (value as Record<string, unknown>)[field])
    .filter((value) => value !== undefined);
  const integers = present.length > 0 && present.every((value) => Number.isInteger(value));
  return { field, type: 'quantitative', title, format: integers ? 'd' : '.3f' };
}

/** The colours of series that appear in several figures: one series, one colour, in every figure. */
export const SERIES_COLOURS: Readonly<Record<string, string>> = {
  'step 0': '#4c78a8',
  'step 10': '#9ecae9',
  'step 20': '#f58518',
  'step 30': '#ffbf79',
  'step 40': '#54a24b',
  'step 50': '#88d27a',
  'step 60': '#b79a20',
  'step 70': '#f2cf5b',
  'step 80': '#e45756',
  'episode-level': '#439894',
  'task-level': '#b279a2',
  validation: '#d67195',
  test: '#9e765f',
  seeds: '#79706e',
  mean: '#83bcb6',
  IQM: '#d6a5c9',
};

/** Colours for the other series, none of them in SERIES_COLOURS. */
const OTHER_COLOURS =
  '#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #aec7e8 #ffbb78'.split(
    ' ',
  );

/**
 * The colour scale of a figure's series, the one map every figure uses: a series named in
 * SERIES_COLOURS (or `step N: ...`, coloured as `step N`) gets its colour; any other gets one of
 * OTHER_COLOURS chosen by its name (a hash, the next free colour when two collide in the figure),
 * so a task or an algorithm keeps its colour from figure to figure unless its figure holds a
 * colliding name.
 */
export function colourScale(names: readonly string[]): { domain: string[]; range: string[] } {
  const used = new Set<string>();
  const fixed = names.map(
    (name) => SERIES_COLOURS[name] ?? SERIES_COLOURS[/^step \d+/.exec(name)?.[0] ?? ''],
  );
  fixed.forEach((colour) => colour !== undefined && used.add(colour));
  const range = names.map((name, i) => {
    if (fixed[i] !== undefined) return fixed[i];
    let slot =
      [...name].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7) % OTHER_COLOURS.length;
    for (let tries = 0; used.has(OTHER_COLOURS[slot]!) && tries < OTHER_COLOURS.length; tries += 1)
      slot = (slot + 1) % OTHER_COLOURS.length;
    used.add(OTHER_COLOURS[slot]!);
    return OTHER_COLOURS[slot]!;
  });
  return { domain: [...names], range };
}

function seriesColour(names: string[], title = '') {
  return { field: 'series', type: 'nominal', title, sort: names, scale: colourScale(names) };
}

const seriesRows = <Point extends object>(series: ReadonlyArray<{ name: string; points: Point[] }>) =>
  series.flatMap(({ name, points }) => points.map((point) => ({ ...point, series: name })));

/** Horizontal reference lines, e.g. the nominal 0.95 of a coverage plot. */
type Rule = { y: number; label: string };

interface ChartOptions {
  title: string;
  xTitle: string;
  yTitle: string;
  rules?: Rule[];
  yDomain?: [number, number];
  width?: number;
}

interface LineChartOptions extends ChartOptions {
  series: Array<{ name: string; points: Array<{ x: number; y: number }> }>;
  xScale?: 'linear' | 'log';
  legendTitle?: string;
}

/** A line chart: one colour per series, a legend, dashed reference lines. */
export async function lineChartSvg(options: LineChartOptions): Promise<Figure> {
  const { title, xTitle, yTitle, series, yDomain } = options;
  const { rules = [], xScale = 'linear', legendTitle = '', width = 520 } = options;
  const values = seriesRows(series);
  const names = series.map(({ name }) => name);
  const yScale = yDomain === undefined ? {} : { domain: yDomain };
  const line = {
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: xTitle, scale: { type: xScale } },
      y: { field: 'y', type: 'quantitative', title: yTitle, scale: yScale },
      color: seriesColour(names, legendTitle),
      tooltip: [
        tip('series', legendTitle || 'series', false),
        tip('x', xTitle, true, values),
        tip('y', yTitle, true, values),
      ],
    },
  };
  return renderSpec({ title, width, height: 320, data: { values }, layer: [line, ...ruleLayers(rules)] });
}

type IntervalPoint = { group: string; series: string; estimate: number; low: number; high: number };

/** One point of an interval chart; an end that is undefined (null) is drawn at the estimate. */
export function intervalPoint(
  group: string,
  series: string,
  estimate: number,
  { low, high }: { low: number | null; high: number | null },
): IntervalPoint {
  return { group, series, estimate, low: low ?? estimate, high: high ?? estimate };
}

interface IntervalChartOptions extends ChartOptions {
  points: IntervalPoint[];
}

/** Point estimates with interval bars, grouped along x, series side by side: Figure 17.2's pass@1 by harness. */
export const intervalChartSvg = (options: IntervalChartOptions) => renderSpec(intervalChartSpec(options));

/** Interval charts side by side, each with its own y scale: rliable's aggregate metrics, one panel per metric. */
export const intervalPanelsSvg = (panels: IntervalChartOptions[], title: string) =>
  renderSpec({ title, hconcat: panels.map(intervalChartSpec), resolve: { scale: { y: 'independent' } } });

function intervalChartSpec(options: IntervalChartOptions): Record<string, unknown> {
  const { title, xTitle, yTitle, points, rules = [], yDomain = [0, 1], width = 620 } = options;
  const groups = [...new Set(points.map((point) => point.group))];
  const series = [...new Set(points.map((point) => point.series))];
  const x = { field: 'group', type: 'nominal', title: xTitle, sort: groups, axis: { labelAngle: -30 } };
  const xOffset = { field: 'series', sort: series };
  const color = seriesColour(series);
  const tooltip = [
    tip('group', xTitle || 'group', false),
    tip('series', 'series', false),
    tip('estimate', yTitle, true, points),
    tip('low', 'interval low', true, points),
    tip('high', 'interval high', true, points),
  ];
  const bar = {
    mark: { type: 'rule' },
    encoding: {
      x,
      xOffset,
      color,
      y: { field: 'low', type: 'quantitative', title: yTitle, scale: { domain: yDomain } },
      y2: { field: 'high' },
      tooltip,
    },
  };
  const point = {
    mark: { type: 'point', filled: true, size: 50 },
    encoding: { x, xOffset, color, y: { field: 'estimate', type: 'quantitative' }, tooltip },
  };
  return { title, width, height: 320, data: { values: points }, layer: [bar, point, ...ruleLayers(rules)] };
}

/** Dashed grey horizontal reference lines, each labelled at the left edge (none when there are no rules). */
function ruleLayers(rules: readonly Rule[]): unknown[] {
  if (rules.length === 0) return [];
  return [
    {
      data: { values: rules },
      mark: { type: 'rule', strokeDash: [6, 4], color: 'gray' },
      encoding: {
        y: { field: 'y', type: 'quantitative' },
        tooltip: [tip('label', 'reference', false), tip('y', 'value', true, rules)],
      },
    },
    {
      data: { values: rules },
      mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray' },
      encoding: { y: { field: 'y', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } },
    },
  ];
}

/** A vega-lite spec rendered to SVG headless (no canvas, no browser), with the full spec beside it. */
async function renderSpec(spec: Record<string, unknown>): Promise<Figure> {
  const full = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    ...spec,
    config: { background: 'white', legend: { labelLimit: 0 } },
  };
  const view = new vega.View(vega.parse(vegaLite.compile(full as vegaLite.TopLevelSpec).spec), {
    renderer: 'none',
  });
  const svg = await view.toSVG();
  view.finalize();
  // A layer without data has no bounds, and vega then sizes the view to the largest double: such
  // a figure would push everything after it on a page out of reach.
  const size = /^<svg[^>]*?\bwidth="([^"]*)"[^>]*?\bheight="([^"]*)"/.exec(svg);
  if (size === null || ![size[1], size[2]].every((side) => Number(side) > 0 && Number(side) < 1e5))
    throw new Error(
      `a figure rendered at ${size === null ? 'no size' : `${size[1]} x ${size[2]} px`}: a panel without data?`,
    );
  return { svg, spec: full };
}

/** A line with a shaded band (its interval) per series. */
type BandSeries = {
  name: string;
  points: Array<{ x: number; y: number; low?: number; high?: number }>;
};

export interface BandPanel extends Pick<ChartOptions, 'title' | 'xTitle' | 'yTitle' | 'yDomain'> {
  series: BandSeries[];
  /** Lines drawn dashed, without bands (e.g. a reference curve). */
  dashed?: BandSeries[];
  /** `symlog`: sign(x) log(1 + |x|), a log axis that takes 0 and negative values. */
  xScale?: 'linear' | 'log' | 'symlog';
}

/**
 * Ticks for a symlog axis over these values: 0, +-0.5 and +-1, 2, 5 times the powers of ten
 * (Vega's own bunch up at the wide end; below 1 the axis is nearly linear, so no finer ticks).
 */
function symlogTicks(values: readonly number[]): number[] {
  const low = values.reduce((a, b) => Math.min(a, b));
  const high = values.reduce((a, b) => Math.max(a, b));
  const steps = [0.5];
  for (let power = 1; power <= Math.max(-low, high); power *= 10) steps.push(power, 2 * power, 5 * power);
  return [...steps.map((step) => -step).reverse(), 0, ...steps].filter((tick) => tick >= low && tick <= high);
}

function bandPanelSpec(panel: BandPanel, width: number, height: number): Record<string, unknown> {
  const { title, xTitle, yTitle, series, dashed = [], xScale = 'linear', yDomain = [0, 1] } = panel;
  const names = [...series, ...dashed].map(({ name }) => name);
  const values = seriesRows(series);
  const all = [...series, ...dashed].flatMap(({ points }) => points);
  const lineTooltip = [
    tip('series', 'series', false),
    tip('x', xTitle, true, all),
    tip('y', yTitle, true, all),
  ];
  const bandTooltip = [
    ...lineTooltip,
    tip('low', 'interval low', true, all),
    tip('high', 'interval high', true, all),
  ];
  const symlog = xScale === 'symlog';
  const x = {
    field: 'x',
    type: 'quantitative',
    title: xTitle,
    scale: symlog ? { type: xScale, nice: false } : { type: xScale },
    ...(symlog ? { axis: { values: symlogTicks(all.map((point) => point.x)), format: '~g' } } : {}),
  };
  const color = seriesColour(names);
  const layers: unknown[] = [
    {
      mark: { type: 'area', opacity: 0.2 },
      transform: [{ filter: 'isValid(datum.low)' }],
      encoding: {
        x,
        y: { field: 'low', type: 'quantitative', title: yTitle, scale: { domain: yDomain } },
        y2: { field: 'high' },
        color,
        tooltip: bandTooltip,
      },
    },
    {
      mark: { type: 'line', point: { opacity: 0 } },
      encoding: { x, y: { field: 'y', type: 'quantitative' }, color, tooltip: bandTooltip },
    },
  ];
  if (dashed.length > 0)
    layers.push({
      data: { values: seriesRows(dashed) },
      mark: { type: 'line', strokeDash: [6, 4] },
      encoding: { x, y: { field: 'y', type: 'quantitative' }, color, tooltip: lineTooltip },
    });
  return { title, width, height, data: { values }, layer: layers };
}

/** Panels side by side, each a set of lines with shaded interval bands: Figure 17.3's pass@k curves. */
export async function bandPanelsSvg(
  panels: BandPanel[],
  { width = 360, height = 280 } = {},
): Promise<Figure> {
  const empty = panels.find((panel) => panel.series.length + (panel.dashed?.length ?? 0) === 0);
  if (empty !== undefined) throw new Error(`figure panel "${empty.title}" has no series to draw`);
  return renderSpec({
    hconcat: panels.map((panel) => bandPanelSpec(panel, width, height)),
    resolve: { scale: { color: 'independent' } },
  });
}

/**
 * A heat map (rows x columns, colour by value, the label written in each cell): the task x seed
 * figure of the seed study's narrowing. With `divergingAt` the colour scale diverges from that
 * value (red below, blue above, white at it, symmetric), so a fall below it never looks like a
 * small gain.
 */
export async function heatmapSvg(options: {
  title: string;
  rowTitle: string;
  columnTitle: string;
  valueTitle: string;
  cells: Array<{ row: string; column: string; value: number; label?: string }>;
  divergingAt?: number;
}): Promise<Figure> {
  const { title, rowTitle, columnTitle, valueTitle, cells, divergingAt } = options;
  const mid = divergingAt ?? 0;
  const reach = Math.max(1e-9, ...cells.map((cell) => Math.abs(cell.value - mid)));
  const diverging = { scheme: 'redblue', domain: [mid - reach, mid + reach], domainMid: mid };
  const scale = divergingAt === undefined ? {} : { scale: diverging };
  const rows = [...new Set(cells.map((cell) => cell.row))];
  const columns = [...new Set(cells.map((cell) => cell.column))];
  const x = { field: 'column', type: 'nominal', title: columnTitle, sort: columns };
  const y = { field: 'row', type: 'nominal', title: rowTitle, sort: rows };
  return renderSpec({
    title,
    width: Math.max(200, 28 * columns.length),
    height: Math.max(120, 22 * rows.length),
    data: { values: cells.map((cell) => ({ ...cell, label: cell.label ?? '' })) },
    layer: [
      {
        mark: 'rect',
        encoding: {
          x,
          y,
          color: { field: 'value', type: 'quantitative', title: valueTitle, ...scale },
          tooltip: [
            tip('row', rowTitle, false),
            tip('column', columnTitle, false),
            tip('value', valueTitle, true, cells),
          ],
        },
      },
      { mark: { type: 'text', fontSize: 9 }, encoding: { x, y, text: { field: 'label' } } },
    ],
  });
}
