import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { configJsonSchemaText } from '../config/json-schema.js';
import { CONFIG_PATHS } from '../config/load.js';
import { InputError, errorMessage } from '../core/errors.js';
import { SCHEMA_FILE, configTemplate } from './config-template.js';

export interface InitArgs {
  repo: string;
  force: boolean;
}

/** A path as the user would type it: relative to the current folder when inside it. */
function display(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

export const INIT_PATH = join('.github', 'slopgate.yml');
/** The JSON Schema written next to the config; the config's `$schema` line points at it. */
const INIT_SCHEMA_PATH = join('.github', SCHEMA_FILE);

/**
 * `slopgate init`: writes the commented default config and, next to it, the JSON Schema its first line
 * points editors at; returns the exit code. The schema is generated output (what `slopgate schema`
 * prints), so it is rewritten whenever the config is written.
 */
export async function runInit(args: InitArgs, write: (s: string) => void): Promise<number> {
  const repoDir = resolve(args.repo);
  const info = await stat(repoDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new InputError(`--repo ${args.repo}: no such folder`);
  const file = join(repoDir, INIT_PATH);
  const schemaFile = join(repoDir, INIT_SCHEMA_PATH);
  const shown = display(file);
  for (const path of CONFIG_PATHS) {
    if (args.force && path === '.github/slopgate.yml') continue;
    if (await stat(join(repoDir, path)).catch(() => undefined)) {
      const hint =
        path === '.github/slopgate.yml'
          ? 'run slopgate init --force to replace it with the defaults'
          : `slopgate reads only one config file; remove ${path} first if you want the YAML one`;
      throw new InputError(`${display(join(repoDir, path))} already exists; nothing was written`, hint);
    }
  }
  for (const [path, text] of [
    [file, configTemplate()],
    [schemaFile, configJsonSchemaText()],
  ] as const) {
    try {
      await mkdir(join(repoDir, '.github'), { recursive: true });
      await writeFile(path, text);
    } catch (err) {
      throw new InputError(`cannot write ${display(path)}: ${errorMessage(err)}`);
    }
  }
  write(
    `wrote ${shown}: every setting at its default, with a comment on each, and ${display(schemaFile)}, ` +
      'the schema editors use to complete and check it. Commit both to the default branch.\n',
  );
  return 0;
}
