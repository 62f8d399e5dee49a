import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { configTemplate } from '../../src/cli/config-template.js';
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

  it('starts with the schema line editors read, pointing at the file next to it (no URL that may not exist)', () => {
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./slopgate.schema.json');
    expect(text).not.toMatch(/unpkg|https?:\/\/[^\s]*slopgate/);
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
    expect(out).toMatch(/wrote .*\.github\/slopgate\.yml.* and .*\.github\/slopgate\.schema\.json/);

    // The `$schema` path, resolved from the config's folder as the YAML language server does, is a file
    // init wrote: the same schema `slopgate schema` prints, and one that accepts the file and rejects a bad value.
    const modeline = /\$schema=(\S+)/.exec(readFileSync(file, 'utf8').split('\n')[0]!)![1]!;
    const schemaFile = resolve(dirname(file), modeline);
    expect(schemaFile).toBe(join(repo.dir, '.github', 'slopgate.schema.json'));
    let printed = '';
    expect(await main(['schema'], (s) => (printed += s))).toBe(0);
    expect(readFileSync(schemaFile, 'utf8')).toBe(printed);
    const validate = new Ajv({ strict: false }).compile(JSON.parse(printed) as object);
    expect(validate(parse(readFileSync(file, 'utf8')) as unknown), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ strict: 'yes' })).toBe(false);
    expect(validate({ stict: true })).toBe(false);

    writeFileSync(file, 'strict: true\n');
    await expect(main(['init', '--repo', repo.dir], () => undefined)).rejects.toMatchObject({
      message: expect.stringMatching(/already exists; nothing was written/),
      hint: expect.stringMatching(/--force/),
    });
    expect(readFileSync(file, 'utf8')).toBe('strict: true\n');

    writeFileSync(join(repo.dir, '.github', 'slopgate.schema.json'), '{}\n');
    expect(await main(['init', '--repo', repo.dir, '--force'], () => undefined)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(configTemplate());
    expect(readFileSync(join(repo.dir, '.github', 'slopgate.schema.json'), 'utf8')).toBe(printed);
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
