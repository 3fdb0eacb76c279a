// @ts-check
// The episode viewer's page script (`tinyagent view`). It lays out the data that data.js sets
// (cli/view/data.ts computed every number); it computes nothing of its own. Every string in the
// data comes from a result file, which is untrusted input: the page builds its DOM with
// createElement and textContent only, never innerHTML, so a task id `<script>` shows as text.
// Type-checked by `tsc` (tsconfig.json's allowJs) against the data's types in data.ts.
'use strict';

/** @typedef {import('./data.ts').ViewerData} ViewerData */
/** @typedef {import('./data.ts').FileView} FileView */
/** @typedef {import('./data.ts').TaskView} TaskView */
/** @typedef {import('./data.ts').EpisodeView} EpisodeView */
/** @typedef {import('./data.ts').FolderView} FolderView */
/** @typedef {import('./data.ts').Vocabulary} Vocabulary */
/** @typedef {import('../../eval/io/index.ts').DetailPart} DetailPart */
/** @typedef {import('../../eval/report/resample.ts').Estimate} Estimate */

(function viewer() {
  /** @type {ViewerData} */
  const data = /** @type {any} */ (globalThis).VIEWER_DATA;
  const MARKERS = new Set(['<task>', '</task>', '<act>', '<obs>', '</obs>', '<end>']);
  /**
   * Text over this many lines (a line of 100 characters or more counted as one per 100) shows
   * its first lines and a button for the rest, as Inspect's viewer collapses a tool's output at
   * 15 lines and a message at 25. The heights are in viewer.css (`pre.collapsed`).
   */
  const COLLAPSED_LINES = { tool: 15, other: 25 };

  /**
   * An element with text and attributes (set as attributes: never parsed as markup), and children.
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {Record<string, string>} [options]
   * @param {Array<Node | null>} [children]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function el(tag, options = {}, children = []) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(options)) {
      if (key === 'text') node.textContent = value;
      else if (key === 'className') node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child !== null) node.append(child);
    return node;
  }

  /** @param {string} id */
  function byId(id) {
    const node = document.getElementById(id);
    if (node === null) throw new Error(`the page has no #${id}`);
    return node;
  }

  /** @param {string} word */
  const capital = (word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
  /** The parts that are not empty, joined. @param {string} separator @param {string[]} parts */
  const joined = (separator, parts) => parts.filter((part) => part !== '').join(separator);

  /** A file's or a folder's notes, one item each. @param {string[]} notes */
  const notesList = (notes) =>
    el(
      'ul',
      { className: 'notes' },
      notes.map((note) => el('li', { text: note })),
    );

  /** A paragraph of the given class (a note by default). @param {string} text */
  const para = (text, className = 'note') => el('p', { className, text });

  /** A table cell of the given classes. @param {string} className @param {string} text */
  const td = (className, text) => el('td', { className, text });

  /**
   * A folded table of `key: value` rows.
   * @param {string} className @param {string} summary @param {Array<[string, string]>} pairs
   */
  const pairsTable = (className, summary, pairs) =>
    el('details', { className }, [
      el('summary', { text: summary }),
      el(
        'table',
        {},
        pairs.map(([key, value]) => el('tr', {}, [el('th', { text: key }), el('td', { text: value })])),
      ),
    ]);

  /** A recorded date as `YYYY-MM-DD HH:MM` (its own time zone, as recorded), else as it is. @param {string} date */
  const shortDate = (date) => {
    const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(date);
    return match === null ? date : `${match[1]} ${match[2]}`;
  };

  /** @param {number} value */
  const percent = (value) => `${(100 * value).toFixed(1)}%`;
  /** A difference of two shares, in percentage points with its sign. @param {number} value */
  const points = (value) => `${value >= 0 ? '+' : '-'}${Math.abs(100 * value).toFixed(1)}`;
  /** An interval's ends written by `format`, or n/a when it does not exist (below 2 units, or units all alike). */
  const range = (
    /** @type {{low: number | null, high: number | null}} */ { low, high },
    /** @type {(value: number) => string} */ format,
  ) => (low === null || high === null ? 'n/a' : `[${format(low)}, ${format(high)}]`);
  /** @param {number} value */
  const share = (value) => (100 * value).toFixed(1);
  /** @param {number} value */
  const score = (value) => value.toFixed(4);

  // ---- a folder (tinyagent view DIR): its result files, each a link to its page ----
  if (data.folder !== null) {
    renderFolder(data.folder);
    document.body.dataset.ready = '1';
    return;
  }

  /** @param {FolderView} folder */
  function renderFolder(folder) {
    document.title = `TinyAgent log list: ${folder.path}`;
    /** @type {HTMLElement} */ (document.querySelector('header h1')).textContent = 'Result files';
    byId('filters').hidden = true;
    /** @type {HTMLElement} */ (document.querySelector('main')).hidden = true;
    const readable = folder.logs.filter((log) => log.href !== null);
    const box = byId('files');
    box.append(
      el('div', { className: 'file-path' }, [el('span', { className: 'path', text: folder.path })]),
      el('div', {
        className: 'file-summary',
        text: `${readable.length} result files of the ${folder.logs.length} files looked at; pick one to open it`,
      }),
    );
    if (folder.notes.length > 0) box.append(notesList(folder.notes));
    // Inspect's log list shows task, model, score, status and completion date; so does this one
    const columns = ['file', 'task', 'model', 'score', 'status', 'date', 'size', 'format'];
    const head = columns.map((name) => el('th', { text: name }));
    const rows = readable.map((log) => {
      const { model, date, status } = log.origin;
      const terms = /** @type {Vocabulary} */ (log.vocabulary);
      return el('tr', { className: 'log' }, [
        el('td', {}, [el('a', { className: 'log-link', href: log.href ?? '', text: log.name })]),
        el('td', { text: log.benchmark ?? '-' }),
        td('model', model ?? '-'),
        td(
          'number',
          log.score === null
            ? '-'
            : log.score.name === 'pass@1'
              ? `${percent(log.score.value)} pass@1`
              : `${score(log.score.value)} mean`,
        ),
        td(`status ${status ?? ''}`, status ?? '-'),
        el('td', date === undefined ? { text: '-' } : { text: shortDate(date), title: date }),
        td(
          'number',
          `${log.tasks} ${terms.units}${log.rows === log.tasks ? '' : `, ${log.rows} ${terms.rows}`}`,
        ),
        el('td', { text: log.format ?? '-' }),
      ]);
    });
    box.append(el('table', { id: 'logs' }, [el('thead', {}, [el('tr', {}, head)]), el('tbody', {}, rows)]));
    const unread = folder.logs.filter((log) => log.href === null);
    if (unread.length > 0)
      box.append(
        el('details', { className: 'unread' }, [
          el('summary', { text: `${unread.length} files not read as result files` }),
          el(
            'ul',
            {},
            unread.map((log) =>
              el('li', {}, [
                el('span', { className: 'path', text: log.name }),
                el('span', { text: `: ${log.problem}` }),
              ]),
            ),
          ),
        ]),
      );
  }

  const files = data.files;
  const fileA = /** @type {FileView} */ (files[0]);
  const fileB = files[1];
  const comparing = fileB !== undefined;
  const SIDES = comparing ? ['A', 'B'] : [''];
  /** The words of A's tool (two files of different tools pair only with --allow-different-tasks). */
  const terms = fileA.vocabulary;
  const difference = data.difference;
  const differenceShown = difference !== null && difference.mean !== null;
  /** The project's own rows (tinyagent eval --out): transcripts and first-edit ops are theirs. */
  const projectRows = (/** @type {FileView} */ file) => file.format === 'jsonl' || file.format === 'csv';

  /** @param {EpisodeView} episode @param {string} name */
  const fieldOf = (episode, name) => episode.fields.find(([key]) => key === name)?.[1];
  /** @param {EpisodeView} episode */
  const opOf = (episode) => (episode.firstEditOp === null ? '(not recorded)' : episode.firstEditOp);
  /** A row's name in its tool's words: `sample 3`, `epoch 2`; empty where a unit has one row. @param {EpisodeView} episode */
  const rowName = (episode) =>
    joined(' ', [
      terms.repeat === null ? '' : `${terms.repeat} ${episode.sample + terms.firstRepeat}`,
      episode.turn === null ? '' : `turn ${episode.turn}`,
      episode.run === null ? '' : `run ${episode.run}`,
    ]);

  /** Episode `sample` of a task of file B, the partner of file A's (same task, same sample index). */
  const tasksOfB = new Map((fileB?.tasks ?? []).map((task) => [task.task, task]));
  /** @param {string} taskName @param {EpisodeView} episode */
  function partnerOf(taskName, episode) {
    const task = tasksOfB.get(taskName);
    if (task === undefined) return undefined;
    return task.episodes.find(
      (other) => other.sample === episode.sample && other.turn === episode.turn && other.run === episode.run,
    );
  }

  // ---- state, kept in the location hash so that a view can be linked to ----
  /** @type {{task: string, op: string, failed: boolean, episode: {task: number, index: number} | null}} */
  const state = { task: '', op: '', failed: false, episode: null };
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    state.task = params.get('task') ?? '';
    state.op = params.get('op') ?? '';
    state.failed = params.get('failed') === '1';
    const episode = /^(\d+)\.(\d+)$/.exec(params.get('episode') ?? '');
    state.episode = episode === null ? null : { task: Number(episode[1]), index: Number(episode[2]) };
  }
  function writeHash() {
    const params = new URLSearchParams();
    if (state.task !== '') params.set('task', state.task);
    if (state.op !== '') params.set('op', state.op);
    if (state.failed) params.set('failed', '1');
    if (state.episode !== null) params.set('episode', `${state.episode.task}.${state.episode.index}`);
    history.replaceState(null, '', `#${params.toString()}`);
  }

  // ---- the files: path, what they hold, the mean with its interval, notes, harness ----
  function renderFiles() {
    const box = byId('files');
    files.forEach((file, i) => {
      const { units, rows } = file.vocabulary;
      const episodes = file.tasks.reduce((sum, task) => sum + task.episodes.length, 0);
      const meanScore = file.meanScore;
      const passes =
        meanScore !== null
          ? `mean score ${score(meanScore.estimate)} ${range(meanScore, score)} (graded scores: pass@k is not defined)`
          : file.ks
              .map((k, j) => {
                const estimate = /** @type {Estimate} */ (file.passAtK[j]);
                return `pass@${k} ${percent(estimate.estimate)} ${range(estimate, share)}`;
              })
              .join(', ');
      const { model, date, status } = file.origin;
      const origin = joined(', ', [
        model === undefined ? '' : `model ${model}`,
        date === undefined ? '' : `date ${date}`,
        status === undefined ? '' : `status ${status}`,
      ]);
      const section = el('div', { className: 'file', 'data-file': String(i) }, [
        el('div', { className: 'file-path' }, [
          SIDES[i] === '' ? null : el('b', { text: `${SIDES[i]}: ` }),
          el('span', { className: 'path', text: file.path }),
        ]),
        el('div', {
          className: 'file-summary',
          text: `${file.format}, ${file.benchmark ?? 'no benchmark recorded'}${origin === '' ? '' : `; ${origin}`}; ${file.tasks.length} ${units}, ${episodes} ${rows}${projectRows(file) ? `, ${file.transcripts} with transcripts` : ''}; mean over ${units}: ${passes}`,
        }),
      ]);
      if (file.notes.length > 0) section.append(notesList(file.notes));
      if (file.harness.length > 0) section.append(pairsTable('harness', 'harness', file.harness));
      box.append(section);
    });
    if (data.pairing !== null)
      box.append(el('div', { className: 'pairing', text: `pairing: ${data.pairing}` }));
    if (difference?.problem != null)
      box.append(el('div', { className: 'pairing', text: `B - A: n/a: ${difference.problem}` }));
  }

  // ---- filters ----
  function renderFilters() {
    byId('filter-task-name').textContent = terms.unit;
    const taskSelect = /** @type {HTMLSelectElement} */ (byId('filter-task'));
    taskSelect.append(el('option', { value: '', text: `all ${fileA.tasks.length} ${terms.units}` }));
    for (const task of fileA.tasks) taskSelect.append(el('option', { value: task.task, text: task.task }));
    taskSelect.value = state.task;
    taskSelect.addEventListener('change', () => {
      state.task = taskSelect.value;
      state.episode = null;
      update();
    });
    const opSelect = /** @type {HTMLSelectElement} */ (byId('filter-op'));
    const ops = new Set(files.flatMap((file) => file.tasks.flatMap((task) => task.episodes.map(opOf))));
    opSelect.append(el('option', { value: '', text: 'any' }));
    for (const op of [...ops].sort()) opSelect.append(el('option', { value: op, text: op }));
    opSelect.value = state.op;
    opSelect.addEventListener('change', () => {
      state.op = opSelect.value;
      update();
    });
    // the first edit is the TinyAgent env's: other tools' files have none
    if (!files.some((file) => file.hasFirstEditOp)) byId('filter-op-label').hidden = true;
    const failed = /** @type {HTMLInputElement} */ (byId('filter-failed'));
    failed.checked = state.failed;
    failed.addEventListener('change', () => {
      state.failed = failed.checked;
      update();
    });
  }

  // ---- the task table: each unit's counts and pass@k, the mean with its interval, B - A ----
  function renderTasks() {
    byId('tasks-heading').textContent = capital(terms.units);
    const table = byId('tasks');
    table.replaceChildren();
    // two files: a row naming each file's columns (A, B) above the columns' own names
    const sides = [el('th')];
    const head = [el('th', { text: terms.unit })];
    files.forEach((file, i) => {
      const columns = [el('th', { text: 'passed' })];
      for (const k of file.ks) columns.push(el('th', { text: `pass@${k}` }));
      if (file.graded) columns.push(el('th', { text: 'mean score' }));
      columns[0]?.classList.add('side-start');
      head.push(...columns);
      sides.push(
        el('th', { className: 'side side-start', colspan: String(columns.length), text: SIDES[i] ?? '' }),
      );
    });
    if (differenceShown) {
      sides.push(el('th', { className: 'side side-start' }));
      head.push(
        el('th', {
          className: 'difference side-start',
          text: 'B - A',
          title: `B's pass@1 minus A's, in percentage points; over the ${terms.units}: the paired bootstrap interval, as tinyagent compare A B prints it`,
        }),
      );
    }
    table.append(el('thead', {}, [comparing ? el('tr', {}, sides) : null, el('tr', {}, head)]));
    const body = el('tbody');
    fileA.tasks.forEach((task, t) => {
      const cells = [el('td', { className: 'task-name', text: task.task, title: task.task })];
      files.forEach((file, i) => {
        const own = i === 0 ? task : tasksOfB.get(task.task);
        cells.push(td('count side-start', own === undefined ? '-' : `${own.successes}/${own.samples}`));
        file.ks.forEach((_, j) =>
          cells.push(td('number', own === undefined ? '-' : percent(/** @type {number} */ (own.passAtK[j])))),
        );
        if (file.graded) cells.push(td('number score', own?.meanScore == null ? '-' : score(own.meanScore)));
      });
      if (differenceShown) {
        const value = difference.perTask[t];
        cells.push(td('number difference side-start', value == null ? '-' : points(value)));
      }
      const row = el('tr', { 'data-task-index': String(t) }, cells);
      if (state.task === task.task) row.className = 'selected';
      row.addEventListener('click', () => {
        state.task = state.task === task.task ? '' : task.task;
        state.episode = null;
        /** @type {HTMLSelectElement} */ (byId('filter-task')).value = state.task;
        update();
      });
      body.append(row);
    });
    // the mean over units, and below it each mean's interval: task-level, as tinyagent metrics prints
    const mean = [el('td', { text: `mean over ${terms.units}` })];
    const interval = [
      el('td', {
        text: `${Math.round(fileA.level * 100)}% interval`,
        title: `task-level: the ${terms.units} resampled (percentile bootstrap), as tinyagent metrics prints it`,
      }),
    ];
    files.forEach((file) => {
      mean.push(el('td', { className: 'side-start' }));
      interval.push(el('td', { className: 'side-start' }));
      for (const estimate of file.passAtK) {
        mean.push(td('number', percent(estimate.estimate)));
        interval.push(td('number interval', range(estimate, share)));
      }
      if (file.meanScore !== null) {
        mean.push(td('number score', score(file.meanScore.estimate)));
        interval.push(td('number interval', range(file.meanScore, score)));
      }
    });
    if (differenceShown) {
      const paired = /** @type {Estimate} */ (difference.mean);
      mean.push(td('number difference side-start', points(paired.estimate)));
      interval.push(td('number interval difference side-start', range(paired, points)));
    }
    body.append(
      el('tr', { className: 'mean' }, mean),
      el('tr', { className: 'mean interval-row' }, interval),
    );
    table.append(body);
  }

  // ---- the episode list ----
  /** @param {TaskView} task @param {EpisodeView} episode */
  function shown(task, episode) {
    const partner = partnerOf(task.task, episode);
    const pair = partner === undefined ? [episode] : [episode, partner];
    if (state.failed && pair.every((one) => one.passed)) return false;
    if (state.op !== '' && !pair.some((one) => opOf(one) === state.op)) return false;
    return true;
  }
  /** @param {EpisodeView | undefined} episode */
  const opTag = (episode) =>
    episode?.firstEditOp == null ? null : el('span', { className: 'op', text: episode.firstEditOp });
  /** @param {EpisodeView} episode */
  function verdict(episode) {
    // a graded score (partial credit, f1) is shown as the number it is; full credit still passes
    if (episode.score !== null && episode.score !== 0 && episode.score !== 1)
      return el('span', { className: 'verdict partial', text: `score ${episode.score}` });
    const [className, text] = episode.passed ? ['verdict pass', 'passed'] : ['verdict fail', 'failed'];
    return el('span', { className, text });
  }
  function renderEpisodes() {
    byId('episodes-heading').textContent = capital(terms.rows);
    const list = byId('episodes');
    list.replaceChildren();
    let count = 0;
    fileA.tasks.forEach((task, t) => {
      if (state.task !== '' && state.task !== task.task) return;
      task.episodes.forEach((episode, e) => {
        if (!shown(task, episode)) return;
        count += 1;
        const partner = partnerOf(task.task, episode);
        const item = el('li', { 'data-task-index': String(t), 'data-episode-index': String(e) }, [
          el('span', { className: 'episode-task', text: task.task, title: task.task }),
          el('span', { className: 'episode-sample', text: rowName(episode) }),
          comparing ? el('b', { text: 'A' }) : null,
          verdict(episode),
          opTag(episode),
          ...(comparing
            ? [
                el('b', { text: 'B' }),
                partner === undefined ? el('span', { className: 'verdict', text: 'none' }) : verdict(partner),
                opTag(partner),
              ]
            : []),
        ]);
        if (state.episode?.task === t && state.episode.index === e) item.className = 'selected';
        item.addEventListener('click', () => {
          state.episode = { task: t, index: e };
          update();
          // Two files show the pair below the lists: bring it into view.
          if (comparing) byId('episode-pane').scrollIntoView({ block: 'start' });
        });
        list.append(item);
      });
    });
    byId('episode-count').textContent = `(${count})`;
  }

  // ---- one episode: fields, transcript turn by turn, the end ----
  /** @param {string[]} list */
  function wordList(list) {
    return el(
      'code',
      { className: 'words' },
      list.map((word) => el('span', { className: MARKERS.has(word) ? 'word marker' : 'word', text: word })),
    );
  }
  /** @param {FileView} file @param {string} side @param {string} taskName @param {EpisodeView} episode */
  function episodeColumn(file, side, taskName, episode) {
    const name = rowName(episode);
    const title = `${side === '' ? '' : `${side} · `}${file.vocabulary.unit} ${taskName}${name === '' ? '' : ` · ${name}`}`;
    const column = el('div', { className: 'episode-column', 'data-side': side || 'A' }, [
      el('h2', { text: title }),
      el('div', { className: 'episode-file', text: file.path }),
    ]);
    const transcript = episode.transcript;
    if (transcript !== null) {
      const labelled = (/** @type {string} */ label, /** @type {string[]} */ words) =>
        el('div', { className: label }, [el('span', { className: 'label', text: label }), wordList(words)]);
      column.append(
        el(
          'ol',
          { className: 'turns' },
          transcript.map((turn, i) =>
            el('li', { className: 'turn', 'data-turn': String(i) }, [
              el('div', { className: 'turn-number', text: `turn ${i + 1}` }),
              labelled('saw', turn.observation),
              labelled('did', turn.action),
            ]),
          ),
        ),
      );
      const recordedTurns = Number(fieldOf(episode, 'turns'));
      if (Number.isInteger(recordedTurns) && recordedTurns > transcript.length)
        column.append(
          para(
            `The transcript stops at the first context truncation: ${transcript.length} of the episode's ${recordedTurns} turns.`,
          ),
        );
    } else if (episode.transcriptProblem !== null) {
      column.append(para(`transcript: ${episode.transcriptProblem}`));
    } else if (projectRows(file)) {
      column.append(
        para('This row holds no transcript (tinyagent eval --out FILE --transcripts writes them).'),
      );
    } else column.append(sampleDetail(files.indexOf(file), taskName, episode));
    const end = [
      ['passed', String(episode.passed)],
      ['score', episode.score === null ? undefined : String(episode.score)],
      ['reward', fieldOf(episode, 'reward')],
      ['submitted', fieldOf(episode, 'submitted')],
      ['public tests', fieldOf(episode, 'publicPass')],
      ['hidden tests', fieldOf(episode, 'hiddenPass')],
    ].filter(([, value]) => value !== undefined);
    column.append(
      el(
        'div',
        { className: 'end' },
        end.map(([key, value]) => el('span', { className: 'end-field', text: `${key}: ${value}` })),
      ),
    );
    column.append(pairsTable('fields', `every field (line ${episode.line})`, episode.fields));
    return column;
  }

  // ---- another tool's sample as it records it, read from the file on request ----
  /** Lines as the collapse counts them: a line of 100 characters or more counts once per 100. @param {string} text */
  const lineCount = (text) =>
    text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 100)), 0);
  /**
   * A text block; a long one collapsed to its first lines, with a button that shows the rest.
   * @param {string} text @param {number} limit
   */
  function textBlock(text, limit) {
    const pre = el('pre', { className: 'content', text });
    if (lineCount(text) <= limit) return pre;
    pre.classList.add('collapsed');
    const lines = text.split('\n').length;
    const all = `show all ${lines} line${lines === 1 ? '' : 's'}`;
    const toggle = el('button', { type: 'button', className: 'expand', text: all });
    toggle.addEventListener('click', () => {
      const collapsed = pre.classList.toggle('collapsed');
      toggle.textContent = collapsed ? all : 'show fewer';
    });
    return el('div', { className: 'block' }, [pre, toggle]);
  }
  /** @param {DetailPart} part */
  function detailPart(part) {
    return el('div', { className: 'detail-part', 'data-label': part.label }, [
      el('h3', { text: part.label }),
      part.kind !== 'messages'
        ? textBlock(part.text, COLLAPSED_LINES.other)
        : el(
            'ol',
            { className: 'messages' },
            part.messages.map((message) =>
              el('li', { className: 'message', 'data-role': message.role }, [
                el('span', { className: 'role', text: message.role }),
                textBlock(
                  message.text,
                  message.role === 'tool' ? COLLAPSED_LINES.tool : COLLAPSED_LINES.other,
                ),
              ]),
            ),
          ),
    ]);
  }
  /** @param {number} fileIndex @param {string} taskName @param {EpisodeView} episode */
  function sampleDetail(fileIndex, taskName, episode) {
    const box = el('div', { className: 'detail' });
    if (!data.details) {
      box.append(
        para(
          `This page was written to disk: it holds the outcomes of the ${files[fileIndex]?.format} file. Each ${terms.unit}'s messages, answer and score explanation are read from the file by the served viewer (tinyagent view FILE).`,
        ),
      );
      return box;
    }
    box.append(para(`reading the ${terms.row} from the file...`, 'note loading'));
    const query = new URLSearchParams({
      file: String(fileIndex),
      task: taskName,
      sample: String(episode.sample),
    });
    fetch(`sample?${query.toString()}`)
      .then(async (response) => {
        /** @type {{error?: string, parts?: DetailPart[]}} */
        const answer =
          response.status === 404 ? { error: `the file holds no such ${terms.row}` } : await response.json();
        box.replaceChildren();
        if (answer.error !== undefined) box.append(para(answer.error));
        else for (const part of answer.parts ?? []) box.append(detailPart(part));
        box.dataset.loaded = '1';
      })
      .catch((error) => {
        box.replaceChildren(para(`the ${terms.row} could not be read: ${error}`));
        box.dataset.loaded = '1';
      });
    return box;
  }

  function renderEpisode() {
    const box = byId('episode');
    box.replaceChildren();
    const task = state.episode === null ? undefined : fileA.tasks[state.episode.task];
    const episode = state.episode === null ? undefined : task?.episodes[state.episode.index];
    if (task === undefined || episode === undefined) {
      const row = terms.row;
      box.append(para(`Pick ${/^[aeiou]/.test(row) ? 'an' : 'a'} ${row}.`, 'hint'));
      return;
    }
    box.append(episodeColumn(fileA, SIDES[0] ?? '', task.task, episode));
    if (fileB === undefined) return;
    const partner = partnerOf(task.task, episode);
    if (partner === undefined) {
      const name = rowName(episode);
      box.append(
        el('div', { className: 'episode-column', 'data-side': 'B' }, [
          para(`B has no ${name === '' ? terms.row : name} of this ${terms.unit}.`),
        ]),
      );
      return;
    }
    box.append(episodeColumn(fileB, 'B', task.task, partner));
    const seeds =
      episode.envSeed === null || partner.envSeed === null
        ? `no env seed recorded: paired by ${terms.unit}${terms.repeat === null ? '' : ` and ${terms.repeat}`} only`
        : episode.envSeed === partner.envSeed
          ? `same env seed ${episode.envSeed}: the same renamed task under both (a common-random-numbers pair)`
          : `env seeds differ (A ${episode.envSeed}, B ${partner.envSeed}): not the same renamed task`;
    box.prepend(para(seeds, 'pair-note'));
  }

  function update() {
    writeHash();
    renderTasks();
    renderEpisodes();
    renderEpisode();
  }

  readHash();
  document.body.classList.toggle('comparing', comparing);
  renderFiles();
  renderFilters();
  update();
  document.body.dataset.ready = '1';
})();
