import type { Guard, GuardFinding } from '../../core/guard.js';
import { languageOf } from '../../repo/languages.js';
import { isSkippedPath } from '../../repo/manifests/index.js';
import { missingSymbols } from './missing-symbols.js';
import { signatureChanges } from './signature-change.js';
import { ungroundedImports } from './ungrounded-imports.js';

const CHECKED = new Set(['python', 'javascript', 'typescript', 'tsx', 'go', 'rust']);

/**
 * G4: the worker prompt's scope rules made deterministic for a PR — new imports must be grounded
 * in the repository's manifests, and names imported from the repository's own modules must exist
 * there (a); public signatures should not change silently (b). The file
 * fence (c) lives in file-fence.ts and is used by the refiner.
 */
export const g4: Guard = {
  id: 'G4',
  name: 'Scope rules: grounded imports and public signatures',
  appliesTo(file) {
    const lang = languageOf(file.path);
    return !!lang && CHECKED.has(lang) && file.status !== 'deleted' && file.head.text !== null && !isSkippedPath(file.path);
  },
  async checkFile(file, ctx): Promise<GuardFinding[]> {
    return [...(await ungroundedImports(file, ctx)), ...(await missingSymbols(file, ctx)), ...(await signatureChanges(file))];
  },
};
