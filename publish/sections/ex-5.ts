/** The report of exercise 5 (experiments/ex-5.ts): which fields the harness canary catches. */
import type { NumbersEx5 as Numbers } from '../../analysis/index.ts';
import { lineChartSvg } from '../figures.ts';
import { blocks, pct, reading, section, signed, table, type Report } from '../markdown.ts';

/** Why the scripted canaries cannot see a field they missed (they do not sample, and play all 30 tasks). */
const WHY_MISSED: Record<string, string> = {
  split: 'the canaries play all 30 tasks, so which ones are held out does not reach them',
  heldOutType: "ignored under the 'variant' split, and the canaries play all tasks anyway",
  contextTokens: 'a scripted policy does not read its context; only a model loses the words cut off',
  randomizeNames: 'a scripted policy acts on the task, not on the name it is shown',
  renameParams: 'as for names: the scripted policy never reads the parameters',
  varySurface: 'the scripted policies find the bug site from the task, not from the surface text',
  renamePool: 'which names are drawn does not matter to a policy that never reads them',
  temperature: 'the scripted policies do not sample from a distribution',
  maxActionTokens: 'the scripted policies write their actions directly, not token by token',
  maxTurns: 'the scripted policies need fewer turns than the change leaves',
};

export async function report({ baseline, checkpoint, rows, trainingFields }: Numbers): Promise<Report> {
  const measured = rows.filter((row) => row.change !== null);
  const markdown = blocks(
    section(
      'The canaries under the training harness',
      table(baseline, {
        policy: (row) => row.policy,
        success: (row) => pct(row.success),
        'mean reward': (row) => pct(row.reward),
        episodes: (row) => row.episodes,
      }),
      `Step 80 as a canary: ${checkpoint.repeated.length} independent evaluations ${checkpoint.repeated.map(pct).join(', ')}; SD of one evaluation ${pct(checkpoint.evaluationSD)}, tolerance 3 SD = ${pct(checkpoint.tolerance)}.`,
    ),
    section(
      'Each harness field changed alone',
      table(rows, {
        field: (row) => row.field,
        change: (row) => (row.change === null ? `none (${row.note})` : JSON.stringify(row.change)),
        'scripted canaries': (row) =>
          row.caughtByCanaries === null
            ? 'n/a'
            : row.caughtByCanaries
              ? `caught (${row.moved.map((m) => `${m.policy} ${signed(m.success)} success, ${signed(m.reward)} reward`).join('; ')})`
              : 'missed',
        'step 80 move': (row) => (row.checkpointMove === null ? 'n/a' : signed(row.checkpointMove)),
        'step 80 canary': (row) =>
          row.caughtByCheckpoint === null ? 'n/a' : row.caughtByCheckpoint ? 'caught' : 'missed',
        'why the scripted canaries miss it': (row) =>
          row.caughtByCanaries === false ? (WHY_MISSED[row.field] ?? 'not known') : '',
      }),
      reading(
        `the scripted canaries catch ${measured.filter((row) => row.caughtByCanaries).length} of ${measured.length} changed fields, step 80 catches ${measured.filter((row) => row.caughtByCheckpoint).length}, and ${measured.filter((row) => row.caughtByCanaries || row.caughtByCheckpoint).length} are caught by one or the other. A scripted policy sees only what changes the env's mechanics for an agent that knows the answer (turns, edits, reward); a frozen checkpoint also sees what changes what a model reads or how it samples, but only beyond its own evaluation noise.`,
      ),
    ),
    section(
      'Training-config fields',
      `${trainingFields.map((field) => `\`${field}\``).join(', ')}: none is read by an evaluation (\`evaluate\` takes only harness fields), so no canary, scripted or frozen, can see them; they change the number only through the checkpoint they train, which only retraining (the seed study of 17.4) measures.`,
    ),
  );
  const figure = await lineChartSvg({
    title: 'Step 80 held-out pass@1 move under each single-field change',
    xTitle: 'field (in the order of the table)',
    yTitle: 'move from the training harness',
    series: [
      { name: 'step 80', points: measured.map((row, i) => ({ x: i + 1, y: row.checkpointMove as number })) },
    ],
    rules: [
      { y: checkpoint.tolerance, label: '+3 SD' },
      { y: -checkpoint.tolerance, label: '-3 SD' },
    ],
  });
  return { markdown, figures: { 'ex-5-checkpoint-moves.svg': figure } };
}
