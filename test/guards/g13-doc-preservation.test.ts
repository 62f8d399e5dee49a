import { describe, expect, it } from 'vitest';
import type { SlopgateConfigInput } from '../../src/core/config-schema.js';
import { g13 } from '../../src/guards/g13-doc-preservation/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo } from '../helpers/git-repo.js';

const run = async (base: Record<string, string>, head: Record<string, string | null>, config?: SlopgateConfigInput) =>
  findingsOf(await gate(prRepo(base, head), [g13], config ? { config } : {}), 'G13');

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

## License

MIT
`;

describe('G13 docs preserved', () => {
  it('b2v PR #24: README code examples replaced by prose pointing to other docs fail', async () => {
    const head = `# b2v

Convert bag files to video.

## Install

See the installation guide in docs/guide/install.md for details.

## Usage

Refer to docs/guide/usage.md for the full command reference.

## License

MIT
`;
    const found = await run({ 'README.md': README }, { 'README.md': head });
    expect(found).toHaveLength(1);
    const f = found[0]!;
    expect(f.category).toBe('doc-destroyed');
    expect(f.severity).toBe('fail');
    expect(f.message).toContain('keeps 0 of its');
    expect(f.message).toContain('2 of 2 code blocks');
    expect(f.message).toContain('bash block at base line 7: "cargo install b2v"');
    expect(f.line).toBe(7);
  });

  it('b2v PR #27: a fenced line the PR added with literal \\n sequences fails, with a suggestion splitting it', async () => {
    const head = README.replace('cargo install b2v\nb2v --version\n', 'cargo install b2v\\nb2v --version\\nb2v --help\n');
    const found = await run({ 'README.md': README }, { 'README.md': head });
    expect(found).toHaveLength(1);
    const f = found[0]!;
    expect(f.line).toBe(8);
    expect(f.message).toContain('holds 2 written-out "\\n" sequences');
    expect(f.suggestion).toEqual({
      path: 'README.md',
      startLine: 8,
      endLine: 8,
      replacement: 'cargo install b2v\nb2v --version\nb2v --help',
    });
  });

  it('near-miss: a printf "a\\nb\\n" example already in the doc never counts when the doc is edited elsewhere', async () => {
    const base = `${README}\n## Shell tips\n\n\`\`\`bash\nprintf "a\\nb\\n" | b2v --stdin\necho -e "x\\ny\\nz"\n\`\`\`\n`;
    const head = base.replace('Convert bag files to video.', 'Convert ROS bag files to MP4 video.');
    expect(await run({ 'README.md': base }, { 'README.md': head })).toEqual([]);
  });

  it('near-miss: a newly added example whose \\n escapes sit inside a quoted string passes', async () => {
    const head = README.replace('b2v --version\n', `b2v --version\nprintf 'frame\\nframe\\n' | b2v --stdin\n`);
    expect(await run({ 'README.md': README }, { 'README.md': head })).toEqual([]);
  });

  it('a doc cut to 20 % of its size fails the shrink check, unless docs.bulkShrink is false', async () => {
    const long = `# Guide\n\n${Array.from({ length: 20 }, (_, i) => `Paragraph ${i + 1} explains one part of the tool in some detail.`).join('\n\n')}\n`;
    const head = long.slice(0, Math.floor(long.length * 0.2));
    const found = await run({ 'docs/guide.md': long }, { 'docs/guide.md': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/shrank from \d+ to \d+ characters \(19 % kept, below the 30 % floor\)/);
    expect(await run({ 'docs/guide.md': long }, { 'docs/guide.md': head }, { docs: { bulkShrink: false } })).toEqual([]);
  });

  it('a README edited normally (a section added, a sentence reworded) passes', async () => {
    const head = README.replace(
      '## License',
      '## Troubleshooting\n\nIf the topic is missing, list topics first:\n\n```bash\nb2v input.bag --list-topics\n```\n\n## License',
    );
    expect(await run({ 'README.md': README }, { 'README.md': head.replace('MIT', 'MIT, see LICENSE.') })).toEqual([]);
  });

  it('~~~ fences count as code: replacing them with prose fails', async () => {
    const base = `# API\n\n~~~python\nfrom b2v import convert\nconvert("in.bag", "out.mp4", fps=30)\n~~~\n\nMore text.\n`;
    const head = `# API\n\nCall the convert function with your input and output paths.\n\nMore text.\n`;
    const found = await run({ 'docs/api.md': base }, { 'docs/api.md': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('python block at base line 3');
  });

  it('info strings like c++ and indented closing fences inside list items are recognised', async () => {
    const base = `# Build\n\n1. Compile:\n\n   \`\`\`c++\n   #include <iostream>\n   int main() { std::cout << "hi"; return 0; }\n   \`\`\`\n\n2. Run it.\n`;
    const head = `# Build\n\n1. Compile the program with your compiler.\n\n2. Run it.\n`;
    const found = await run({ 'BUILD.md': base }, { 'BUILD.md': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('c++ block at base line 5');
  });

  it('reports every check, not only the first: code destroyed, a literal-\\n line and a bulk shrink in one doc', async () => {
    const base = `${README}\n${'Background prose that explains the design decisions in depth. '.repeat(12)}\n`;
    const head = `# b2v\n\n\`\`\`bash\ncargo install b2v\\nb2v -V\\n\n\`\`\`\n`;
    const found = await run({ 'README.md': base }, { 'README.md': head });
    const kinds = found.map((f) => (f.suggestion ? 'newline' : f.message.includes('shrank') ? 'shrink' : 'code'));
    expect(kinds.sort()).toEqual(['code', 'newline', 'shrink']);
  });

  it('exactly 30 % of the fenced code kept passes (the floor is strict)', async () => {
    const body = 'x'.repeat(99);
    const base = `# T\n\n\`\`\`\n${body}\n\`\`\`\n`;
    const head = `# T\n\n\`\`\`\n${'x'.repeat(30)}\n\`\`\`\n`;
    const under = `# T\n\n\`\`\`\n${'x'.repeat(29)}\n\`\`\`\n`;
    expect(await run({ 'a.md': base + 'y'.repeat(100) }, { 'a.md': head })).toEqual([]);
    expect(await run({ 'a.md': base }, { 'a.md': under })).toHaveLength(1);
  });

  it('requirements.txt and LICENSE.txt are not docs: a shrink there is not G13’s business', async () => {
    const reqs = Array.from({ length: 60 }, (_, i) => `package-${i}==1.0.${i}`).join('\n') + '\n';
    const found = await run(
      { 'requirements.txt': reqs, 'LICENSE.txt': 'Apache License '.repeat(60) },
      { 'requirements.txt': 'flask==3.0\n', 'LICENSE.txt': 'MIT License\n' },
    );
    expect(found).toEqual([]);
  });

  it('reStructuredText code-block directives and :: literal blocks count as code', async () => {
    const base = `Usage\n=====\n\n.. code-block:: bash\n\n   b2v input.bag --out video.mp4\n   b2v input.bag --list-topics\n\nOr::\n\n   b2v --help\n`;
    const head = `Usage\n=====\n\nRun the tool on a bag file.\n`;
    const found = await run({ 'docs/usage.rst': base }, { 'docs/usage.rst': head });
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain('2 of 2 code blocks');
  });

  describe('moved, not destroyed', () => {
    const PROSE_README = `# tool

${'Tool converts files between formats and keeps their metadata intact across runs. '.repeat(4)}

## Install

${'Install it with the package manager of your platform, then run the setup step once. '.repeat(4)}

\`\`\`bash
cargo install tool --locked
tool --version
\`\`\`

## Usage

${'Pass the input file and the output format; every option has a long and a short form. '.repeat(4)}

\`\`\`bash
tool convert input.bag --to mp4 --out video.mp4
tool list input.bag
\`\`\`
`;
    const STUB = '# tool\n\nSee [install](docs/install.md) and [usage](docs/usage.md).\n';
    const section = (title: string) => PROSE_README.slice(PROSE_README.indexOf(`## ${title}`)).split(/\n(?=## )/)[0]!;

    it('a README split into docs/ pages in the same PR passes (text and code blocks landed there)', async () => {
      const found = await run(
        { 'README.md': PROSE_README },
        { 'README.md': STUB, 'docs/install.md': section('Install'), 'docs/usage.md': section('Usage') },
      );
      expect(found).toEqual([]);
    });

    it('moving the code into an existing doc the PR edits passes too', async () => {
      const base = { 'README.md': PROSE_README, 'docs/guide.md': '# Guide\n\nIntro.\n' };
      const guide = `# Guide\n\nIntro.\n\n${section('Install')}\n${section('Usage')}`;
      expect(await run(base, { 'README.md': STUB, 'docs/guide.md': guide })).toEqual([]);
    });

    it('the same cut with the content nowhere else in the PR still fails both checks', async () => {
      const found = await run({ 'README.md': PROSE_README }, { 'README.md': STUB, 'docs/install.md': '# Install\n\nTBD.\n' });
      expect(found.map((f) => f.message.includes('characters of fenced code') || f.message.includes('shrank'))).toEqual([true, true]);
    });

    it('only part of the code moved: the blocks that vanished are still reported', async () => {
      const config =
        '\n## Config\n\n```toml\n' +
        Array.from({ length: 8 }, (_, i) => `option_${i} = "a value that matters ${i}"`).join('\n') +
        '\n```\n';
      const found = await run({ 'README.md': PROSE_README + config }, { 'README.md': STUB, 'docs/install.md': section('Install') });
      const code = found.find((f) => f.message.includes('fenced code'))!;
      expect(code.message).toContain('2 of 3 code blocks');
      expect(code.message).toContain('tool convert input.bag');
    });
  });

  describe('moved into a page component (vitest#9345 "docs: rebrand")', () => {
    // A VitePress home page whose content is frontmatter, replaced by a Vue layout that renders it.
    const HOME_MD = `---
layout: home
sidebar: false

title: Tool
titleTemplate: Next generation conversion tool

hero:
  name: Tool
  text: Next Generation Conversion Tool
  tagline: A streaming converter for bag files. It's fast!
  actions:
    - theme: brand
      text: Get Started
      link: /guide/
    - theme: alt
      text: View on GitHub
      link: https://example.invalid/tool

features:
  - title: Streaming Core
    details: Reads each message once and writes frames as they arrive - no temporary files on disk.
  - title: Familiar Options
    details: Every flag has a long and a short form, and the defaults match the old shell scripts.
  - title: Smart & instant previews
    details: Only re-encode the frames that changed, just like a cache for your video.
  - title: Many Formats
    details: Out-of-box MP4, WebM and GIF output powered by the system encoder.
---
`;
    const HOME_STUB = `---
title: Tool
layout: home
---

<script setup>
import Home from './.vitepress/theme/Home.vue'
</script>

<Home />
`;
    const HERO_VUE = `<template>
  <div class="hero">
    <h1 class="text-white">
      Next Generation Conversion Tool
    </h1>
    <p class="tagline">
      A streaming converter for bag files. It's fast!
    </p>
    <a href="/guide/" class="button"><span>Get Started</span></a>
    <a href="https://example.invalid/tool" class="button">View on GitHub</a>
  </div>
</template>
`;
    const GRID_VUE = `<template>
  <section class="grid">
    <h5>Streaming Core</h5>
    <p>
      Reads each message once and writes frames as they arrive - no <code
        class="mr-1"
      >temporary</code> files on disk.
    </p>
    <h5>Familiar Options</h5>
    <p>Every flag has a long and a short form, and the defaults match the old shell scripts.</p>
    <h5>Smart &amp; instant previews</h5>
    <p>Only re-encode the frames that changed, just like a cache for your video.</p>
  </section>
</template>
`;

    it('a frontmatter home page whose text now lives in new Vue components passes', async () => {
      const head = {
        'docs/index.md': HOME_STUB,
        'docs/.vitepress/theme/Hero.vue': HERO_VUE,
        'docs/.vitepress/theme/FeatureGrid.vue': GRID_VUE,
      };
      expect(await run({ 'docs/index.md': HOME_MD }, head)).toEqual([]);
    });

    it('the same cut still fails when the components hold other text', async () => {
      const other = '<template>\n  <div class="hero"><h1>Welcome to the new site</h1><p>Something else entirely.</p></div>\n</template>\n';
      const found = await run({ 'docs/index.md': HOME_MD }, { 'docs/index.md': HOME_STUB, 'docs/.vitepress/theme/Hero.vue': other });
      expect(found).toHaveLength(1);
      expect(found[0]!.message).toContain('docs/index.md shrank from');
    });

    it('text already in a component before the PR does not count as moved', async () => {
      const base = {
        'docs/index.md': HOME_MD,
        'docs/.vitepress/theme/Hero.vue': HERO_VUE,
        'docs/.vitepress/theme/FeatureGrid.vue': GRID_VUE,
      };
      const head = { 'docs/index.md': HOME_STUB, 'docs/.vitepress/theme/Hero.vue': HERO_VUE.replace('class="hero"', 'class="hero wide"') };
      const found = await run(base, head);
      expect(found.map((f) => f.category)).toEqual(['doc-destroyed']);
    });

    it('the same strings in a non-component file (a .ts module) do not count as moved', async () => {
      const ts =
        HERO_VUE.replace(/<[^>]*>/g, '')
          .split('\n')
          .map((l) => `// ${l.trim()}`)
          .join('\n') +
        '\n' +
        GRID_VUE.replace(/<[^>]*>/g, '');
      const found = await run({ 'docs/index.md': HOME_MD }, { 'docs/index.md': HOME_STUB, 'docs/.vitepress/theme/strings.ts': ts });
      expect(found.map((f) => f.category)).toEqual(['doc-destroyed']);
    });
  });
});
