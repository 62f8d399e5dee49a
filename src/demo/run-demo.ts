import type { ReportFormat } from '../report/index.js';

export async function runDemo(_opts: { format: ReportFormat; keep: boolean }, write: (s: string) => void): Promise<number> {
  write('the demo is being built\n');
  return 0;
}
