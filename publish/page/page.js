// @ts-check
// The report page's own script (inlined by publish/page/reportPage.ts after vega and vega-lite):
// draws every figure from its vega-lite spec, with a tooltip that writes the values as text.
// When every figure is settled, `document.body.dataset.rendered` holds how many were drawn,
// `dataset.notDrawn` how many were not (each says why in its place), and `window.reportRendered`
// the milliseconds since navigation started (what the browser test reads).
(function () {
  /** vega and vega-lite, which the page inlines before this script, and what this script leaves for the browser test. */
  const page =
    /** @type {Window & { vega: any, vegaLite: any, reportViews: any[], reportRendered: number }} */ (
      /** @type {unknown} */ (window)
    );
  const tooltip = /** @type {HTMLElement} */ (document.getElementById('tooltip'));

  /**
   * vega's tooltip handler: the value (an object of title -> formatted value) as lines of text, never HTML.
   * @param {unknown} _handler
   * @param {MouseEvent} event
   * @param {unknown} _item
   * @param {unknown} value
   */
  function showTooltip(_handler, event, _item, value) {
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

  // The largest side a figure may have, in pixels: the page's figures are about 1,000 wide and
  // 500 tall. vega sizes a view from the bounds of what it draws, and some specs give bounds of
  // Number.MAX_VALUE (an empty legend with an empty title); drawn, such an SVG is 33,554,430 px
  // tall and every later section is out of reach.
  const MAX_SIDE = 10000;
  const pixels = (/** @type {number} */ value) =>
    Math.abs(value) < 1e6 ? String(Math.round(value)) : value.toExponential(1);

  /** A figure's size, laid out without drawing it; one not finite or above MAX_SIDE is refused with the reason. */
  /** @param {HTMLElement} container @returns {Promise<string | undefined>} */
  async function draw(container) {
    const spec = JSON.parse(document.getElementById(container.dataset.spec ?? '')?.textContent ?? 'null');
    const view = new page.vega.View(page.vega.parse(page.vegaLite.compile(spec).spec), {
      renderer: 'none',
      hover: true,
    });
    await view.runAsync();
    const bounds = view.scenegraph().root.bounds;
    const [width, height] = [bounds.width(), bounds.height()];
    const fits = (/** @type {number} */ side) => Number.isFinite(side) && side >= 0 && side <= MAX_SIDE;
    if (!fits(width) || !fits(height)) {
      view.finalize();
      return `vega lays it out ${pixels(width)} x ${pixels(height)} px, not a size between 0 and ${MAX_SIDE} (an empty legend or panel does this)`;
    }
    view.tooltip(showTooltip);
    view.renderer('svg').initialize(container);
    await view.runAsync();
    page.reportViews.push(view);
    return undefined;
  }

  const containers = [
    .../** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.view[data-spec]')),
  ];
  page.reportViews = [];
  let notDrawn = 0;
  Promise.all(
    containers.map((container) =>
      draw(container).then(
        (refused) => {
          if (refused === undefined) return;
          notDrawn += 1;
          container.textContent = `This figure is not drawn: ${refused}.`;
          container.classList.add('missing');
        },
        (error) => {
          notDrawn += 1;
          container.textContent = `This figure could not be drawn: ${error.message}`;
          container.classList.add('missing');
          console.error(`figure ${container.dataset.spec}: ${error.message}`);
        },
      ),
    ),
  ).then(() => {
    page.reportRendered = performance.now();
    document.body.dataset.notDrawn = String(notDrawn);
    document.body.dataset.rendered = String(page.reportViews.length);
  });
})();
