import type { HostKind } from '../core/host-kind.js';
import type { Report } from '../core/report.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

export type ReportFormat = 'text' | 'json' | 'markdown' | 'sarif';
export const REPORT_FORMATS: ReportFormat[] = ['text', 'json', 'markdown', 'sarif'];

export interface RenderOptions {
  /** ANSI colours (text format only). */
  color?: boolean;
  /** The host the report is read in: its advice names only what that host offers (default: the CLI). */
  host?: HostKind;
}

export function renderReport(format: ReportFormat, report: Report, opts: RenderOptions = {}): string {
  switch (format) {
    case 'text':
      return renderText(report, { color: opts.color ?? false, host: opts.host ?? 'cli' });
    case 'markdown':
      return renderMarkdown(report, { host: opts.host ?? 'cli' });
    case 'sarif':
      return renderSarif(report);
    case 'json':
    default:
      return JSON.stringify(report, null, 2) + '\n';
  }
}
