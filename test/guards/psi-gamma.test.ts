import { describe, expect, it } from 'vitest';
import type { Guard } from '../../src/core/guard.js';
import { gammaOf, type GammaResult } from '../../src/guards/psi/gamma.js';
import { gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

/** Runs gammaOf on every changed file through the real pipeline context. */
async function gammas(base: Record<string, FileContent>, pr: Record<string, FileContent>): Promise<Record<string, GammaResult>> {
  const out: Record<string, GammaResult> = {};
  const probe: Guard = {
    id: 'probe',
    name: 'gamma probe',
    appliesTo: () => true,
    async checkFile(file, ctx) {
      out[file.path] = await gammaOf(file, ctx);
      return [];
    },
  };
  await gate(prRepo(base, pr), [probe]);
  return out;
}

const RUST = {
  'Cargo.toml': '[package]\nname = "cli"\nversion = "0.1.0"\n\n[dependencies]\nclap = "4"\n',
  'src/main.rs': 'fn main() {}\n',
};

describe('Ψ-lite Γ', () => {
  it('is grounded/total over the frameworks a doc newly mentions ("Built on Clap. Also uses React." → 0.5)', async () => {
    const g = await gammas(RUST, { 'README.md': '# cli\n\nBuilt on Clap. Also uses React.\n' });
    expect(g['README.md']!.gamma).toBe(0.5);
    expect(g['README.md']!.evidence.sort()).toEqual(['clap: grounded', 'react: ungrounded']);
  });

  it('is 1.0 for docs without framework claims, source files and repos without manifests', async () => {
    const g = await gammas(RUST, { 'README.md': '# cli\n\nFast grep.\n', 'src/main.rs': 'fn main() { println!("React"); }\n' });
    expect(g['README.md']!.gamma).toBe(1);
    expect(g['src/main.rs']!.gamma).toBe(1);
    const bare = await gammas({ 'notes.md': 'x\n' }, { 'notes.md': 'x\n\nReact notes.\n' });
    expect(bare['notes.md']!.gamma).toBe(1);
  });

  it('is grounded/total over the npm packages a config file newly references', async () => {
    const base = { 'package.json': JSON.stringify({ name: 'w', devDependencies: { prettier: '^3', 'prettier-plugin-svelte': '^3' } }) };
    const cfg = "export default { plugins: ['prettier-plugin-svelte', 'prettier-plugin-tailwindcss'] };\n";
    const g = await gammas(base, { 'prettier.config.js': cfg });
    expect(g['prettier.config.js']!.gamma).toBe(0.5);
  });

  it('is 1.0 for a config file in a repo without package.json (the PR-shape the original also skipped)', async () => {
    const g = await gammas(RUST, { 'vite.config.js': "import x from 'vite-plugin-x';\n" });
    expect(g['vite.config.js']!.gamma).toBe(1);
  });
});
