/**
 * The numbers of `npm run exp:recipe-claims` (experiments/recipe-claims.ts): the chapter's claims
 * measured in each recipe's study (`seedClaims`), and where each stands across the recipes
 * (`claimsAcrossRecipes`): holds, fails, agrees or differs whatever the recipe, belongs to a
 * recipe, or is open.
 */
import type { Plan } from '../../study/index.ts';
import { claimsAcrossRecipes, type AcrossRecipes, type SeedClaims } from '../claims.ts';

/**
 * What exp:recipe-claims reports: each measured recipe's study and its plan's facts, every claim
 * across the recipes, the claims by standing, the recipes not run (and why) and those whose
 * outputs were made by mixed code.
 */
export function recipeClaimsNumbers({
  recipes,
  notRun,
  minSeeds,
}: {
  recipes: ReadonlyArray<{
    name: string;
    study: string;
    plan: Plan;
    claims: SeedClaims;
    mixedCode: string | undefined;
  }>;
  notRun: ReadonlyArray<{ name: string; study: string; why: string }>;
  minSeeds: number;
}) {
  const across = claimsAcrossRecipes(recipes.map(({ name, claims }) => ({ name, claims })));
  const everyClaim = [...across.rates, ...across.values];
  const claimsWhere = (where: AcrossRecipes) =>
    everyClaim.filter((row) => row.across === where).map((row) => row.claim);
  return {
    split: 'held-out',
    minSeeds,
    studies: recipes.map(({ name, study, plan }) => ({
      name,
      study,
      recipe: plan.recipe,
      configHash: plan.configHash,
      evalSeed: plan.evalSeed,
      seeds: plan.seeds,
      episodes: plan.measure.episodes,
    })),
    ...across,
    summary: {
      holdsWhatever: claimsWhere('holds whatever the recipe'),
      failsWhatever: claimsWhere('fails whatever the recipe'),
      agreesWhatever: claimsWhere('agrees whatever the recipe'),
      differsWhatever: claimsWhere('differs whatever the recipe'),
      belongsToRecipe: claimsWhere('belongs to a recipe'),
      falseByConstruction: claimsWhere('false by construction'),
      open: claimsWhere('open'),
    },
    notRun,
    mixedCode: recipes.flatMap(({ name, mixedCode }) =>
      mixedCode === undefined ? [] : [{ name, text: mixedCode }],
    ),
  };
}

export type NumbersRecipeClaims = ReturnType<typeof recipeClaimsNumbers>;
