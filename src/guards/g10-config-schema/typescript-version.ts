import type { GuardContext } from '../../core/guard.js';
import { isRecord } from '../../core/is-record.js';
import { bundledTypeScript } from './tsconfig-options.js';

const minor = (v: string): [number, number] | null => {
  const m = /(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : null;
};

/**
 * The TypeScript version the repository declares for `configPath` (the nearest package.json up to
 * the root that names `typescript`), when it is newer than the compiler slopgate reads tsconfig
 * options with: an option slopgate's compiler does not know may then be a new one. Null otherwise.
 */
export async function newerTypeScript(ctx: GuardContext, configPath: string): Promise<string | null> {
  const dirs = configPath.split('/').slice(0, -1);
  const candidates: string[] = [];
  for (let i = dirs.length; i >= 0; i--) candidates.push([...dirs.slice(0, i), 'package.json'].join('/'));
  const texts = await ctx.head.readTexts(candidates);
  for (const path of candidates) {
    const text = texts.get(path);
    if (text === undefined) continue;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      continue;
    }
    if (!isRecord(doc)) continue;
    for (const group of ['devDependencies', 'dependencies', 'peerDependencies']) {
      const deps = doc[group];
      const spec = isRecord(deps) ? deps.typescript : undefined;
      if (typeof spec !== 'string') continue;
      const theirs = minor(spec);
      const ours = minor(await bundledTypeScript());
      if (!theirs || !ours) return null;
      return theirs[0] > ours[0] || (theirs[0] === ours[0] && theirs[1] > ours[1]) ? spec : null;
    }
  }
  return null;
}
