import { readFileSync } from 'node:fs';
import { k8sContainerArgs, writeK8sManifests } from '../../../study/scheduler.ts';
import type { Plan } from '../../../study/plan.ts';
import { intFlag, stringFlag, type CommandArgs } from '../../args.ts';
import { taskResources } from './flags.ts';

/** `study k8s`: writes the two Indexed Job manifests (training, then evaluation). */
export async function studyK8s(args: CommandArgs, plan: Plan, timeout: number): Promise<void> {
  const paths = writeK8sManifests(plan, {
    ...taskResources(args),
    leaseTimeout: timeout,
    image: stringFlag(args, 'image') ?? 'tinyagent:local',
    claim: stringFlag(args, 'claim') ?? 'tinyagent-studies',
    parallelism: intFlag(args, 'parallelism', 4),
  });
  const podCommand = (path: string) => `tinyagent ${k8sContainerArgs(readFileSync(path, 'utf8')).join(' ')}`;
  process.stdout.write(
    `wrote ${paths.train} (pods run: ${podCommand(paths.train)}) and ${paths.eval} (${podCommand(paths.eval)}); apply the second once the first Job is complete\n`,
  );
}
