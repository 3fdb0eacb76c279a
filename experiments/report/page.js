// The report page's own script (inlined by experiments/report-page.ts after vega and vega-lite):
// draws every figure from its vega-lite spec, with a tooltip that writes the values as text.
// When every figure is drawn, `document.body.dataset.rendered` holds their count and
// `window.reportRendered` the milliseconds since navigation started (what the browser test reads).
/* global vega, vegaLite */
(function () {
  const tooltip = document.getElementById('tooltip');

  /** vega's tooltip handler: the value (an object of title -> formatted value) as lines of text, never HTML. */
  function showTooltip(handler, event, item, value) {
    if (value === undefined || value === null || value === '') {
      tooltip.hidden = true;
      return;
    }
    const entries = typeof value === 'object' ? Object.entries(value) : [['', value]];
    tooltip.replaceChildren(
      ...entries.map(([key, text]) => {
        const line = document.createElement('div');
        line.textContent = key === '' ? String(text) : `${key}: ${text}`;
        return line;
      }),
    );
    tooltip.style.left = `${event.pageX + 12}px`;
    tooltip.style.top = `${event.pageY + 12}px`;
    tooltip.hidden = false;
  }

  async function draw(container) {
    const spec = JSON.parse(document.getElementById(container.dataset.spec).textContent);
    const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), {
      renderer: 'svg',
      container,
      hover: true,
    });
    view.tooltip(showTooltip);
    await view.runAsync();
    return view;
  }

  const containers = [...document.querySelectorAll('.view[data-spec]')];
  window.reportViews = [];
  Promise.all(
    containers.map((container) =>
      draw(container).then(
        (view) => window.reportViews.push(view),
        (error) => {
          container.textContent = `This figure could not be drawn: ${error.message}`;
          console.error(`figure ${container.dataset.spec}: ${error.message}`);
        },
      ),
    ),
  ).then(() => {
    window.reportRendered = performance.now();
    document.body.dataset.rendered = String(window.reportViews.length);
  });
})();
