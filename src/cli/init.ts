import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { CONFIG_PATHS } from '../config/load.js';
import { InputError, errorMessage } from '../core/errors.js';
import { configTemplate } from './config-template.js';

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

/** `slopgate init`: writes the commented default config; returns the exit code. */
export async function runInit(args: InitArgs, write: (s: string) => void): Promise<number> {
  const repoDir = resolve(args.repo);
  const info = await stat(repoDir).catch(() => undefined);
  if (!info?.isDirectory()) throw new InputError(`--repo ${args.repo}: no such folder`);
  const file = join(repoDir, INIT_PATH);
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
  try {
    await mkdir(join(repoDir, '.github'), { recursive: true });
    await writeFile(file, configTemplate());
  } catch (err) {
    throw new InputError(`cannot write ${shown}: ${errorMessage(err)}`);
  }
  write(`wrote ${shown}: every setting at its default, with a comment on each. Commit it to the default branch.\n`);
  return 0;
}
