import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * True when `moduleUrl` is the script node was started with. npm installs a bin as a symlink
 * (`node_modules/.bin/slopgate` → `../slopgate/dist/cli.js`), and `process.argv[1]` keeps the
 * symlink's path while `import.meta.url` is the target's, so both sides are resolved to their real
 * paths before they are compared.
 */
export function isMainModule(moduleUrl: string, argv1: string | undefined = process.argv[1]): boolean {
  if (!argv1) return false;
  return real(argv1) === real(fileURLToPath(moduleUrl));
}
