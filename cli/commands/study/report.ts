import { studyFolder } from '../../../study/disk.ts';
import { describeMixedFingerprints, fingerprintGroups, outputProblem } from '../../../study/output.ts';
import { splitName, type Plan } from '../../../study/plan.ts';
import { boolFlag, InputError, printJson, type CommandArgs } from '../../args.ts';

/**
 * Which code made the outputs a report merges (agent/fingerprint.ts): one report is of one code,
 * unless --allow-mixed, when the report says which jobs differ in what (`mixedCode`).
 */
function outputsCode(args: CommandArgs, plan: Plan) {
  const done = plan.jobs.filter((job) => outputProblem(plan, job) === undefined);
  const groups = fingerprintGroups(plan, done);
  const mixedCode = describeMixedFingerprints(groups);
  if (mixedCode !== undefined && !boolFlag(args, 'allow-mixed'))
    throw new InputError(
      `${plan.dir}: its outputs were made by different code: ${mixedCode}; rerun those jobs with one version (remove their jobs/<id> folders, then study run), or merge them anyway with --allow-mixed`,
    );
  if (mixedCode !== undefined)
    process.stderr.write(`tinyagent study: warning: merging outputs of different code: ${mixedCode}\n`);
  else if (groups.length === 1 && groups[0]!.fingerprint === undefined)
    process.stderr.write(
      `tinyagent study: note: no output of ${plan.dir} records a fingerprint (made before fingerprints were recorded), so they are merged as one code that cannot be named\n`,
    );
  const outputsFingerprint = groups.length === 1 ? groups[0]!.fingerprint : undefined;
  return {
    ...(mixedCode !== undefined ? { mixedCode } : {}),
    ...(outputsFingerprint !== undefined ? { outputsFingerprint } : {}),
  };
}

/** `study report`: the study's results, Markdown and figure into its results/ folder. */
export async function studyReport(args: CommandArgs, plan: Plan): Promise<void> {
  const { writeStudyReport } = await import('../../../publish/studyReport.ts');
  // The folders it writes into stay inside the study: a link or a file in their place is refused.
  for (const folder of ['results', 'results/figures']) studyFolder(plan.dir, folder);
  const { outDir, numbers } = await writeStudyReport(plan, outputsCode(args, plan));
  if (boolFlag(args, 'json')) return printJson(numbers);
  const last = numbers.steps[numbers.steps.length - 1]!;
  process.stdout.write(
    `step-${last.step} ${splitName(plan)} pass@1 over ${numbers.seeds.length} seeds: mean ${last.mean.estimate.toFixed(3)}, SD ${last.sd === null ? 'n/a' : last.sd.estimate.toFixed(3)}, ${last.min.toFixed(3)} to ${last.max.toFixed(3)}; written to ${outDir}\n`,
  );
}
