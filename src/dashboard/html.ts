import { escapeHtml } from '../report/markdown-escape.js';

/**
 * A tiny HTML builder for the dashboard: `html` is a tagged template whose interpolations are escaped
 * unless they are already `Html` (built by `html` itself), so a page cannot forget to escape what came
 * from a pull request (titles, messages, paths, test ids). Arrays are joined.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map((p: Part) => render(p)).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < parts.length; i++) out += render(parts[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** JSON inside `<script type="application/json">`: `<`, `>` and `&` as escapes, so no text can close the element. */
export function jsonScript(id: string, value: unknown): Html {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return new Html(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function age(since: Date, now: Date = new Date()): string {
  const s = Math.max(0, (now.getTime() - since.getTime()) / 1000);
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

export function percent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}
