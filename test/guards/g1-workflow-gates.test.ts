import { describe, expect, it } from 'vitest';
import { g1 } from '../../src/guards/g1-manifest-safety/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);

const CI = `name: ci
on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
      - id: fmt
        name: Check formatting
        run: npx prettier --check .
      - run: echo "fmt=\${{ steps.fmt.outcome }}"
  test:
    needs: [lint]
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: pnpm/action-setup@${SHA_A} # v8.1.0
      - run: npm test
  deploy:
    needs: [lint, test]
    if: github.ref == 'refs/heads/main'
    runs-on: ubuntu-latest
    steps:
      - run: ./deploy.sh
`;

async function concerns(head: string, base = CI) {
  const found = findingsOf(await gate(prRepo({ '.github/workflows/ci.yml': base }, { '.github/workflows/ci.yml': head }), [g1]), 'G1');
  expect(found).toHaveLength(1);
  return { finding: found[0]!, concerns: (found[0]!.evidence?.concerns ?? []) as string[] };
}

describe('G1 workflows: checks taken away are a risk, naming before and after', () => {
  it('a major downgrade by tag and by sha-pin comment', async () => {
    const head = CI.replace('actions/setup-node@v4', 'actions/setup-node@v3').replace(`${SHA_A} # v8.1.0`, `${SHA_B} # v6.0.2`);
    const { finding, concerns: c } = await concerns(head);
    expect(finding.severity).toBe('risk');
    expect(c).toEqual([
      expect.stringContaining('downgrades `actions/setup-node` from `v4` to `v3` in job `lint`'),
      expect.stringContaining('downgrades `pnpm/action-setup` from `v8.1.0` to `v6.0.2` in job `test`'),
    ]);
    expect(finding.line).toBe(8);
  });

  it('a removed check step, a removed job condition and a dropped need', async () => {
    const head = CI.replace('      - id: fmt\n        name: Check formatting\n        run: npx prettier --check .\n', '')
      .replace('      - run: echo "fmt=${{ steps.fmt.outcome }}"\n', '      - run: echo done\n')
      .replace("    if: github.ref == 'refs/heads/main'\n", '')
      .replace('needs: [lint, test]', 'needs: [test]');
    const { concerns: c } = await concerns(head);
    expect(c).toEqual([
      expect.stringContaining('removes the check step `Check formatting` (`npx prettier --check .`) from job `lint`'),
      expect.stringContaining("removes the condition `if: github.ref == 'refs/heads/main'` from job `deploy`"),
      expect.stringContaining('stops job `deploy` from waiting for `lint`: `needs:` had 2 jobs, now 1'),
    ]);
  });

  it('continue-on-error added to a step is a risk', async () => {
    const head = CI.replace('      - run: npm test\n', '      - run: npm test\n        continue-on-error: true\n');
    const { concerns: c } = await concerns(head);
    expect(c).toEqual([expect.stringContaining('sets `continue-on-error: true` on the step `npm test` of job `test`')]);
  });

  it('routine edits stay a nit: an upgrade, a renamed or reworded step, a new step, a setup step swapped for another', async () => {
    const head = CI.replace('actions/setup-node@v4', 'actions/setup-node@v5')
      .replace(`${SHA_A} # v8.1.0`, `${SHA_B} # v9.0.0`)
      .replace('        name: Check formatting\n', '        name: Formatting\n')
      .replace('      - run: npm test\n', '      - name: Unit tests\n        run: npm test -- --reporter=dot\n      - run: npm run e2e\n');
    const { finding } = await concerns(head);
    expect(finding.severity).toBe('nit');
  });

  it('removed steps that prepare or report (setup, install, echo) are not removed checks, nor is a check moved to another job', async () => {
    const head = CI.replace('      - uses: actions/setup-node@v4\n', '')
      .replace('      - run: echo "fmt=${{ steps.fmt.outcome }}"\n', '')
      .replace('      - run: npm test\n', '      - run: npm test\n      - run: npx prettier --check .\n')
      .replace('      - id: fmt\n        name: Check formatting\n        run: npx prettier --check .\n', '');
    expect((await concerns(head)).finding.severity).toBe('nit');
  });

  it('a removed benchmark or performance measurement is not a removed check', async () => {
    const base = CI.replace(
      '      - run: npm test\n',
      '      - run: npm test\n      - name: Performance measurement of HTTP speed check\n        run: bun bench.ts --ci\n',
    );
    expect((await concerns(CI, base)).finding.severity).toBe('nit');
  });

  it('reads the steps of a local composite action too', async () => {
    const action =
      'name: setup\ndescription: d\nruns:\n  using: composite\n  steps:\n    - uses: actions/cache@v4\n    - run: ./check.sh\n      shell: bash\n';
    const head = action.replace('actions/cache@v4', 'actions/cache@v3').replace('    - run: ./check.sh\n      shell: bash\n', '');
    const found = findingsOf(
      await gate(prRepo({ '.github/actions/setup/action.yml': action }, { '.github/actions/setup/action.yml': head }), [g1]),
      'G1',
    );
    expect(found[0]!.evidence?.concerns).toEqual([
      expect.stringContaining('downgrades `actions/cache` from `v4` to `v3` in the action'),
      expect.stringContaining('removes the check step `./check.sh` from the action'),
    ]);
  });
});
