import { describe, expect, it } from 'vitest';
import { g13 } from '../../../src/guards/g13-doc-preservation/index.js';
import { g13LiteralNewlines } from '../../../src/refiner/recipes/g13-literal-newlines.js';
import { g13RestoreBlocks } from '../../../src/refiner/recipes/g13-restore-blocks.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const README = `# b2v

Convert bag files to video.

## Install

\`\`\`bash
cargo install b2v
b2v --version
\`\`\`

## Usage

\`\`\`bash
b2v input.bag --topic /camera/image --out video.mp4
b2v input.bag --list-topics
\`\`\`

## Shell tips

\`\`\`bash
printf "a\\nb\\n" | b2v --stdin
\`\`\`

## License

MIT
`;

const isNewline = (f: { evidence?: Record<string, unknown> }) => f.evidence?.literalNewlines !== undefined;

describe('recipe g13-literal-newlines', () => {
  it('splits a code line the PR squeezed with written-out \\n back into lines, leaving the base printf example alone', async () => {
    const head = README.replace('cargo install b2v\nb2v --version\n', 'cargo install b2v\\nb2v --version\\nb2v --help\n');
    const c = await reproduce(g13, { 'README.md': README }, { 'README.md': head });
    expect(c.findings.filter(isNewline)).toHaveLength(1);
    const { fix } = await fixOne(c, g13LiteralNewlines, isNewline);
    expect(fix.files[0]!.content).toBe(README.replace('b2v --version\n', 'b2v --version\nb2v --help\n'));
    expect(fix.files[0]!.content).toContain('printf "a\\nb\\n" | b2v --stdin');
    const replacement = 'cargo install b2v\nb2v --version\nb2v --help';
    expect(fix.suggestion).toEqual({ path: 'README.md', startLine: 8, endLine: 8, replacement });
    expect(await applyAndRerun(c, g13, fix)).toEqual([]);
  });

  it('fixes every squeezed line at once, so a second finding of the same doc is then already fixed (null)', async () => {
    const head = README.replace('cargo install b2v\nb2v --version\n', 'cargo install b2v\\nb2v --version\\n\n').replace(
      'b2v input.bag --topic /camera/image --out video.mp4\nb2v input.bag --list-topics\n',
      'b2v input.bag --topic /camera/image --out video.mp4\\nb2v input.bag --list-topics\\n\n',
    );
    const c = await reproduce(g13, { 'README.md': README }, { 'README.md': head });
    const found = c.findings.filter(isNewline);
    expect(found).toHaveLength(2);
    const { fix } = await fixOne(c, g13LiteralNewlines, isNewline);
    expect(fix.files[0]!.content).toBe(README);
    expect(fix.suggestion).toBeDefined(); // lines 8 and 14 as one contiguous replacement
    expect(await g13LiteralNewlines.fix(found[1]!, contextOf(c.repo, { 'README.md': fix.files[0]!.content }))).toBeNull();
    expect(await applyAndRerun(c, g13, fix)).toEqual([]);
  });

  it('keeps the indentation of a reStructuredText code-block line it splits', async () => {
    const base = 'Usage\n=====\n\n.. code-block:: bash\n\n   b2v input.bag\n   b2v --help\n\nMore text.\n';
    const head = base.replace('   b2v --help\n', '   b2v --help\\nb2v --version\\n\n');
    const c = await reproduce(g13, { 'docs/usage.rst': base }, { 'docs/usage.rst': head });
    const { fix } = await fixOne(c, g13LiteralNewlines, isNewline);
    expect(fix.files[0]!.content).toBe(base.replace('   b2v --help\n', '   b2v --help\n   b2v --version\n'));
    expect(await applyAndRerun(c, g13, fix)).toEqual([]);
  });

  it('returns null on a doc whose only \\n escapes sit inside quoted strings', async () => {
    const head = README.replace('cargo install b2v\nb2v --version\n', 'cargo install b2v\\nb2v --version\\n\n');
    const c = await reproduce(g13, { 'README.md': README }, { 'README.md': head });
    const finding = c.findings.find(isNewline)!;
    const quoted = README.replace('b2v --version\n', `b2v --version\nprintf 'frame\\nframe\\n' | b2v --stdin\n`);
    expect(await g13LiteralNewlines.fix(finding, contextOf(c.repo, { 'README.md': quoted }))).toBeNull();
  });
});

const GUIDE = `# Guide

Set up the project first.

\`\`\`bash
python -m venv .venv
. .venv/bin/activate
pip install -e ".[dev]"
\`\`\`

Then run the checks:

\`\`\`bash
pytest -q tests/
ruff check src/ tests/
mypy src/
\`\`\`

That is all.
`;

const isDestroyed = (f: { evidence?: Record<string, unknown> }) => Array.isArray(f.evidence?.removedBlocks);

describe('recipe g13-restore-blocks', () => {
  it('puts back code blocks the PR replaced by prose and gutted to "..."', async () => {
    const head = `# Guide

Set up the project first.

Create a virtual environment and install the package in editable mode.

Then run the checks:

\`\`\`bash
# ... same as before
\`\`\`

That is all, and more words about the checks.
`;
    const c = await reproduce(g13, { 'docs/guide.md': GUIDE }, { 'docs/guide.md': head });
    expect(c.findings.filter(isDestroyed)).toHaveLength(1);
    const { fix } = await fixOne(c, g13RestoreBlocks, isDestroyed);
    const fixed = fix.files[0]!.content;
    const setup = '```bash\npython -m venv .venv\n. .venv/bin/activate\npip install -e ".[dev]"\n```';
    const checks = '```bash\npytest -q tests/\nruff check src/ tests/\nmypy src/\n```';
    expect(fixed).toContain(`Set up the project first.\n\n${setup}\n\nCreate a virtual environment`);
    expect(fixed).toContain(`Then run the checks:\n\n${checks}\n\nThat is all, and more`);
    expect(fixed).not.toContain('same as before');
    expect(await applyAndRerun(c, g13, fix)).toEqual([]);
  });

  it('returns null when no neighbour line of the lost block is left in the doc', async () => {
    const head = `# Guide\n\nSet up the project first.\n\nThen run the checks:\n\nThat is all.\n`;
    const c = await reproduce(g13, { 'docs/guide.md': GUIDE }, { 'docs/guide.md': head });
    const finding = c.findings.find(isDestroyed)!;
    expect(g13RestoreBlocks.handles(finding)).toBe(true);
    // a later rewrite removed every line the blocks stood next to
    expect(await g13RestoreBlocks.fix(finding, contextOf(c.repo, { 'docs/guide.md': '# Other\n\nNew text.\n' }))).toBeNull();
  });
});
