import type { ResultRow } from '../io/resultFile.ts';

export interface MultiTurnReport {
  conversations: number;
  /** Per recorded turn index t (0-based, in order): passes, the conversations still going at t, and both rates. */
  perTurn: Array<{
    turn: number;
    passed: number;
    stillGoing: number;
    accuracyAmongStillGoing: number;
    accuracyOverAll: number;
  }>;
  /** First failed turn -> number of conversations ('none' = never failed). */
  firstFailure: Record<string, number>;
  /** Every recorded turn passed. */
  wholeConversation: number;
  /** Some turn up to the k-th recorded turn index passed: monotone on one trajectory. */
  succeededByTurn: number[];
  /** The last turn passed: not monotone, a later turn can break a right answer. */
  finalAnswer: number;
  /** Conversations that passed at some turn and ended wrong. */
  brokenLater: number;
}

/**
 * The multi-turn view of METRICS.md (diagnosis item 4) for rows with `turn`: a conversation is
 * one (run, task, sample); its turns are not attempts.
 */
export function multiTurnReport(rows: readonly ResultRow[]): MultiTurnReport {
  const conversations = new Map<string, Map<number, boolean>>();
  for (const row of rows) {
    if (row.turn === undefined) continue;
    const key = JSON.stringify([row.run ?? null, row.task, row.sample]);
    let turns = conversations.get(key);
    if (turns === undefined) conversations.set(key, (turns = new Map()));
    if (!turns.has(row.turn)) turns.set(row.turn, row.passed);
  }
  const total = conversations.size;
  // Turn positions are the distinct recorded turn indices in order, so that a file with turns
  // 0, 1, 5 (or 0 and 2^53 - 1) has three (two) positions, not a slot for every integer between.
  const turnIndices = [...new Set([...conversations.values()].flatMap((turns) => [...turns.keys()]))].sort(
    (x, y) => x - y,
  );
  const position = new Map(turnIndices.map((turn, i) => [turn, i]));
  const perTurn = turnIndices.map((turn) => ({
    turn,
    passed: 0,
    stillGoing: 0,
    accuracyAmongStillGoing: 0,
    accuracyOverAll: 0,
  }));
  const firstFailure: Record<string, number> = {};
  const succeededBy = new Array<number>(turnIndices.length).fill(0);
  let whole = 0;
  let final = 0;
  let brokenLater = 0;
  for (const turns of conversations.values()) {
    const ordered = [...turns.entries()].sort((x, y) => x[0] - y[0]);
    let firstFail: number | undefined;
    let firstPass: number | undefined;
    for (const [turn, passed] of ordered) {
      const slot = perTurn[position.get(turn) as number] as (typeof perTurn)[number];
      slot.stillGoing++;
      if (passed) {
        slot.passed++;
        firstPass ??= turn;
      } else firstFail ??= turn;
    }
    const key = firstFail === undefined ? 'none' : String(firstFail);
    firstFailure[key] = (firstFailure[key] ?? 0) + 1;
    if (firstFail === undefined) whole++;
    const last = (ordered[ordered.length - 1] as [number, boolean])[1];
    if (last) final++;
    if (firstPass !== undefined) {
      for (let k = position.get(firstPass) as number; k < turnIndices.length; k++)
        succeededBy[k] = (succeededBy[k] as number) + 1;
      if (!last) brokenLater++;
    }
  }
  for (const slot of perTurn) {
    slot.accuracyAmongStillGoing = slot.stillGoing > 0 ? slot.passed / slot.stillGoing : 0;
    slot.accuracyOverAll = slot.passed / total;
  }
  return {
    conversations: total,
    perTurn,
    firstFailure,
    wholeConversation: whole / total,
    succeededByTurn: succeededBy.map((count) => count / total),
    finalAnswer: final / total,
    brokenLater,
  };
}
