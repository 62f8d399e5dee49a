import { CONFIG_PATHS, ConfigError, parseConfigText } from '../../config/load.js';
import { defaultConfig, type SlopgateConfig } from '../../core/config-schema.js';
import { runGit } from '../../workspace/git-auth.js';

const MAX_CONFIG_BYTES = 256 * 1024;

export interface BaseConfig {
  config: SlopgateConfig;
  /** The file it came from, or null (defaults). */
  file: string | null;
}

interface TreeEntry {
  type: string;
  oid: string;
  size: number;
}

/** A path's entry in a commit's tree, or null (`ls-tree -l`: mode type oid size<TAB>path). */
async function entryAt(dir: string, commit: string, path: string): Promise<TreeEntry | null> {
  const out = await runGit(dir, ['ls-tree', '-l', '-z', '--full-tree', commit, '--', path]);
  for (const rec of out.split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab < 0 || rec.slice(tab + 1) !== path) continue;
    const [mode, type, oid, size] = rec.slice(0, tab).split(/\s+/);
    // A symlink (120000) could point anywhere in the PR's tree; only a regular file counts.
    if (!oid || !type) return null;
    return { type: mode === '120000' ? 'symlink' : type, oid, size: Number(size) || 0 };
  }
  return null;
}

/**
 * The slopgate config as the BASE commit has it, read from git objects (never the checkout's files,
 * which are the pull request's). `path` empty or one of the App's paths: the App's lookup (exactly
 * one of .github/slopgate.yml/.yaml/.toml, or the defaults). Another path: that file, which must exist.
 * A broken config throws {@link ConfigError}: no quiet fallback to the defaults.
 */
export async function loadBaseConfig(dir: string, baseSha: string, path: string): Promise<BaseConfig> {
  const wanted = path.replace(/^\.\//, '');
  const lookup = !wanted || (CONFIG_PATHS as readonly string[]).includes(wanted);
  const candidates: string[] = lookup ? [...CONFIG_PATHS] : [wanted];
  const present: { file: string; entry: TreeEntry }[] = [];
  for (const file of candidates) {
    const entry = await entryAt(dir, baseSha, file);
    if (entry) present.push({ file, entry });
  }
  if (present.length === 0) {
    if (lookup) return { config: defaultConfig(), file: null };
    throw new ConfigError(wanted, undefined, undefined, `the base commit ${baseSha.slice(0, 12)} has no such file (input config)`);
  }
  if (present.length > 1) {
    throw new ConfigError(
      present[0]!.file,
      undefined,
      undefined,
      `found ${present.map((p) => p.file).join(' and ')}; keep exactly one slopgate config file`,
    );
  }
  const { file, entry } = present[0]!;
  if (entry.type !== 'blob') throw new ConfigError(file, undefined, undefined, 'expected a regular file');
  if (entry.size > MAX_CONFIG_BYTES) {
    throw new ConfigError(
      file,
      undefined,
      undefined,
      `the file is ${entry.size} bytes; a slopgate config may be at most ${MAX_CONFIG_BYTES} bytes`,
    );
  }
  const text = await runGit(dir, ['cat-file', 'blob', entry.oid]);
  return { config: parseConfigText(text, file), file };
}
