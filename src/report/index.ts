import type { Report } from '../core/report.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';
import { renderText } from './text.js';

export type ReportFormat = 'text' | 'json' | 'markdown' | 'sarif';
export const REPORT_FORMATS: ReportFormat[] = ['text', 'json', 'markdown', 'sarif'];

export interface RenderOptions {
  /** ANSI colours (text format only). */
  color?: boolean;
}

export function renderReport(format: ReportFormat, report: Report, opts: RenderOptions = {}): string {
  switch (format) {
    case 'text':
      return renderText(report, { color: opts.color ?? false });
    case 'markdown':
      return renderMarkdown(report);
    case 'sarif':
      return renderSarif(report);
    case 'json':
    default:
      return JSON.stringify(report, null, 2) + '\n';
  }
}
