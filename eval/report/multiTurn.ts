import type { ResultRow } from '../io/resultFile.ts';
import { getOrAdd } from '../../lib/collections.ts';

/**
 * The multi-turn view of METRICS.md (diagnosis item 4) for rows with `turn`: a conversation is
 * one (run, task, sample); its turns are not attempts. Per recorded turn index (in order): the
 * passes, the conversations still going and both rates; the first failed turn ('none': never);
 * whole-conversation success; success by each turn (monotone); the final answer (not monotone)
 * and the conversations that passed at some turn and ended wrong.
 */
export function multiTurnReport(rows: readonly ResultRow[]) {
  const conversations = new Map<string, Map<number, boolean>>();
  for (const row of rows) {
    if (row.turn === undefined) continue;
    const key = JSON.stringify([row.run ?? null, row.task, row.sample]);
    const turns = getOrAdd(conversations, key, () => new Map());
    if (!turns.has(row.turn)) turns.set(row.turn, row.passed);
  }
  const total = conversations.size;
  // Turn positions are the distinct recorded turn indices in order, so that a file with turns
  // 0, 1, 5 (or 0 and 2^53 - 1) has three (two) positions, not a slot for every integer between.
  const turnIndices = [...new Set([...conversations.values()].flatMap((turns) => [...turns.keys()]))].sort(
    (x, y) => x - y,
  );
  const position = new Map(turnIndices.map((turn, i) => [turn, i]));
  const passedAt = new Array<number>(turnIndices.length).fill(0);
  const goingAt = new Array<number>(turnIndices.length).fill(0);
  const succeededBy = new Array<number>(turnIndices.length).fill(0);
  const firstFailure: Record<string, number> = {};
  let whole = 0;
  let final = 0;
  let brokenLater = 0;
  for (const turns of conversations.values()) {
    const ordered = [...turns.entries()].sort((x, y) => x[0] - y[0]);
    let firstFail: number | undefined;
    let firstPass: number | undefined;
    for (const [turn, passed] of ordered) {
      const slot = position.get(turn)!;
      goingAt[slot]! += 1;
      if (passed) {
        passedAt[slot]! += 1;
        firstPass ??= turn;
      } else firstFail ??= turn;
    }
    const key = firstFail === undefined ? 'none' : String(firstFail);
    firstFailure[key] = (firstFailure[key] ?? 0) + 1;
    if (firstFail === undefined) whole++;
    const last = ordered[ordered.length - 1]![1];
    if (last) final++;
    if (firstPass !== undefined) {
      for (let k = position.get(firstPass)!; k < turnIndices.length; k++) succeededBy[k]! += 1;
      if (!last) brokenLater++;
    }
  }
  return {
    conversations: total,
    perTurn: turnIndices.map((turn, i) => ({
      turn,
      passed: passedAt[i]!,
      stillGoing: goingAt[i]!,
      accuracyAmongStillGoing: goingAt[i]! > 0 ? passedAt[i]! / goingAt[i]! : 0,
      accuracyOverAll: passedAt[i]! / total,
    })),
    firstFailure,
    wholeConversation: whole / total,
    succeededByTurn: succeededBy.map((count) => count / total),
    finalAnswer: final / total,
    brokenLater,
  };
}

export type MultiTurnReport = ReturnType<typeof multiTurnReport>;
