import { InputError } from '../core/errors.js';
import type { JsonModel } from '../llm/port.js';
import type { Recipe } from '../refiner/types.js';

/**
 * Optional parts of `slopgate refine`, looked up at run time so the command works (recipes only, or
 * nothing) in a build that lacks one of them: the recipes (`src/refiner/recipes/`) and the
 * OpenAI-compatible client (`src/llm/`). Tests inject both directly.
 */

async function optionalModule(relative: string): Promise<Record<string, unknown> | null> {
  const url = new URL(relative, import.meta.url);
  try {
    return (await import(url.href)) as Record<string, unknown>; // I/O boundary: a module namespace
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(url.pathname.replace(/\.js$/, ''))) return null;
    throw err;
  }
}

/** The registry of known fixes, or none when this build has no recipes. */
export async function loadRecipes(): Promise<Recipe[]> {
  const mod = await optionalModule('../refiner/recipes/index.js');
  const list = mod?.RECIPES;
  return Array.isArray(list) ? (list as Recipe[]) : []; // the registry's declared type
}

/** True when the environment names a model (`SLOPGATE_LLM_BASE_URL` and `SLOPGATE_LLM_MODEL`). */
export function llmConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.SLOPGATE_LLM_BASE_URL?.trim() && env.SLOPGATE_LLM_MODEL?.trim());
}

/**
 * The model named by the environment, or undefined when none is. The client module must export
 * `modelFromEnv(env): JsonModel`; a build without it fails loudly rather than silently running
 * recipes only when a model was asked for.
 */
export async function loadModel(env: NodeJS.ProcessEnv = process.env): Promise<JsonModel | undefined> {
  if (!llmConfigured(env)) return undefined;
  const mod = await optionalModule('../llm/from-env.js');
  const factory = mod?.modelFromEnv;
  if (typeof factory !== 'function') {
    throw new InputError(
      'SLOPGATE_LLM_* is set but this build has no LLM client (src/llm/from-env.ts)',
      'unset SLOPGATE_LLM_BASE_URL to run the recipes only',
    );
  }
  return (factory as (e: NodeJS.ProcessEnv) => JsonModel)(env); // the client's declared signature
}
