import type { Recipe } from '../types.js';
import { g1RevertManifest } from './g1-revert-manifest.js';
import { g13LiteralNewlines } from './g13-literal-newlines.js';
import { g13RestoreBlocks } from './g13-restore-blocks.js';
import { g14Relink } from './g14-relink.js';
import { g16Reformat } from './g16-reformat.js';
import { g2ConfigSyntax } from './g2-config-syntax.js';
import { g4RemoveImport } from './g4-remove-import.js';
import { g7RestoreDefinitions } from './g7-restore-definitions.js';

/**
 * The known fixes, in the order the refiner tries them. Each handles one finding shape and returns
 * null when it is not sure; the first recipe whose `handles` accepts a finding and whose `fix`
 * returns a fix wins.
 */
export const RECIPES: Recipe[] = [
  g7RestoreDefinitions,
  g1RevertManifest,
  g13RestoreBlocks,
  g13LiteralNewlines,
  g2ConfigSyntax,
  g14Relink,
  g4RemoveImport,
  g16Reformat,
];

export { applySuggestion, lineSuggestion } from './line-suggestion.js';
