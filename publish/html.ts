/**
 * The report page's HTML (publish/page/reportPage.ts gathers what goes in it): escaping, the
 * Markdown the results files use (headings, tables, lists, paragraphs, inline code, figure
 * lines) and the page around it. Pure string functions: no I/O. Every string that comes from a
 * results file passes through `escapeHtml`, or `jsonScript` for the figure specs: a results file
 * is data, and a task named `<script>` must show as text.
 */

/** `&`, `<`, `>`, `"` and `'` as entities: safe as element text and as a quoted attribute. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A value as a `<script type="application/json">` element: `<`, `>` and `&` written as JSON
 * escapes, so that no `</script>` inside a string can close the element.
 */
export function jsonScript(id: string, value: unknown): string {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  return `<script type="application/json" id="${escapeHtml(id)}">${json}</script>`;
}

/** How the Markdown renderer draws what it cannot draw alone. */
interface MarkdownHooks {
  /** The HTML of an image line `![alt](path)` (a figure). */
  figure: (path: string) => string;
  /** The href of a link target, or undefined to show the link's text alone. */
  link?: (target: string) => string | undefined;
  /** Headings `#`..`######` go one level down; an h1 is dropped when `dropTitle` (the page writes its own). */
  dropTitle?: boolean;
  /** Keep a paragraph's lines as lines (the results files write one statement a line); else join them as Markdown does. */
  lineBreaks?: boolean;
  /** Words for a table header that is an identifier (a claim's name): its label, and its full text as the header's title. */
  headerWords?: ReadonlyMap<string, { label: string; title: string }>;
}

/** Inline Markdown: `code`, **bold**, [text](target); everything else escaped. */
function inlineMarkdown(text: string, hooks: Pick<MarkdownHooks, 'link'> = {}): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length >= 2)
        return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      return escapeHtml(part)
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, target: string) => {
          const href = hooks.link?.(target);
          return href === undefined ? label : `<a href="${href}">${label}</a>`;
        });
    })
    .join('');
}

/** The cells of a table row `| a | b |`; an escaped `\|` stays in its cell. */
export function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** A Markdown table's lines (header, separator, rows) as an HTML table, with an extra first column when given. */
export function tableHtml(
  lines: readonly string[],
  hooks: Pick<MarkdownHooks, 'link' | 'headerWords'> = {},
  extra?: { header: string; cell: (row: number) => string },
): string {
  const [header = '', , ...rows] = lines;
  const head = tableCells(header).map((cell) => {
    const words = hooks.headerWords?.get(cell);
    return words === undefined
      ? `<th>${inlineMarkdown(cell, hooks)}</th>`
      : `<th title="${escapeHtml(words.title)}">${escapeHtml(words.label)}</th>`;
  });
  const body = rows.map((row, i) => {
    const cells = tableCells(row).map((cell) => `<td>${inlineMarkdown(cell, hooks)}</td>`);
    return `<tr>${extra === undefined ? '' : `<td>${extra.cell(i)}</td>`}${cells.join('')}</tr>`;
  });
  return `<div class="table"><table><thead><tr>${extra === undefined ? '' : `<th>${extra.header}</th>`}${head.join('')}</tr></thead><tbody>${body.join('')}</tbody></table></div>`;
}

/** Splits Markdown into blocks: headings, fenced code, tables, lists, figure lines and paragraphs. */
export function markdownBlocks(markdown: string): Array<{ kind: string; lines: string[] }> {
  const lines = markdown.split('\n');
  const result: Array<{ kind: string; lines: string[] }> = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const take = (kind: string, test: (next: string) => boolean) => {
      const block = [];
      while (i < lines.length && test(lines[i]!)) block.push(lines[i++]!);
      result.push({ kind, lines: block });
    };
    if (line.trim() === '') i += 1;
    else if (/^#{1,6} /.test(line)) result.push({ kind: 'heading', lines: [lines[i++]!] });
    else if (line.startsWith('```')) {
      const block = [];
      for (i += 1; i < lines.length && !lines[i]!.startsWith('```'); i += 1) block.push(lines[i]!);
      i += 1;
      result.push({ kind: 'code', lines: block });
    } else if (/^!\[[^\]]*\]\([^)]+\)\s*$/.test(line)) result.push({ kind: 'figure', lines: [lines[i++]!] });
    else if (line.startsWith('|')) take('table', (next) => next.startsWith('|'));
    else if (/^[-*] /.test(line)) take('list', (next) => /^([-*] |\s+\S)/.test(next));
    else take('paragraph', (next) => next.trim() !== '' && !/^(#{1,6} |\||```|[-*] |!\[)/.test(next));
  }
  return result;
}

export function markdownToHtml(markdown: string, hooks: MarkdownHooks): string {
  const { dropTitle = false, lineBreaks = false } = hooks;
  return markdownBlocks(markdown)
    .map(({ kind, lines }) => {
      switch (kind) {
        case 'heading': {
          const [, hashes = '#', text = ''] = /^(#+) (.*)$/.exec(lines[0]!) ?? [];
          if (hashes.length === 1 && dropTitle) return '';
          const level = Math.min(6, hashes.length + 1);
          return `<h${level}>${inlineMarkdown(text, hooks)}</h${level}>`;
        }
        case 'code':
          return `<pre><code>${escapeHtml(lines.join('\n'))}</code></pre>`;
        case 'figure':
          return hooks.figure(/\]\(([^)]+)\)/.exec(lines[0]!)![1]!);
        case 'table':
          return tableHtml(lines, hooks);
        case 'list': {
          const items = lines.join('\n').split(/\n(?=[-*] )/);
          const html = items.map((item) => `<li>${inlineMarkdown(item.replace(/^[-*] /, ''), hooks)}</li>`);
          return `<ul>${html.join('')}</ul>`;
        }
        default:
          return `<p>${lines.map((line) => inlineMarkdown(line, hooks)).join(lineBreaks ? '<br>' : ' ')}</p>`;
      }
    })
    .filter((html) => html !== '')
    .join('\n');
}

/** One row of a key-value table (provenance): the key is ours, the value from a results file (escaped here). */
export function factRows(facts: ReadonlyArray<readonly [key: string, value: string]>): string {
  const rows = facts.map(
    ([key, value]) => `<tr><th>${escapeHtml(key)}</th><td>${escapeHtml(value)}</td></tr>`,
  );
  return `<table class="facts"><tbody>${rows.join('')}</tbody></table>`;
}

/** The page: a head with the inlined libraries and style, the table of contents, the sections, the figure script. */
export function pageHtml(page: {
  title: string;
  intro: string;
  toc: ReadonlyArray<{ id: string; label: string }>;
  body: string;
  /** JavaScript sources inlined in order (vega, vega-lite). */
  libraries: readonly string[];
  style: string;
  script: string;
}): string {
  const title = escapeHtml(page.title);
  const links = page.toc.map(
    ({ id, label }) => `<li><a href="#${escapeHtml(id)}">${escapeHtml(label)}</a></li>`,
  );
  // An inlined library must not close its own element: `</script` inside it is split.
  const inline = (source: string) => `<script>${source.replace(/<\/script/gi, '<\\/script')}</script>`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // Nothing but this file: no request leaves the page (inline scripts, styles and data images only).
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    `<style>${page.style}</style>`,
    ...page.libraries.map(inline),
    '</head>',
    '<body>',
    `<header><h1>${title}</h1>${page.intro}<nav><ol>${links.join('')}</ol></nav></header>`,
    '<main>',
    page.body,
    '</main>',
    '<div id="tooltip" role="tooltip" hidden></div>',
    inline(page.script),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
