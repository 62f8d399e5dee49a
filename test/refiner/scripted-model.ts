import { LlmError, type ChatMessage, type JsonModel, type JsonRequest, type JsonResult } from '../../src/llm/port.js';
import { schemaProblems } from '../../src/refiner/patch-schema.js';

/**
 * A test double of the model port: replays scripted replies in order, validates each with the
 * caller's schema exactly as a real client must (a reply that fails the schema is an LlmError of kind
 * `schema`), and records every conversation it was given. No HTTP.
 */
export class ScriptedModel implements JsonModel {
  readonly model = 'scripted-model';
  readonly conversations: ChatMessage[][] = [];

  constructor(private readonly replies: unknown[]) {}

  get remaining(): number {
    return this.replies.length;
  }

  async completeJson<T>(request: JsonRequest<T>): Promise<JsonResult<T>> {
    this.conversations.push(request.messages);
    if (this.replies.length === 0) throw new LlmError('network', 'the script has no more replies');
    const raw = this.replies.shift();
    const prompt = request.messages.reduce((n, m) => n + m.content.length, 0);
    const usage = { promptTokens: Math.ceil(prompt / 4), completionTokens: Math.ceil(JSON.stringify(raw).length / 4), calls: 1 };
    const parsed = request.schema.safeParse(raw);
    if (!parsed.success) throw new LlmError('schema', schemaProblems(parsed.error));
    return { value: parsed.data, usage, model: this.model, attempts: 1 };
  }
}

/** The user turn of conversation `i` (the refiner sends system + user). */
export function userTurn(model: ScriptedModel, i: number): string {
  return model.conversations[i]?.find((m) => m.role === 'user')?.content ?? '';
}
