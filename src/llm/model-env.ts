import type { Logger } from '../core/trace.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, OpenAiModel, type OpenAiModelOptions } from './openai-model.js';
import { LlmError } from './port.js';
import type { TokenLedger } from './token-ledger.js';

/**
 * The model a prefix names in the environment, e.g. `SLOPGATE_LLM_BASE_URL` + `SLOPGATE_LLM_MODEL`
 * (+ `SLOPGATE_LLM_API_KEY`), or null when none of the three is set (slopgate then runs without a model).
 * Half a configuration is an error, not a silent fallback. Each prefix stands alone: a key set for one
 * prefix is never sent to another prefix's base URL (the Q&A phase may use `SLOPGATE_QA_QUESTIONER_*`
 * for a different endpoint; falling back to `SLOPGATE_LLM` is the caller's choice).
 *
 * Tuning, per prefix: `_TIMEOUT_MS` (per HTTP call, default 120000), `_MAX_RETRIES` (HTTP retries,
 * default 3), `_NO_THINK` (1/true/yes: `/no_think` for Qwen3-class models), `_ALLOW_HTTP` (1: allow the
 * key over plain http to a host that is not loopback).
 */
export interface ModelFromEnvOptions {
  log?: Logger;
  ledger?: TokenLedger;
  /** Passed through to the model (tests). */
  overrides?: Partial<OpenAiModelOptions>;
}

export function modelFromEnv(
  env: Record<string, string | undefined>,
  prefix = 'SLOPGATE_LLM',
  options: ModelFromEnvOptions = {},
): OpenAiModel | null {
  const read = (name: string): string | undefined => {
    const value = env[`${prefix}_${name}`]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const baseUrl = read('BASE_URL');
  const model = read('MODEL');
  const apiKey = read('API_KEY');
  if (baseUrl === undefined && model === undefined && apiKey === undefined) return null;
  const missing = [baseUrl === undefined ? `${prefix}_BASE_URL` : null, model === undefined ? `${prefix}_MODEL` : null].filter(
    (name): name is string => name !== null,
  );
  if (baseUrl === undefined || model === undefined) {
    throw new LlmError(
      'config',
      `the model is half-configured: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set. ` +
        `Set ${prefix}_BASE_URL and ${prefix}_MODEL (and ${prefix}_API_KEY if the server needs one), ` +
        'or none of them to run without a model.',
    );
  }
  return new OpenAiModel({
    baseUrl,
    model,
    apiKey: apiKey ?? null,
    timeoutMs: integer(read('TIMEOUT_MS'), `${prefix}_TIMEOUT_MS`, DEFAULT_TIMEOUT_MS, 1, 3_600_000),
    maxRetries: integer(read('MAX_RETRIES'), `${prefix}_MAX_RETRIES`, DEFAULT_MAX_RETRIES, 0, 10),
    noThink: flag(read('NO_THINK'), `${prefix}_NO_THINK`),
    allowInsecureHttp: flag(read('ALLOW_HTTP'), `${prefix}_ALLOW_HTTP`),
    settingNames: {
      baseUrl: `${prefix}_BASE_URL`,
      model: `${prefix}_MODEL`,
      apiKey: `${prefix}_API_KEY`,
      allowHttp: `${prefix}_ALLOW_HTTP`,
    },
    ...(options.log ? { log: options.log } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...options.overrides,
  });
}

function integer(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new LlmError('config', `${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'no') return false;
  throw new LlmError('config', `${name} must be 1/true/yes or 0/false/no`);
}
