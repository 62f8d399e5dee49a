import type { Guard } from '../core/guard.js';
import { g1 } from './g1-manifest-safety.js';
import { g2 } from './g2-syntax.js';
import { g4 } from './g4-scope-rules.js';
import { g7 } from './g7-dropped-definitions.js';
import { g10 } from './g10-config-schema.js';
import { g11 } from './g11-ungrounded-frameworks.js';
import { g12 } from './g12-config-packages.js';
import { g14 } from './g14-dead-links.js';
import { g8 } from './g8-tests.js';
import { g9 } from './g9-history.js';
import { psi } from './psi.js';
import { g13 } from './g13-doc-preservation.js';
import { g15 } from './weak-assertions.js';

/**
 * The guard registry, in the fixed order the pipeline runs them. Every guard runs on every file it
 * applies to; the order only decides the order of the report's guard table.
 */
export const GUARDS: Guard[] = [g1, g2, g4, g7, g10, g11, g12, g13, g14, g15, g8, g9, psi];

