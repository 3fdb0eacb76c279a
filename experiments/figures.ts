import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

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
export async function lineChartSvg(options: LineChartOptions): Promise<string> {
  const { title, xTitle, yTitle, series, rules = [], yDomain, xScale = 'linear', legendTitle = '', width = 520, height = 320 } = options;
  const values = series.flatMap(({ name, points }) => points.map(({ x, y }) => ({ x, y, series: name })));
  const yScale = yDomain === undefined ? {} : { domain: yDomain };
  const layers: unknown[] = [
    {
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: xTitle, scale: { type: xScale } },
        y: { field: 'y', type: 'quantitative', title: yTitle, scale: yScale },
        color: { field: 'series', type: 'nominal', title: legendTitle, sort: series.map(({ name }) => name) },
      },
    },
  ];
  if (rules.length > 0) {
    layers.push(
      { data: { values: rules }, mark: { type: 'rule', strokeDash: [6, 4], color: 'gray' }, encoding: { y: { field: 'y', type: 'quantitative' } } },
      { data: { values: rules }, mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray' }, encoding: { y: { field: 'y', type: 'quantitative' }, x: { value: 0 }, text: { field: 'label' } } },
    );
  }
  const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', title, width, height, data: { values }, layer: layers, config: { background: 'white', legend: { labelLimit: 0 } } };
  const view = new vega.View(vega.parse(vegaLite.compile(spec as vegaLite.TopLevelSpec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
