/**
 * The chapter's analysis across the seeds of a study: each claim's verdicts, rates, detection
 * rates and standings (claims.ts, docs/CLAIMS.md), and the aggregates over seeds x tasks with a
 * seed as the unit (aggregates.ts). It reads a study's results (study/) and computes with eval/.
 */
export {
  BOOK_CURSE,
  BOOK_TASK,
  BOOK_TEMPERATURE,
  CLAIMS,
  DETECTION_TO_FAIL,
  FALSE_BY_CONSTRUCTION,
  SUPPORTED,
  VALUE_CLAIMS,
  detectionRate,
  acrossRecipes,
  claimsAcrossRecipes,
  curseStanding,
  rateStanding,
  reproducibleStanding,
  requireChapterSteps,
  seedClaims,
  seedSelection,
  SELECTION_FIGURES,
  pairedDropP,
  type AcrossRecipes,
  type ClaimName,
  type ClaimsAcrossRecipes,
  type SeedClaims,
  type SeedFraction,
  type Standing,
  type ValueClaimName,
} from './claims.ts';
export {
  AGGREGATE_REPS,
  PROFILE_TAUS,
  improvement,
  seedAggregates,
  seedImprovement,
  stepAggregates,
  type SeedEstimate,
} from './aggregates.ts';
