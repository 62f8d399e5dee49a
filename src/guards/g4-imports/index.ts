import type { Guard, GuardFinding } from '../../core/guard.js';
import { languageOf } from '../../repo/languages.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { missingSymbols } from './missing-symbols.js';
import { signatureChanges } from './signature-change.js';
import { isMdx } from './mdx-esm.js';
import { ungroundedImports } from './ungrounded-imports.js';
import { removedDependencyFindings } from './removed-dependencies.js';
import { isPythonManifest, removedPythonFindings } from './removed-python.js';
import { removedGoFindings } from './removed-go.js';
import { removedRustFindings } from './removed-rust.js';
import { G4_EVIDENCE } from './evidence.js';
import { asideFindings, notIncluded } from './file-inclusion.js';

const CHECKED = new Set(['python', 'javascript', 'typescript', 'tsx', 'go', 'rust']);

/** The manifests whose removed dependencies G4 checks against the imports that remain. */
function manifestKind(path: string): 'npm' | 'python' | 'go' | 'rust' | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base === 'package.json') return 'npm';
  if (base === 'go.mod') return 'go';
  if (base === 'Cargo.toml') return 'rust';
  return isPythonManifest(path) ? 'python' : null;
}

/**
 * G4: the worker prompt's scope rules made deterministic for a PR — new imports (in source files,
 * JS/TS config files and MDX pages) must be grounded in the repository's manifests, and in an npm
 * workspace in the manifest of the file's own package, and names imported from the repository's own modules must exist
 * there (a); public signatures should not change silently (b). The file
 * fence (c) lives in file-fence.ts and is used by the refiner.
 */
export const g4: Guard = {
  id: 'G4',
  name: 'Scope rules: grounded imports and public signatures',
  evidence: G4_EVIDENCE,
  needs: { services: [], config: ['imports'] },

  appliesTo(file) {
    if (manifestKind(file.path)) return file.status === 'modified' && !isSkippedPath(file.path);
    const lang = languageOf(file.path);
    const code = (!!lang && CHECKED.has(lang)) || isMdx(file.path);
    return code && file.status !== 'deleted' && file.head.text !== null && !isSkippedPath(file.path);
  },
  async checkFile(file, ctx): Promise<GuardFinding[]> {
    // A dependency the manifest drops while files of its package still import it.
    switch (manifestKind(file.path)) {
      case 'npm':
        return removedDependencyFindings(file, ctx.patch.files, ctx);
      case 'python':
        return removedPythonFindings(file, ctx.patch.files, ctx);
      case 'go':
        return removedGoFindings(file, ctx);
      case 'rust':
        return removedRustFindings(file, ctx);
      default:
        break;
    }
    // An MDX page's imports count like code; the rest of G4 is about source files.
    if (isMdx(file.path)) return ungroundedImports(file, ctx);
    const found = [...(await ungroundedImports(file, ctx)), ...(await missingSymbols(file, ctx)), ...(await signatureChanges(file))];
    // a file no package, test, build or CI job includes: what it imports breaks only whoever runs it
    const aside = found.some((f) => f.severity === 'fail') ? await notIncluded(file.path, ctx) : null;
    return aside ? asideFindings(found, aside) : found;
  },
};
