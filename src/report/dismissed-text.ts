import type { Dismissal, DismissalSource } from '../core/finding.js';
import { stripControl } from './format-helpers.js';

const SOURCE_LABEL: Record<DismissalSource, string> = {
  command: '/slopgate dismiss',
  inline: 'slopgate-ignore comment',
  config: 'ignore.findings in the config',
};

/**
 * "dismissed by alice via /slopgate dismiss on 2026-11-24: intentional refactor" as plain text, control
 * characters removed. Reporters escape it for their format (the reason can come from the PR itself).
 */
export function dismissedText(d: Dismissal): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(d.at)?.[0];
  const via = SOURCE_LABEL[d.source];
  return stripControl(`dismissed by ${d.by} via ${via}${day ? ` on ${day}` : ''}: ${d.reason}`)
    .replace(/\s+/g, ' ')
    .trim();
}
