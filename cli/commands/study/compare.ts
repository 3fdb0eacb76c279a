import { studyComparisonCoverage } from '../../../publish/coverageNotes.ts';
import { compareStudies, formatComparison } from '../../../study/compare.ts';
import { readPlan } from '../../../study/plan.ts';
import { boolFlag, printJson, type CommandArgs } from '../../args.ts';
import { outFlag, writeRecord } from '../../measurementRecord.ts';

/** `study compare A B`: two studies' recipes at step 80, printed, and with --out kept in a JSON file. */
export async function studyCompare(args: CommandArgs, dirA: string, dirB: string): Promise<void> {
  const out = outFlag(args);
  const measured = compareStudies(readPlan(dirA), readPlan(dirB));
  // The folders as given, not as resolved here: a committed comparison names no machine's paths.
  const comparison = { ...measured, a: { ...measured.a, dir: dirA }, b: { ...measured.b, dir: dirB } };
  const text = formatComparison(comparison, studyComparisonCoverage(comparison));
  if (out !== undefined) {
    writeRecord(out, 'study', args, undefined, { comparison, text: text.split('\n') });
    process.stderr.write(`wrote the comparison to ${out}\n`);
  }
  if (boolFlag(args, 'json')) printJson(comparison);
  else process.stdout.write(`${text}\n`);
}
