/**
 * The chapter's analysis: each section's numbers (sections/: one function per section, whose return
 * type is `Numbers171` ... `NumbersRecipes`), the claims across a study's seeds (claims.ts,
 * docs/CLAIMS.md), the coverage simulation's worlds and interval methods, and the book's figures
 * against ours (book.ts). This index hands on only what other folders read.
 */
export { CLAIMS, SUPPORTED, VALUE_CLAIMS, SELECTION_FIGURES, seedClaims } from './claims.ts';
export { requireChapterSteps, type ClaimName, type SeedClaims, type SeedFraction } from './claims.ts';
export type { ValueClaimName } from './claims.ts';
export { shareSE, zScore } from './book.ts';
export { passAtKNumbers, type Numbers172 } from './sections/17.2.ts';
export { confidenceIntervalNumbers, populationMean } from './sections/17.3.ts';
export type { CoverageConfig, Numbers173 } from './sections/17.3.ts';
export { estimatorVarianceNumbers, type NumbersEx1 } from './sections/ex-1.ts';
export { designReviewNumbers, type NumbersEx7 } from './sections/ex-7.ts';
export { passRateNumbers, type Numbers171 } from './sections/17.1.ts';
export { comparingRunsNumbers, type Numbers174 } from './sections/17.4.ts';
export { harnessNumbers, type Numbers175 } from './sections/17.5.ts';
export { heldOutNumbers, type Numbers176 } from './sections/17.6.ts';
export { narrowingNumbers, narrowingTasks, type Narrowing, type Numbers177 } from './sections/17.7.ts';
export { selectionNumbers, type Numbers178 } from './sections/17.8.ts';
export { designProblemNumbers, type Numbers179 } from './sections/17.9.ts';
export { largeKNumbers, type NumbersEx2 } from './sections/ex-2.ts';
export { bayesianNumbers, type NumbersEx3 } from './sections/ex-3.ts';
export { heldOutTypeNumbers, type NumbersEx4 } from './sections/ex-4.ts';
export { canaryNumbers, type NumbersEx5 } from './sections/ex-5.ts';
export { commonRandomNumbers, type NumbersEx6 } from './sections/ex-6.ts';
export { CLAIM_RATE_METHOD, CREDIBLE_INTERVAL_METHOD, EPISODE_BOOTSTRAP_METHOD } from './intervalMethods.ts';
export { EVALUATION_SD_METHOD, IMPROVEMENT_METHOD, IQM_METHOD } from './intervalMethods.ts';
export { MEAN_OVER_SEEDS_METHOD, PAIRED_T_METHOD, PROFILE_METHOD } from './intervalMethods.ts';
export { SEED_BOOTSTRAP_METHOD, TASK_BOOTSTRAP_METHOD, TRAINING_SD_METHOD } from './intervalMethods.ts';
export { WELCH_METHOD, WILSON_METHOD, eightSeeds, selectionMethod } from './intervalMethods.ts';
export { BOUNDARY, COMPARE, EVALUATION, STUDY, STUDY8, type Sizes } from './coverageMethods.ts';
export { loadWorlds } from './coverageWorld.ts';
export { coverageNumbers, type NumbersCoverage } from './sections/coverage.ts';
export { recipeClaimsNumbers, type NumbersRecipeClaims } from './sections/recipe-claims.ts';
export { recipesNumbers, type NumbersRecipes } from './sections/recipes.ts';
export { designNumbers, parseUntrainedWords, type NumbersDesign } from './sections/design.ts';
export { UNTRAINED_WORDS_DRAWS, UNTRAINED_WORDS_FILE, UNTRAINED_WORDS_STEP } from './sections/design.ts';
export type { UntrainedWords } from './sections/design.ts';
export { studyReportNumbers, type StudyReportNumbers } from './studyReport.ts';
