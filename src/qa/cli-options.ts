import type { SlopgateConfig } from '../config/schema.js';
import { gitMaybe } from '../core/git.js';
import type { NavigatorGateOptions } from '../routing/navigator.js';
import { qaModelsFromEnv, roleModel, type Env, type ModelFactory } from './models-from-env.js';
import type { QaGateOptions } from './stage.js';

export interface LlmDeps {
  /** The LLM client's model constructor; absent, no model is built and the phases say why they did not run. */
  modelFactory?: ModelFactory;
  env?: Env;
}

/** The CLI's stand-in for a PR's title and description: the head commit's subject and body. */
async function headText(repoDir: string, head: string): Promise<{ title: string; body: string }> {
  const text = (await gitMaybe(repoDir, ['log', '-1', '--format=%s%n%b', '--end-of-options', head])) ?? '';
  const [title = '', ...body] = text.split('\n');
  return { title, body: body.join('\n').trim() };
}

/** `GateOptions.qa` / `.navigator` for `slopgate check`: Q&A with `--qa` or `qa.enabled`, the navigator with `navigator.enabled`. */
export async function cliLlmOptions(
  repoDir: string,
  head: string,
  config: SlopgateConfig,
  qaFlag: boolean,
  deps: LlmDeps = {},
): Promise<{ qa?: QaGateOptions; navigator?: NavigatorGateOptions }> {
  const wantQa = qaFlag || config.qa.enabled;
  if (!wantQa && !config.navigator.enabled) return {};
  const env = deps.env ?? process.env;
  const pr = await headText(repoDir, head);
  const out: { qa?: QaGateOptions; navigator?: NavigatorGateOptions } = {};
  if (wantQa) {
    const models = qaModelsFromEnv(env, deps.modelFactory);
    out.qa = { force: qaFlag, ...pr, ...('reason' in models ? { noModelReason: models.reason } : models) };
  }
  if (config.navigator.enabled) {
    const nav = roleModel(env, 'navigator', deps.modelFactory);
    if ('model' in nav) out.navigator = { model: nav.model, ...pr };
  }
  return out;
}
