import type { Guard } from '../core/guard.js';
import { g1 } from './g1-manifest-safety/index.js';
import { g2 } from './g2-syntax/index.js';
import { g4 } from './g4-imports/index.js';
import { g7 } from './g7-dropped-definitions/index.js';
import { g10 } from './g10-config-schema/index.js';
import { g11 } from './g11-ungrounded-frameworks/index.js';
import { g12 } from './g12-config-packages/index.js';
import { g14 } from './g14-dead-links/index.js';
import { g8 } from './g8-tests/index.js';
import { g9 } from './g9-history.js';
import { psi } from './psi/index.js';
import { g13 } from './g13-doc-preservation/index.js';
import { g15 } from './g15-weak-assertions/index.js';
import { g16 } from './g16-project-checks/index.js';
import { g17 } from './g17-type-probe/index.js';

/**
 * The guard registry, in the fixed order the pipeline runs them. Every guard runs on every file it
 * applies to; the order only decides the order of the report's guard table.
 */
export const GUARDS: Guard[] = [g1, g2, g4, g7, g10, g11, g12, g13, g14, g15, g16, g17, g8, g9, psi];
