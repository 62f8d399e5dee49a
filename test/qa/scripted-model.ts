import { LlmError, type JsonModel, type JsonRequest, type JsonResult } from '../../src/llm/port.js';

/**
 * One scripted reply: a JSON value, an Error to throw, or a function `(request: JsonRequest<unknown>) => unknown`
 * (any value can be a JSON reply, so the type is `unknown` and the cases are told apart at run time).
 */
export type Reply = unknown;

/**
 * A JsonModel double with no HTTP: replies are taken in order and validated with the caller's schema,
 * like the real client does after its corrective turns (a mismatch is an LlmError of kind 'schema').
 * `validate: false` plays a faulty adapter that hands back whatever the model said.
 */
export class ScriptedModel implements JsonModel {
  readonly requests: JsonRequest<unknown>[] = [];
  private readonly replies: Reply[];

  constructor(
    readonly model: string,
    replies: Reply[],
    private readonly opts: { validate?: boolean } = {},
  ) {
    this.replies = [...replies];
  }

  async completeJson<T>(request: JsonRequest<T>): Promise<JsonResult<T>> {
    this.requests.push(request);
    const next = this.replies.shift();
    if (next === undefined) throw new LlmError('http', `scripted model ${this.model} has no reply left for ${request.purpose}`);
    if (next instanceof Error) throw next;
    const raw = typeof next === 'function' ? (next as (r: JsonRequest<unknown>) => unknown)(request) : next;
    const usage = { promptTokens: 10, completionTokens: 5, calls: 1 };
    if (this.opts.validate === false) return { value: raw as T, usage, model: this.model, attempts: 1 }; // the faulty adapter under test
    const parsed = request.schema.safeParse(raw);
    if (!parsed.success) throw new LlmError('schema', `reply does not match the schema: ${parsed.error.message.split('\n', 1)[0]}`);
    return { value: parsed.data, usage, model: this.model, attempts: 1 };
  }

  /** Every message content this model was sent, by role. */
  contents(role: 'system' | 'user' | 'assistant'): string[] {
    return this.requests.flatMap((r) => r.messages.filter((m) => m.role === role).map((m) => m.content));
  }
}
