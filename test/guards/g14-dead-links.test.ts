import { describe, expect, it } from 'vitest';
import { g14 } from '../../src/guards/g14-dead-links/index.js';
import { findingsOf, gate } from '../helpers/gate.js';
import { prRepo, type FileContent } from '../helpers/git-repo.js';

async function run(base: Record<string, FileContent>, pr: Record<string, FileContent>) {
  const report = await gate(prRepo(base, pr), [g14]);
  return { findings: findingsOf(report, 'G14'), links: report.sections.links as Record<string, unknown> | undefined };
}

const BASE = {
  'README.md': '# Project\n\nIntro.\n',
  'docs/usage.md': '# Usage\n\n## Options\n\nText.\n\n## Options\n',
  'docs/img/logo.png': 'png',
  'src/index.ts': 'export const x = 1;\n',
};

describe('G14 dead links', () => {
  it('flags README links to docs pages that do not exist and passes the one that does', async () => {
    const readme = '# Project\n\nIntro.\n\nSee [usage](docs/usage.md), [setup](docs/setup.md) and [API](docs/api/README.md).\n';
    const { findings } = await run(BASE, { 'README.md': readme });
    expect(findings.map((f) => f.evidence?.target)).toEqual(['docs/setup.md', 'docs/api/README.md']);
    expect(findings[0]).toMatchObject({ category: 'dead-link', severity: 'risk', path: 'README.md', line: 5 });
    expect(findings[0]!.message).toContain('`docs/setup.md`');
  });

  it('checks titled links [t](x "title") too', async () => {
    const readme = '# Project\n\n[Guide](docs/guide.md "The guide")\n[Usage](docs/usage.md "How to use it")\n';
    const { findings } = await run(BASE, { 'README.md': readme });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.evidence?.target).toBe('docs/guide.md');
  });

  it('flags a missing image and accepts an image beside the doc', async () => {
    const doc = '# Usage\n\n![logo](img/logo.png)\n![diagram](img/arch.svg)\n\n## Options\n\nText.\n\n## Options\n';
    const { findings } = await run(BASE, { 'docs/usage.md': doc });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('image `img/arch.svg`');
    expect(findings[0]!.line).toBe(4);
  });

  it('checks anchors against GitHub heading slugs, incl. duplicates, and suggests the closest one', async () => {
    const readme =
      '# Project\n\n## Installation Guide\n\n- [install](#installation-guide)\n- [typo](#instalation-guide)\n' +
      '- [options](docs/usage.md#options) and [second](docs/usage.md#options-1)\n- [missing](docs/usage.md#flags)\n- [line](src/index.ts#L1)\n';
    const { findings } = await run(BASE, { 'README.md': readme });
    expect(findings.map((f) => f.evidence?.anchor)).toEqual(['instalation-guide', 'flags']);
    expect(findings[0]!.message).toContain('#installation-guide');
    expect(findings[0]!.suggestion).toEqual({ path: 'README.md', startLine: 6, endLine: 6, replacement: '- [typo](#installation-guide)' });
    expect(findings[1]!.message).toContain('docs/usage.md has no heading');
  });

  it('does not re-check links carried over from the base doc', async () => {
    const base = { ...BASE, 'README.md': '# Project\n\nOld [broken](docs/old.md) link.\n' };
    const pr = { 'README.md': '# Project\n\nNew intro line.\n\nOld [broken](docs/old.md) link.\n\nAgain: [broken](docs/old.md).\n' };
    const { findings } = await run(base, pr);
    expect(findings).toEqual([]);
  });

  it('ignores links inside fenced code, inline code and HTML comments', async () => {
    const readme = '# Project\n\n```md\n[x](docs/nothing.md)\n```\n\nUse `[x](docs/nope.md)` syntax.\n<!-- [y](docs/hidden.md) -->\n';
    expect((await run(BASE, { 'README.md': readme })).findings).toEqual([]);
  });

  it('resolves from the doc folder and with a leading slash from the repo root; strips query and anchor', async () => {
    const doc =
      '# Sub\n\n[up](../usage.md) [root](/docs/usage.md) [q](../img/logo.png?raw=true) [src](/src/index.ts?plain=1#L1) [dir](../../src/)\n';
    expect((await run(BASE, { 'docs/guide/sub.md': doc })).findings).toEqual([]);
  });

  it('flags a link that exists only from the repo root, as GitHub renders it, and suggests the relative fix', async () => {
    const base = { ...BASE, LICENSE: 'MIT\n', 'docs/README.md': '# Docs\n' };
    const doc = '# Docs\n\nSee the [license](LICENSE) and [usage](docs/usage.md#options).\n';
    const { findings } = await run(base, { 'docs/README.md': doc });
    expect(findings.map((f) => f.evidence?.fix)).toEqual(['../LICENSE', 'usage.md#options']);
    expect(findings[0]).toMatchObject({ category: 'dead-link', severity: 'risk', path: 'docs/README.md', line: 3 });
    expect(findings[0]!.message).toContain('resolves to `docs/LICENSE` on GitHub');
    expect(findings[0]!.suggestion).toEqual({
      path: 'docs/README.md',
      startLine: 3,
      endLine: 3,
      replacement: 'See the [license](../LICENSE) and [usage](docs/usage.md#options).',
    });
    expect(findings[1]!.suggestion?.replacement).toBe('See the [license](LICENSE) and [usage](usage.md#options).');
  });

  it('flags a relative link that climbs out of the repository', async () => {
    const { findings } = await run(BASE, { 'README.md': '# Project\n\n[secrets](../../../etc/passwd)\n' });
    expect(findings).toHaveLength(1);
    expect(findings[0]!.message).toContain('outside the repository');
  });

  it('reads reference definitions, HTML img tags and RST links', async () => {
    const readme = '# Project\n\nSee [the spec][spec].\n\n[spec]: docs/spec.md\n\n<img src="docs/img/banner.png" alt="b">\n';
    const rst = 'Title\n=====\n\nRead `the guide <docs/guide.rst>`_ and `usage <docs/usage.md>`_.\n\n.. image:: docs/img/logo.png\n';
    const { findings } = await run(BASE, { 'README.md': readme, 'index.rst': rst });
    expect(findings.map((f) => `${f.path}:${String(f.evidence?.target)}`).sort()).toEqual([
      'README.md:docs/img/banner.png',
      'README.md:docs/spec.md',
      'index.rst:docs/guide.rst',
    ]);
  });

  it('accepts docs-site spellings of pages (extension-less and .html for .md) where mkdocs builds the docs', async () => {
    const doc = '# Index\n\n[usage](usage) [usage page](usage.html) [file](../README.md)\n';
    expect((await run(BASE, { 'docs/index.md': doc })).findings.map((f) => f.evidence?.target)).toEqual(['usage', 'usage.html']);
    const mkdocs =
      'site_name: x\nmarkdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n        - name: mermaid\n          format: !!python/name:pymdownx.superfences.fence_code_format\n';
    expect((await run({ ...BASE, 'mkdocs.yml': mkdocs }, { 'docs/index.md': doc })).findings).toEqual([]);
  });

  it('reads mkdocs docs_dir', async () => {
    const base = { ...BASE, 'mkdocs.yml': 'site_name: x\ndocs_dir: site-src\n', 'site-src/guide.md': '# Guide\n\n## Setup\n' };
    const doc = '# Home\n\n[guide](guide#setup) and [usage](usage)\n';
    const { findings } = await run(base, { 'site-src/index.md': doc });
    expect(findings.map((f) => f.evidence?.target)).toEqual(['usage']);
  });

  it('accepts valid VitePress links: no .md, absolute from the docs root, public/ assets, custom and VitePress heading ids', async () => {
    const base = {
      ...BASE,
      'docs/.vitepress/config.ts': 'export default { title: "x" }\n',
      'docs/guide/foo.md': '# Foo\n\n## Bar options {#bar}\n\n## Config.File & Paths\n\n## 2. Step\n',
      'docs/public/logo.png': 'png',
      'docs/guide/index.md': '# Guide\n',
    };
    const doc =
      '# Home\n\n[a](/guide/foo#bar) [b](./guide/foo#config-file-paths) [c](/guide/foo.html) [d](/logo.png) [e](/guide/) [f](guide/foo.md#_2-step)\n' +
      '[g](/guide/foo#configfile--paths) [dead](/guide/nope) [badanchor](/guide/foo#nope)\n';
    const { findings } = await run(base, { 'docs/index.md': doc });
    expect(findings.map((f) => f.evidence?.target)).toEqual(['/guide/nope', '/guide/foo#nope']);
  });

  it('accepts Docusaurus and Sphinx resolution under their site folders only', async () => {
    const base = {
      ...BASE,
      'website/docusaurus.config.js': 'module.exports = {};\n',
      'website/docs/intro.md': '# Intro\n',
      'website/static/img/shot.png': 'png',
      'manual/conf.py': 'project = "x"\n',
      'manual/index.rst': 'Manual\n======\n',
      'manual/install.rst': 'Install\n=======\n',
    };
    const docus = '# Other\n\n[intro](./intro) [shot](/img/shot.png) [page](/docs/intro)\n';
    const sphinx = '# Notes\n\n[install](install.html) [root](/install)\n';
    const outside = '# Readme\n\n[intro](website/docs/intro)\n';
    const { findings } = await run(base, { 'website/docs/other.md': docus, 'manual/notes.md': sphinx, 'README.md': outside });
    expect(findings.map((f) => `${f.path}:${String(f.evidence?.target)}`)).toEqual(['README.md:website/docs/intro']);
  });

  it('skips mail, templated and scheme links and says external links were not checked offline', async () => {
    const readme = '# Project\n\n[mail](mailto:a@b.c) [tpl]({{ site.url }}/x) <https://example.invalid/a> and https://example.invalid/b.\n';
    const { findings, links } = await run(BASE, { 'README.md': readme });
    expect(findings).toEqual([]);
    expect(links).toMatchObject({ mode: 'offline', externalSkipped: 2 });
  });

  it('does not treat requirements.txt as a doc', async () => {
    const report = await gate(prRepo(BASE, { 'requirements.txt': 'flask==3.0 # see [x](nope.md)\n' }), [g14]);
    expect(report.guards.find((g) => g.id === 'G14')?.status).toBe('skipped');
  });

  it('MkDocs sites as real projects write them: attr_list ids, headings in block quotes, snippet includes, generated pages, directory URLs', async () => {
    const base = {
      ...BASE,
      'mkdocs.yml': 'site_name: x\nmarkdown_extensions:\n  - attr_list\n  - pymdownx.snippets\n',
      'CONTRIBUTING.md': '# Contributing\n\n## Submitting pull requests\n',
      'docs/about/contributing.md': '--8<-- "CONTRIBUTING.md"\n',
      'docs/config.md': '# Config\n\n> #### custom_dir\n\n*   **`locale`**{ #theme-locale }: the locale.\n\n## Theme { #theme-options }\n',
      'docs/cli.md': '# CLI\n\n::: mkdocs-click\n    :module: x\n',
      'docs/img/shot.png': 'png',
    };
    const doc =
      '# Guide\n\n[a](config.md#custom_dir) [b](config.md#theme-locale) [c](config.md#theme-options) [d](about/contributing.md#submitting-pull-requests)\n' +
      '[e](cli.md#anything) <img src="../img/shot.png"> [f](config.md#nope)\n';
    const { findings } = await run(base, { 'docs/guide.md': doc });
    expect(findings.map((f) => f.evidence?.target)).toEqual(['config.md#nope']);
  });

  it('a bracketed phrase starting a paragraph line is not a reference definition', async () => {
    const doc =
      '# Deploy\n\nIf you host the code on [GitHub], there are two\n[kinds of sites]: project sites and user sites.\n\n[GitHub]: https://github.com\n';
    const { findings } = await run(BASE, { 'docs/deploy.md': doc });
    expect(findings).toEqual([]);
  });

  it('anchors of a doc that is a symlink to another file are read from its target', async () => {
    const repo = prRepo({ ...BASE, 'CHANGES.md': '# Changes\n\n## Version 2\n' }, {});
    repo.symlink('docs/changes.md', '../CHANGES.md').commit('link');
    repo
      .write({
        'docs/usage.md': '# Usage\n\nSee [v2](changes.md#version-2) and [v3](changes.md#version-3).\n\n## Options\n\nText.\n\n## Options\n',
      })
      .commit('doc');
    const found = findingsOf(await gate(repo, [g14]), 'G14');
    expect(found.map((f) => f.evidence?.anchor)).toEqual(['version-3']);
  });
});
