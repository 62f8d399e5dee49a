import { InputError } from '../core/errors.js';
import { modelFromEnv } from '../llm/model-env.js';
import { LlmError, type JsonModel } from '../llm/port.js';
import { RECIPES } from '../refiner/recipes/index.js';
import type { Recipe } from '../refiner/types.js';

/** The registry of known fixes (`src/refiner/recipes/`). */
export function loadRecipes(): Recipe[] {
  return RECIPES;
}

/**
 * The model `SLOPGATE_LLM_*` names, or undefined when none is set (the refiner then runs the recipes
 * only and says so). Half a configuration (a base URL without a model, say) or a value the client
 * refuses is a configuration error that names the variable: exit 2, before any work, never a silent
 * fallback and never a stack trace.
 */
export function loadModel(env: NodeJS.ProcessEnv = process.env): JsonModel | undefined {
  try {
    return modelFromEnv(env) ?? undefined;
  } catch (err) {
    if (err instanceof LlmError && err.kind === 'config') {
      throw new InputError(
        `model configuration: ${err.message}`,
        'fix the SLOPGATE_LLM_* variables, or unset all of them to run the recipes only',
      );
    }
    throw err;
  }
}
