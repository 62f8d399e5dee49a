import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/trace.js';
import type { Guard } from '../../src/core/guard.js';
import { prRepo } from '../helpers/git-repo.js';
import { gate } from '../helpers/gate.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, log: createLogger({ level: 'info', destination: stream }) };
}

const flagsEverything: Guard = {
  id: 'T9',
  name: 'flags every file',
  appliesTo: () => true,
  checkFile: (f) => [{ category: 'syntax-invalid', severity: 'fail', path: f.path, line: 1, message: 'bad', remediation: `fix ${f.path}` }],
};

describe('G3 trace events', () => {
  it('emits one guard.fail JSON line per finding with guard, path and phase', async () => {
    const repo = prRepo({}, { 'a.json': '{', 'b.json': '[' });
    const { lines, log } = capture();
    await gate(repo, [flagsEverything], { log, phase: 'refiner' });
    const events = lines.filter((l) => l.event === 'guard.fail');
    expect(events.map((e) => e.path).sort()).toEqual(['a.json', 'b.json']);
    for (const e of events) expect(e).toMatchObject({ guard: 'T9', phase: 'refiner', category: 'syntax-invalid', severity: 'fail' });
  });

  it('redacts secrets that end up in log objects', () => {
    const { lines, log } = capture();
    log.info({ token: 'ghs_secret', headers: { authorization: 'token abc' } }, 'fetch');
    expect(JSON.stringify(lines)).not.toMatch(/ghs_secret|token abc/);
  });
});
