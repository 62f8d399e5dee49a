import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/open-store.js';
import { Store } from '../../src/store/store.js';
import { GUARDS } from '../../src/guards/index.js';
import { prRepo } from '../helpers/git-repo.js';
import { gate } from '../helpers/gate.js';
import { ScriptedModel } from './scripted-model.js';

describe('decisions log in the store: routing source and candidates', () => {
  it('keeps source and candidates of a navigator decision at the top of the record', async () => {
    const repo = prRepo({ 'lib.py': 'def a():\n    return 1\n\n\ndef b():\n    return 2\n' }, { 'lib.py': 'def b():\n    return 2\n' });
    const model = new ScriptedModel('nav', [{ choice: 'ASK_AUTHOR', rationale: 'looks intended' }]);
    const g7 = GUARDS.filter((g) => g.id === 'G7');
    const report = await gate(repo, g7, { config: { navigator: { enabled: true } }, navigator: { model } });
    expect(report.decision).toMatchObject({ outcome: 'ASK_AUTHOR', source: 'navigator' });
    const db = await openDb({});
    try {
      const store = new Store(db);
      await store.saveRun(report, { pr: 4, trigger: 'cli' });
      const [line] = (await store.exportDecisions({}))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { record: Record<string, unknown> });
      expect(line!.record).toMatchObject({ source: 'navigator', candidates: ['ADVISE', 'ASK_AUTHOR', 'REFINE'] });
    } finally {
      await db.close();
    }
  });
});
