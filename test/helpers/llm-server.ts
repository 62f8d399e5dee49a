import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible model, for tests that must not mock the client.
 *
 *   const llm = await startLlmServer();
 *   llm.reply({ content: '{"ok":true}' });                         // 200 with this chat content
 *   llm.reply({ status: 429, headers: { 'retry-after': '1' } });   // an error status
 *   llm.reply({ hang: true });                                     // accept and never answer
 *   const model = new OpenAiModel({ baseUrl: llm.baseUrl, model: 'm', apiKey: 'k' });   // or modelFromEnv(llm.env())
 *   ... llm.requests[1].messages ...                               // what the client sent, in order
 *   llm.assertDone();                                              // every scripted reply was used
 *   await llm.close();
 *
 * Replies are served first in, first out, one per POST. A POST with no scripted reply left gets HTTP 599
 * and is counted in `unexpected`, so a test sees the client asked once too often.
 */
export interface ScriptedReply {
  /** HTTP status; default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** The assistant message content (200 only); null sends `content: null`. Default `{}`. */
  content?: string | null;
  /** Default `stop`. */
  finishReason?: string;
  /** Default 10 prompt / 5 completion tokens; null leaves `usage` out. */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  /** The `model` field of the response; default the requested model. */
  model?: string;
  /** A raw body instead of the chat-completions envelope (for error bodies and broken servers). */
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the socket is closed by `close()` or by the client's timeout). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it was not JSON). */
  body: Record<string, unknown> | null;
  /** `body.messages`, typed for assertions. */
  messages: { role: string; content: string }[];
}

export interface LlmServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** POSTs that found the queue empty. */
  readonly unexpected: number;
  reply(...replies: ScriptedReply[]): void;
  /** Scripted replies not yet served. */
  pending(): number;
  /** Throws unless every scripted reply was served and none was missing. */
  assertDone(): void;
  /** An environment for `modelFromEnv` naming this server (prefix default `SLOPGATE_LLM`). */
  env(opts?: { model?: string; apiKey?: string; prefix?: string; extra?: Record<string, string> }): Record<string, string>;
  close(): Promise<void>;
}

export async function startLlmServer(): Promise<LlmServer> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let unexpected = 0;
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(raw);
        // The client under test sends an object; anything else is recorded as null.
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
      } catch {
        body = null;
      }
      const messages = Array.isArray(body?.messages) ? (body.messages as RecordedRequest['messages']) : [];
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, messages });
      const script = queue.shift();
      if (!script) {
        unexpected++;
        res.writeHead(599, { 'content-type': 'text/plain' }).end('no scripted reply left');
        return;
      }
      if (script.hang) return;
      const send = (): void => {
        const status = script.status ?? 200;
        const headers = { 'content-type': 'application/json', ...script.headers };
        if (script.body !== undefined) {
          res.writeHead(status, headers).end(script.body);
          return;
        }
        if (status !== 200) {
          res.writeHead(status, headers).end(JSON.stringify({ error: { message: `scripted ${status}` } }));
          return;
        }
        const usage = script.usage === undefined ? { prompt_tokens: 10, completion_tokens: 5 } : script.usage;
        const envelope = {
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: script.model ?? (typeof body?.model === 'string' ? body.model : 'unknown'),
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: script.content === undefined ? '{}' : script.content },
              finish_reason: script.finishReason ?? 'stop',
            },
          ],
          ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
        };
        res.writeHead(status, headers).end(JSON.stringify(envelope));
      };
      if (script.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, script.delayMs);
        timers.add(timer);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // listen() on a TCP port yields an AddressInfo.
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/v1`;

  return {
    baseUrl,
    requests,
    get unexpected() {
      return unexpected;
    },
    reply: (...replies) => void queue.push(...replies),
    pending: () => queue.length,
    assertDone() {
      if (queue.length > 0 || unexpected > 0) {
        throw new Error(`llm-server: ${queue.length} scripted repl(ies) unused, ${unexpected} request(s) without a script`);
      }
    },
    env(opts = {}) {
      const prefix = opts.prefix ?? 'SLOPGATE_LLM';
      return {
        [`${prefix}_BASE_URL`]: baseUrl,
        [`${prefix}_MODEL`]: opts.model ?? 'test-model',
        ...(opts.apiKey ? { [`${prefix}_API_KEY`]: opts.apiKey } : {}),
        ...opts.extra,
      };
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
