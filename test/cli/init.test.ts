import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { configTemplate, schemaUrl } from '../../src/cli/config-template.js';
import { main } from '../../src/cli.js';
import { parseConfigText } from '../../src/config/load.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { defaultConfig } from '../../src/core/config-schema.js';
import { TestRepo } from '../helpers/git-repo.js';

/** Every dotted key of the schema (leaves only), e.g. `tests.timeoutSec`. */
function schemaKeys(node: Record<string, unknown>, prefix = ''): string[] {
  const props = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(props).flatMap(([k, v]) =>
    v.type === 'object' && v.properties ? schemaKeys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

describe('the init template', () => {
  const text = configTemplate();

  it('parses back to exactly the defaults', () => {
    expect(parseConfigText(text, '.github/slopgate.yml')).toEqual(defaultConfig());
  });

  it('starts with the schema line editors read', () => {
    expect(text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${schemaUrl()}`);
    expect(schemaUrl()).toMatch(/^https:\/\/unpkg\.com\/slopgate@\d+\.\d+\.\d+\/schemas\/slopgate\.schema\.json$/);
  });

  it('has every key of the schema, each under a comment with its description', () => {
    const lines = text.split('\n');
    const schema = configJsonSchema();
    for (const key of schemaKeys(schema)) {
      const leaf = key.split('.').at(-1)!;
      const depth = key.split('.').length - 1;
      const at = lines.findIndex((l) => new RegExp(`^${'  '.repeat(depth)}(# )?${leaf}:`).test(l));
      expect(at, `${key} missing`).toBeGreaterThan(0);
      expect(lines[at - 1], `${key} has no comment`).toMatch(/^\s*# \S/);
    }
    // Keys without a default are present but commented out, so the file still parses to the defaults.
    expect(text).toMatch(/^ {2}# command: /m);
  });

  it('is valid YAML without warnings', () => {
    const doc = parseDocument(text);
    expect(doc.errors).toEqual([]);
    expect(doc.warnings).toEqual([]);
  });
});

describe('slopgate init', () => {
  it('writes .github/slopgate.yml and refuses to overwrite it without --force', async () => {
    const repo = TestRepo.create();
    let out = '';
    expect(await main(['init', '--repo', repo.dir], (s) => (out += s))).toBe(0);
    const file = join(repo.dir, '.github', 'slopgate.yml');
    expect(readFileSync(file, 'utf8')).toBe(configTemplate());
    expect(out).toMatch(/wrote .*\.github\/slopgate\.yml/);

    writeFileSync(file, 'strict: true\n');
    await expect(main(['init', '--repo', repo.dir], () => undefined)).rejects.toMatchObject({
      message: expect.stringMatching(/already exists; nothing was written/),
      hint: expect.stringMatching(/--force/),
    });
    expect(readFileSync(file, 'utf8')).toBe('strict: true\n');

    expect(await main(['init', '--repo', repo.dir, '--force'], () => undefined)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(configTemplate());
  });

  it('does not add a YAML config next to an existing TOML one, even with --force', async () => {
    const repo = TestRepo.create();
    mkdirSync(join(repo.dir, '.github'));
    writeFileSync(join(repo.dir, '.github', 'slopgate.toml'), 'strict = true\n');
    await expect(main(['init', '--repo', repo.dir, '--force'], () => undefined)).rejects.toThrow(/slopgate\.toml already exists/);
    expect(existsSync(join(repo.dir, '.github', 'slopgate.yml'))).toBe(false);
  });

  it('names a missing --repo folder', async () => {
    await expect(main(['init', '--repo', '/no/such/folder'], () => undefined)).rejects.toThrow(/--repo \/no\/such\/folder: no such folder/);
  });
});
