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

/** A tooltip field with its title and, for numbers, three decimals as the reports print them. */
function tip(field: string, title: string, quantitative = true): Record<string, unknown> {
  return quantitative
    ? { field, type: 'quantitative', title, format: '.3f' }
    : { field, type: 'nominal', title };
}

/** One line of a line chart. */
export interface Series {
  name: string;
  points: Array<{ x: number; y: number }>;
}

export interface LineChartOptions {
  title: string;
  xTitle: string;
  yTitle: string;
  series: Series[];
  /** Horizontal reference lines, e.g. the nominal 0.95 of a coverage plot. */
  rules?: Array<{ y: number; label: string }>;
  yDomain?: [number, number];
  xScale?: 'linear' | 'log';
  legendTitle?: string;
  width?: number;
  height?: number;
}

/**
 * Renders a line chart (one colour per series, a legend, dashed reference lines) to SVG with
 * vega-lite compiled to vega and rendered headless (no canvas, no browser).
 */
export async function lineChartSvg(options: LineChartOptions): Promise<Figure> {
  const {
    title,
    xTitle,
    yTitle,
    series,
    rules = [],
    yDomain,
    xScale = 'linear',
    legendTitle = '',
    width = 520,
    height = 320,
  } = options;
  const values = series.flatMap(({ name, points }) => points.map(({ x, y }) => ({ x, y, series: name })));
  const yScale = yDomain === undefined ? {} : { domain: yDomain };
  const layers: unknown[] = [
    {
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: xTitle, scale: { type: xScale } },
        y: { field: 'y', type: 'quantitative', title: yTitle, scale: yScale },
        color: { field: 'series', type: 'nominal', title: legendTitle, sort: series.map(({ name }) => name) },
        tooltip: [tip('series', legendTitle || 'series', false), tip('x', xTitle), tip('y', yTitle)],
      },
    },
  ];
  layers.push(...ruleLayers(rules));
  return renderSpec({ title, width, height, data: { values }, layer: layers });
}

/** One point estimate with its interval, in a group (the x position) and a series (the colour). */
export interface IntervalPoint {
  group: string;
  series: string;
  estimate: number;
  low: number;
  high: number;
}

export interface IntervalChartOptions {
  title: string;
  xTitle: string;
  yTitle: string;
  points: IntervalPoint[];
  rules?: Array<{ y: number; label: string }>;
  yDomain?: [number, number];
  width?: number;
  height?: number;
}

/**
 * Point estimates with interval bars, grouped along x and coloured by series side by side
 * (vega-lite's xOffset), with dashed reference lines: Figure 17.2's pass@1 by harness.
 */
export async function intervalChartSvg(options: IntervalChartOptions): Promise<Figure> {
  const { title, xTitle, yTitle, points, rules = [], yDomain = [0, 1], width = 620, height = 320 } = options;
  const groups = [...new Set(points.map((point) => point.group))];
  const series = [...new Set(points.map((point) => point.series))];
  const x = { field: 'group', type: 'nominal', title: xTitle, sort: groups, axis: { labelAngle: -30 } };
  const xOffset = { field: 'series', sort: series };
  const color = { field: 'series', type: 'nominal', title: '', sort: series };
  const tooltip = [
    tip('group', xTitle || 'group', false),
    tip('series', 'series', false),
    tip('estimate', yTitle),
    tip('low', 'interval low'),
    tip('high', 'interval high'),
  ];
  const layers: unknown[] = [
    {
      mark: { type: 'rule' },
      encoding: {
        x,
        xOffset,
        color,
        y: { field: 'low', type: 'quantitative', title: yTitle, scale: { domain: yDomain } },
        y2: { field: 'high' },
        tooltip,
      },
    },
    {
      mark: { type: 'point', filled: true, size: 50 },
      encoding: { x, xOffset, color, y: { field: 'estimate', type: 'quantitative' }, tooltip },
    },
  ];
  layers.push(...ruleLayers(rules));
  return renderSpec({ title, width, height, data: { values: points }, layer: layers });
}

