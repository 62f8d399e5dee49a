import { modelFromEnv } from '../llm/model-env.js';
import type { JsonModel } from '../llm/port.js';
import { RECIPES } from '../refiner/recipes/index.js';
import type { Recipe } from '../refiner/types.js';

/** The registry of known fixes (`src/refiner/recipes/`). */
export function loadRecipes(): Recipe[] {
  return RECIPES;
}

/**
 * The model `SLOPGATE_LLM_*` names, or undefined when none is set (the refiner then runs the recipes
 * only and says so). Half a configuration is an error from the client, never a silent fallback.
 */
export function loadModel(env: NodeJS.ProcessEnv = process.env): JsonModel | undefined {
  return modelFromEnv(env) ?? undefined;
}
