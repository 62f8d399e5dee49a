import { errorMessage } from '../core/errors.js';
import { modelFromEnv } from '../llm/model-env.js';
import type { JsonModel } from '../llm/port.js';

/**
 * Which model each LLM role uses. A role reads its own prefix (`SLOPGATE_QA_QUESTIONER_`,
 * `SLOPGATE_QA_DEFENDER_`, `SLOPGATE_NAVIGATOR_`) and falls back, key by key, to `SLOPGATE_LLM_`.
 * The API key is the exception: the shared key is lent to a role only when the role talks to the
 * shared base URL, so overriding a role's endpoint never sends the main key to another host.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** Builds a model from the env keys under `prefix` (the LLM client's `modelFromEnv`). */
export type ModelFactory = (env: Env, prefix: string) => JsonModel;

/** The OpenAI-compatible client as a {@link ModelFactory} (role prefixes end in `_`, the client's do not). */
export const llmModelFactory: ModelFactory = (env, prefix) => {
  const model = modelFromEnv(env, prefix.replace(/_$/, ''));
  if (!model) throw new Error(`no model configured under ${prefix}*`);
  return model;
};

export const SHARED_PREFIX = 'SLOPGATE_LLM_';
export const ROLE_PREFIXES = {
  questioner: 'SLOPGATE_QA_QUESTIONER_',
  defender: 'SLOPGATE_QA_DEFENDER_',
  navigator: 'SLOPGATE_NAVIGATOR_',
} as const;
export type LlmRole = keyof typeof ROLE_PREFIXES;

const SECRET_KEY = /(^|_)(API_KEY|KEY|TOKEN)$/;

/** The env a role's model is built from: its own keys, plus the shared ones it did not set. */
export function roleEnv(env: Env, role: LlmRole): Record<string, string | undefined> {
  const prefix = ROLE_PREFIXES[role];
  const out: Record<string, string | undefined> = { ...env };
  const ownBase = env[`${prefix}BASE_URL`];
  const sameHost = ownBase === undefined || ownBase === env[`${SHARED_PREFIX}BASE_URL`];
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith(SHARED_PREFIX) || value === undefined) continue;
    const suffix = key.slice(SHARED_PREFIX.length);
    if (SECRET_KEY.test(suffix) && !sameHost) continue;
    if (out[`${prefix}${suffix}`] === undefined) out[`${prefix}${suffix}`] = value;
  }
  return out;
}

export type RoleModel = { model: JsonModel } | { reason: string };

/** A role's model, or why there is none (no base URL anywhere, or the client refused the settings). */
export function roleModel(env: Env, role: LlmRole, factory: ModelFactory | undefined): RoleModel {
  const prefix = ROLE_PREFIXES[role];
  const merged = roleEnv(env, role);
  if (!merged[`${prefix}BASE_URL`]) {
    return { reason: `no model configured for the ${role} (set ${prefix}BASE_URL or ${SHARED_PREFIX}BASE_URL)` };
  }
  if (!factory) return { reason: 'this build has no LLM client wired in' };
  try {
    return { model: factory(merged, prefix) };
  } catch (err) {
    const why = errorMessage(err).split('\n', 1)[0]!.slice(0, 300);
    return { reason: `the ${role} model settings were refused: ${setVariables(why, env, prefix)}` };
  }
}

/**
 * `why` with each `<prefix>X` the role did not set itself but took from `SLOPGATE_LLM_X` renamed to the
 * latter: the message names the variable the user set, the one to change.
 */
function setVariables(why: string, env: Env, prefix: string): string {
  return why.replace(new RegExp(`\\b${prefix}([A-Z0-9_]+)\\b`, 'g'), (name, suffix: string) =>
    env[name] === undefined && env[`${SHARED_PREFIX}${suffix}`] !== undefined ? `${SHARED_PREFIX}${suffix}` : name,
  );
}

/** Both Q&A models, or the first reason one of them is missing. */
export function qaModelsFromEnv(
  env: Env,
  factory: ModelFactory | undefined,
): { questioner: JsonModel; defender: JsonModel } | { reason: string } {
  const questioner = roleModel(env, 'questioner', factory);
  if ('reason' in questioner) return questioner;
  const defender = roleModel(env, 'defender', factory);
  if ('reason' in defender) return defender;
  return { questioner: questioner.model, defender: defender.model };
}