/** Dashed grey horizontal reference lines, each labelled at the left edge (none when there are no rules). */
function ruleLayers(rules: ReadonlyArray<{ y: number; label: string }>): unknown[] {
  if (rules.length === 0) return [];
  return [
    {
      data: { values: rules },
      mark: { type: 'rule', strokeDash: [6, 4], color: 'gray' },
      encoding: {
        y: { field: 'y', type: 'quantitative' },
        tooltip: [tip('label', 'reference', false), tip('y', 'value')],
      },
    },
    {
      data: { values: rules },
      mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray' },
      encoding: { y: { field: 'y', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } },
    },
  ];
}

/** Renders a vega-lite spec to SVG headless; returns the full spec beside it. */
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
  return { svg, spec: full };
}

/** A line with a shaded band (its interval) per series. */
export interface BandSeries {
  name: string;
  points: Array<{ x: number; y: number; low?: number; high?: number }>;
}

export interface BandPanel {
  title: string;
  xTitle: string;
  yTitle: string;
  series: BandSeries[];
  /** Lines drawn dashed, without bands (e.g. a reference curve). */
  dashed?: BandSeries[];
  xScale?: 'linear' | 'log';
  yDomain?: [number, number];
}

function bandPanelSpec(panel: BandPanel, width: number, height: number): Record<string, unknown> {
  const { title, xTitle, yTitle, series, dashed = [], xScale = 'linear', yDomain = [0, 1] } = panel;
  const lineTooltip = [tip('series', 'series', false), tip('x', xTitle), tip('y', yTitle)];
  const bandTooltip = [...lineTooltip, tip('low', 'interval low'), tip('high', 'interval high')];
  const names = [...series, ...dashed].map(({ name }) => name);
  const values = series.flatMap(({ name, points }) => points.map((point) => ({ ...point, series: name })));
  const x = { field: 'x', type: 'quantitative', title: xTitle, scale: { type: xScale } };
  const color = { field: 'series', type: 'nominal', title: '', sort: names, scale: { domain: names } };
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
  if (dashed.length > 0) {
    const dashedValues = dashed.flatMap(({ name, points }) =>
      points.map((point) => ({ ...point, series: name })),
    );
    layers.push({
      data: { values: dashedValues },
      mark: { type: 'line', strokeDash: [6, 4] },
      encoding: { x, y: { field: 'y', type: 'quantitative' }, color, tooltip: lineTooltip },
    });
  }
  return { title, width, height, data: { values }, layer: layers };
}

/** Panels side by side, each a set of lines with shaded interval bands: Figure 17.3's pass@k curves. */
export async function bandPanelsSvg(
  panels: BandPanel[],
  { width = 360, height = 280 } = {},
): Promise<Figure> {
  return renderSpec({
    hconcat: panels.map((panel) => bandPanelSpec(panel, width, height)),
    resolve: { scale: { color: 'independent' } },
  });
}

/** One cell of a heat map: a row, a column and its value (with an optional text label). */
export interface HeatCell {
  row: string;
  column: string;
  value: number;
  label?: string;
}

/**
 * A heat map (rows x columns, colour by value, the label written in each cell): the task x seed
 * figure of the seed study's narrowing.
 */
export async function heatmapSvg(options: {
  title: string;
  rowTitle: string;
  columnTitle: string;
  valueTitle: string;
  cells: HeatCell[];
}): Promise<Figure> {
  const { title, rowTitle, columnTitle, valueTitle, cells } = options;
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
          color: { field: 'value', type: 'quantitative', title: valueTitle },
          tooltip: [tip('row', rowTitle, false), tip('column', columnTitle, false), tip('value', valueTitle)],
        },
      },
      { mark: { type: 'text', fontSize: 9 }, encoding: { x, y, text: { field: 'label' } } },
    ],
  });
}
