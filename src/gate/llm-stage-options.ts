import type { SlopgateConfig } from '../core/config-schema.js';
import { gitMaybe } from '../core/git.js';
import type { NavigatorGateOptions } from '../navigator/navigator.js';
import { llmModelFactory, qaModelsFromEnv, roleModel, type Env, type ModelFactory } from '../qa/models-from-env.js';
import type { QaGateOptions } from '../qa/stage.js';

export interface LlmDeps {
  /** Builds a role's model (default: the OpenAI-compatible client); tests inject a scripted one. */
  modelFactory?: ModelFactory;
  env?: Env;
}

/** The CLI's stand-in for a PR's title and description: the head commit's subject and body. */
async function headText(repoDir: string, head: string): Promise<{ title: string; body: string }> {
  const text = (await gitMaybe(repoDir, ['log', '-1', '--format=%s%n%b', '--end-of-options', head])) ?? '';
  const [title = '', ...body] = text.split('\n');
  return { title, body: body.join('\n').trim() };
}

export interface LlmGateOptions {
  qa?: QaGateOptions;
  navigator?: NavigatorGateOptions;
}

/**
 * `GateOptions.qa` / `.navigator` from the config, the PR's text and the environment: Q&A when
 * `force` (the CLI's `--qa`) or `qa.enabled`, the navigator when `navigator.enabled` and it has a model.
 * The App calls this with the pull request's title and body; the CLI through {@link cliLlmOptions}.
 */
export function llmGateOptions(
  config: SlopgateConfig,
  pr: { title: string; body: string },
  force: boolean,
  deps: LlmDeps = {},
): LlmGateOptions {
  const env = deps.env ?? process.env;
  const out: LlmGateOptions = {};
  if (force || config.qa.enabled) {
    const models = qaModelsFromEnv(env, deps.modelFactory ?? llmModelFactory);
    out.qa = { force, ...pr, ...('reason' in models ? { noModelReason: models.reason } : models) };
  }
  if (config.navigator.enabled) {
    const nav = roleModel(env, 'navigator', deps.modelFactory ?? llmModelFactory);
    if ('model' in nav) out.navigator = { model: nav.model, ...pr };
  }
  return out;
}

/** {@link llmGateOptions} for `slopgate check`, with the head commit's message as the PR's text. */
export async function cliLlmOptions(
  repoDir: string,
  head: string,
  config: SlopgateConfig,
  qaFlag: boolean,
  deps: LlmDeps = {},
): Promise<LlmGateOptions> {
  if (!qaFlag && !config.qa.enabled && !config.navigator.enabled) return {};
  return llmGateOptions(config, await headText(repoDir, head), qaFlag, deps);
}
