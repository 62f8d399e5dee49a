import type { Report } from '../core/report.js';

export type ReportFormat = 'text' | 'json' | 'markdown' | 'sarif';
export const REPORT_FORMATS: ReportFormat[] = ['text', 'json', 'markdown', 'sarif'];

export interface RenderOptions {
  /** ANSI colours (text format only). */
  color?: boolean;
}

export function renderReport(format: ReportFormat, report: Report, _opts: RenderOptions = {}): string {
  switch (format) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n';
    default:
      return JSON.stringify(report, null, 2) + '\n';
  }
}
