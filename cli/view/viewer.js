// The episode viewer's page script (`tinyagent view`). It lays out the data that data.js sets
// (cli/view/data.ts computed every number); it computes nothing of its own. Every string in the
// data comes from a result file, which is untrusted input: the page builds its DOM with
// createElement and textContent only, never innerHTML, so a task id `<script>` shows as text.
'use strict';

(function viewer() {
  const data = globalThis.VIEWER_DATA;
  const files = data.files;
  const [fileA, fileB] = files;
  const comparing = fileB !== undefined;
  const SIDES = comparing ? ['A', 'B'] : [''];
  const MARKERS = new Set(['<task>', '</task>', '<act>', '<obs>', '</obs>', '<end>']);

  /** An element with text and attributes (set as attributes: never parsed as markup), and children. */
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

  /** A file's or a folder's notes, one item each. */
  const notesList = (notes) =>
    el(
      'ul',
      { className: 'notes' },
      notes.map((note) => el('li', { text: note })),
    );

  // ---- a folder (tinyagent view DIR): its result files, each a link to its page ----
  if (data.folder !== null) {
    const { folder } = data;
    document.title = `TinyAgent log list: ${folder.path}`;
    document.querySelector('header h1').textContent = 'Result files';
    document.getElementById('filters').hidden = true;
    document.querySelector('main').hidden = true;
    const readable = folder.logs.filter((log) => log.href !== null);
    const box = document.getElementById('files');
    box.append(
      el('div', { className: 'file-path' }, [el('span', { className: 'path', text: folder.path })]),
      el('div', {
        className: 'file-summary',
        text: `${readable.length} result files of the ${folder.logs.length} files looked at; pick one to open it`,
      }),
    );
    if (folder.notes.length > 0) box.append(notesList(folder.notes));
    const head = ['file', 'format', 'benchmark', 'tasks', 'rows'].map((name) => el('th', { text: name }));
    const rows = readable.map((log) =>
      el('tr', { className: 'log' }, [
        el('td', {}, [el('a', { className: 'log-link', href: log.href, text: log.name })]),
        el('td', { text: log.format }),
        el('td', { text: log.benchmark ?? '-' }),
        el('td', { className: 'number', text: String(log.tasks) }),
        el('td', { className: 'number', text: String(log.rows) }),
      ]),
    );
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
    document.body.dataset.ready = '1';
    return;
  }

  const percent = (value) => `${(100 * value).toFixed(1)}%`;
  const fieldOf = (episode, name) => {
    const found = episode.fields.find(([key]) => key === name);
    return found === undefined ? undefined : found[1];
  };
  const opOf = (episode) => (episode.firstEditOp === null ? '(not recorded)' : episode.firstEditOp);

  /** Episode `sample` of a task of file B, the partner of file A's (same task, same sample index). */
  const tasksOfB = new Map((fileB?.tasks ?? []).map((task) => [task.task, task]));
  function partnerOf(taskName, episode) {
    const task = tasksOfB.get(taskName);
    if (task === undefined) return undefined;
    return task.episodes.find(
      (other) => other.sample === episode.sample && other.turn === episode.turn && other.run === episode.run,
    );
  }

  // ---- state, kept in the location hash so that a view can be linked to ----
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

  // ---- the files: path, format, pass@k, notes, harness ----
  function renderFiles() {
    const box = document.getElementById('files');
    files.forEach((file, i) => {
      const episodes = file.tasks.reduce((sum, task) => sum + task.episodes.length, 0);
      const passes = file.graded
        ? `mean score ${file.meanScore.toFixed(4)} (graded scores: pass@k is not defined)`
        : file.ks.map((k, j) => `pass@${k} ${percent(file.passAtK[j])}`).join(', ');
      const section = el('div', { className: 'file', 'data-file': String(i) }, [
        el('div', { className: 'file-path' }, [
          SIDES[i] === '' ? null : el('b', { text: `${SIDES[i]}: ` }),
          el('span', { className: 'path', text: file.path }),
        ]),
        el('div', {
          className: 'file-summary',
          text: `${file.format}, ${file.benchmark ?? 'no benchmark recorded'}; ${file.tasks.length} tasks, ${episodes} rows, ${file.transcripts} with transcripts; mean over tasks: ${passes}`,
        }),
      ]);
      if (file.notes.length > 0) section.append(notesList(file.notes));
      if (file.harness.length > 0)
        section.append(
          el('details', { className: 'harness' }, [
            el('summary', { text: 'harness' }),
            el(
              'table',
              {},
              file.harness.map(([key, value]) =>
                el('tr', {}, [el('th', { text: key }), el('td', { text: value })]),
              ),
            ),
          ]),
        );
      box.append(section);
    });
    if (data.pairing !== null)
      box.append(el('div', { className: 'pairing', text: `pairing: ${data.pairing}` }));
  }

  // ---- filters ----
  function renderFilters() {
    const taskSelect = document.getElementById('filter-task');
    taskSelect.append(el('option', { value: '', text: `all ${fileA.tasks.length} tasks` }));
    for (const task of fileA.tasks) taskSelect.append(el('option', { value: task.task, text: task.task }));
    taskSelect.value = state.task;
    taskSelect.addEventListener('change', () => {
      state.task = taskSelect.value;
      state.episode = null;
      update();
    });
    const opSelect = document.getElementById('filter-op');
    const ops = new Set();
    for (const file of files)
      for (const task of file.tasks) for (const episode of task.episodes) ops.add(opOf(episode));
    opSelect.append(el('option', { value: '', text: 'any' }));
    for (const op of [...ops].sort()) opSelect.append(el('option', { value: op, text: op }));
    opSelect.value = state.op;
    opSelect.addEventListener('change', () => {
      state.op = opSelect.value;
      update();
    });
    if (!files.some((file) => file.hasFirstEditOp)) document.getElementById('filter-op-label').hidden = true;
    const failed = document.getElementById('filter-failed');
    failed.checked = state.failed;
    failed.addEventListener('change', () => {
      state.failed = failed.checked;
      update();
    });
  }

  // ---- the task table ----
  function renderTasks() {
    const table = document.getElementById('tasks');
    table.replaceChildren();
    const head = [el('th', { text: 'task' })];
    files.forEach((file, i) => {
      const side = SIDES[i] === '' ? '' : `${SIDES[i]} `;
      head.push(el('th', { text: `${side}passed` }));
      for (const k of file.ks) head.push(el('th', { text: `${side}pass@${k}` }));
      if (file.graded) head.push(el('th', { text: `${side}mean score` }));
    });
    table.append(el('thead', {}, [el('tr', {}, head)]));
    const body = el('tbody');
    fileA.tasks.forEach((task, t) => {
      const cells = [el('td', { className: 'task-name', text: task.task })];
      files.forEach((file, i) => {
        const own = i === 0 ? task : tasksOfB.get(task.task);
        cells.push(
          el('td', { className: 'count', text: own === undefined ? '-' : `${own.successes}/${own.samples}` }),
        );
        file.ks.forEach((_, j) =>
          cells.push(
            el('td', { className: 'number', text: own === undefined ? '-' : percent(own.passAtK[j]) }),
          ),
        );
        if (file.graded)
          cells.push(
            el('td', {
              className: 'number score',
              text: own === undefined ? '-' : own.meanScore.toFixed(4),
            }),
          );
      });
      const row = el('tr', { 'data-task-index': String(t) }, cells);
      if (state.task === task.task) row.className = 'selected';
      row.addEventListener('click', () => {
        state.task = state.task === task.task ? '' : task.task;
        state.episode = null;
        document.getElementById('filter-task').value = state.task;
        update();
      });
      body.append(row);
    });
    const mean = [el('td', { text: 'mean over tasks' })];
    files.forEach((file) => {
      mean.push(el('td'));
      file.passAtK.forEach((value) => mean.push(el('td', { className: 'number', text: percent(value) })));
      if (file.graded) mean.push(el('td', { className: 'number score', text: file.meanScore.toFixed(4) }));
    });
    body.append(el('tr', { className: 'mean' }, mean));
    table.append(body);
  }

  // ---- the episode list ----
  function shown(task, episode) {
    const partner = comparing ? partnerOf(task.task, episode) : undefined;
    const pair = partner === undefined ? [episode] : [episode, partner];
    if (state.failed && pair.every((one) => one.passed)) return false;
    if (state.op !== '' && !pair.some((one) => opOf(one) === state.op)) return false;
    return true;
  }
  function verdict(episode) {
    // a graded score (partial credit, f1) is shown as the number it is; full credit still passes
    if (episode.score !== null && episode.score !== 0 && episode.score !== 1)
      return el('span', { className: 'verdict partial', text: `score ${episode.score}` });
    return el('span', {
      className: episode.passed ? 'verdict pass' : 'verdict fail',
      text: episode.passed ? 'passed' : 'failed',
    });
  }
  function renderEpisodes() {
    const list = document.getElementById('episodes');
    list.replaceChildren();
    let count = 0;
    fileA.tasks.forEach((task, t) => {
      if (state.task !== '' && state.task !== task.task) return;
      task.episodes.forEach((episode, e) => {
        if (!shown(task, episode)) return;
        count += 1;
        const partner = comparing ? partnerOf(task.task, episode) : undefined;
        const label = `#${episode.sample}${episode.turn === null ? '' : ` turn ${episode.turn}`}${episode.run === null ? '' : ` run ${episode.run}`}`;
        const item = el('li', { 'data-task-index': String(t), 'data-episode-index': String(e) }, [
          el('span', { className: 'episode-task', text: task.task }),
          el('span', { className: 'episode-sample', text: label }),
          comparing ? el('b', { text: 'A' }) : null,
          verdict(episode),
          episode.firstEditOp === null ? null : el('span', { className: 'op', text: episode.firstEditOp }),
          comparing ? el('b', { text: 'B' }) : null,
          comparing
            ? partner === undefined
              ? el('span', { className: 'verdict', text: 'none' })
              : verdict(partner)
            : null,
          comparing && partner !== undefined && partner.firstEditOp !== null
            ? el('span', { className: 'op', text: partner.firstEditOp })
            : null,
        ]);
        if (state.episode?.task === t && state.episode.index === e) item.className = 'selected';
        item.addEventListener('click', () => {
          state.episode = { task: t, index: e };
          update();
          // Two files show the pair below the lists: bring it into view.
          if (comparing) document.getElementById('episode-pane').scrollIntoView({ block: 'start' });
        });
        list.append(item);
      });
    });
    document.getElementById('episode-count').textContent = `(${count})`;
  }

  // ---- one episode: fields, transcript turn by turn, the end ----
  function words(list) {
    return el(
      'code',
      { className: 'words' },
      list.map((word) => el('span', { className: MARKERS.has(word) ? 'word marker' : 'word', text: word })),
    );
  }
  function episodeColumn(file, side, taskName, episode) {
    const title = `${side === '' ? '' : `${side} · `}${taskName} · sample ${episode.sample}`;
    const column = el('div', { className: 'episode-column', 'data-side': side || 'A' }, [
      el('h2', { text: title }),
      el('div', { className: 'episode-file', text: file.path }),
    ]);
    const transcript = episode.transcript;
    if (transcript !== null) {
      const turns = el('ol', { className: 'turns' });
      transcript.forEach((turn, i) => {
        turns.append(
          el('li', { className: 'turn', 'data-turn': String(i) }, [
            el('div', { className: 'turn-number', text: `turn ${i + 1}` }),
            el('div', { className: 'saw' }, [
              el('span', { className: 'label', text: 'saw' }),
              words(turn.observation),
            ]),
            el('div', { className: 'did' }, [
              el('span', { className: 'label', text: 'did' }),
              words(turn.action),
            ]),
          ]),
        );
      });
      column.append(turns);
      const recordedTurns = Number(fieldOf(episode, 'turns'));
      if (Number.isInteger(recordedTurns) && recordedTurns > transcript.length)
        column.append(
          el('p', {
            className: 'note',
            text: `The transcript stops at the first context truncation: ${transcript.length} of the episode's ${recordedTurns} turns.`,
          }),
        );
    } else if (episode.transcriptProblem !== null) {
      column.append(el('p', { className: 'note', text: `transcript: ${episode.transcriptProblem}` }));
    } else if (file.format === 'jsonl' || file.format === 'csv') {
      column.append(
        el('p', {
          className: 'note',
          text: 'This row holds no transcript (tinyagent eval --out FILE --transcripts writes them).',
        }),
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
    column.append(
      el('details', { className: 'fields' }, [
        el('summary', { text: `every field (line ${episode.line})` }),
        el(
          'table',
          {},
          episode.fields.map(([key, value]) =>
            el('tr', {}, [el('th', { text: key }), el('td', { text: value })]),
          ),
        ),
      ]),
    );
    return column;
  }
  // ---- another tool's sample as it records it, read from the file on request ----
  function detailPart(part) {
    if (part.kind === 'messages')
      return el('div', { className: 'detail-part', 'data-label': part.label }, [
        el('h3', { text: part.label }),
        el(
          'ol',
          { className: 'messages' },
          part.messages.map((message) =>
            el('li', { className: 'message', 'data-role': message.role }, [
              el('span', { className: 'role', text: message.role }),
              el('pre', { className: 'content', text: message.text }),
            ]),
          ),
        ),
      ]);
    return el('div', { className: 'detail-part', 'data-label': part.label }, [
      el('h3', { text: part.label }),
      el('pre', { className: 'content', text: part.text }),
    ]);
  }
  function sampleDetail(fileIndex, taskName, episode) {
    const box = el('div', { className: 'detail' });
    if (!data.details) {
      box.append(
        el('p', {
          className: 'note',
          text: `This page was written to disk: it holds the outcomes of the ${files[fileIndex].format} file. Each sample's messages, answer and score explanation are read from the file by the served viewer (tinyagent view FILE).`,
        }),
      );
      return box;
    }
    box.append(el('p', { className: 'note loading', text: 'reading the sample from the file...' }));
    const query = new URLSearchParams({
      file: String(fileIndex),
      task: taskName,
      sample: String(episode.sample),
    });
    fetch(`sample?${query.toString()}`)
      .then(async (response) => {
        const answer =
          response.status === 404 ? { error: 'the file holds no such sample' } : await response.json();
        box.replaceChildren();
        if (answer.error !== undefined) box.append(el('p', { className: 'note', text: answer.error }));
        else for (const part of answer.parts) box.append(detailPart(part));
        box.dataset.loaded = '1';
      })
      .catch((error) => {
        box.replaceChildren(el('p', { className: 'note', text: `the sample could not be read: ${error}` }));
        box.dataset.loaded = '1';
      });
    return box;
  }

  function renderEpisode() {
    const box = document.getElementById('episode');
    box.replaceChildren();
    const task = state.episode === null ? undefined : fileA.tasks[state.episode.task];
    const episode = task?.episodes[state.episode.index];
    if (episode === undefined) {
      box.append(el('p', { className: 'hint', text: 'Pick an episode.' }));
      return;
    }
    box.append(episodeColumn(fileA, SIDES[0], task.task, episode));
    if (!comparing) return;
    const partner = partnerOf(task.task, episode);
    if (partner === undefined) {
      box.append(
        el('div', { className: 'episode-column', 'data-side': 'B' }, [
          el('p', { className: 'note', text: `B has no episode ${episode.sample} of this task.` }),
        ]),
      );
      return;
    }
    box.append(episodeColumn(fileB, 'B', task.task, partner));
    const seeds =
      episode.envSeed === null || partner.envSeed === null
        ? 'no env seed recorded: paired by task and sample index only'
        : episode.envSeed === partner.envSeed
          ? `same env seed ${episode.envSeed}: the same renamed task under both (a common-random-numbers pair)`
          : `env seeds differ (A ${episode.envSeed}, B ${partner.envSeed}): not the same renamed task`;
    box.prepend(el('p', { className: 'pair-note', text: seeds }));
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
