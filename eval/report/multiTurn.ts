import type { ResultRow } from '../io/resultFile.ts';

export interface MultiTurnReport {
  conversations: number;
  /** Per turn t (0-based): passes, the conversations still going at t, and both rates. */
  perTurn: Array<{ turn: number; passed: number; stillGoing: number; accuracyAmongStillGoing: number; accuracyOverAll: number }>;
  /** First failed turn -> number of conversations ('none' = never failed). */
  firstFailure: Record<string, number>;
  /** Every recorded turn passed. */
  wholeConversation: number;
  /** Some turn <= k passed, k = 1..T: monotone on one trajectory. */
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
  const maxTurn = Math.max(...[...conversations.values()].flatMap((turns) => [...turns.keys()]));
  const perTurn = Array.from({ length: maxTurn + 1 }, (_, turn) => ({ turn, passed: 0, stillGoing: 0, accuracyAmongStillGoing: 0, accuracyOverAll: 0 }));
  const firstFailure: Record<string, number> = {};
  const succeededBy = new Array<number>(maxTurn + 1).fill(0);
  let whole = 0;
  let final = 0;
  let brokenLater = 0;
  for (const turns of conversations.values()) {
    const ordered = [...turns.entries()].sort((x, y) => x[0] - y[0]);
    let firstFail: number | undefined;
    let firstPass: number | undefined;
    for (const [turn, passed] of ordered) {
      const slot = perTurn[turn] as (typeof perTurn)[number];
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
      for (let k = firstPass; k <= maxTurn; k++) succeededBy[k] = (succeededBy[k] as number) + 1;
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
