import type { Guard } from '../core/guard.js';
import { GUARD_IDS, type GuardId } from '../core/guard-ids.js';
import { g1 } from './g1-manifest-safety/index.js';
import { g2 } from './g2-syntax/index.js';
import { g4 } from './g4-imports/index.js';
import { g7 } from './g7-dropped-definitions/index.js';
import { g10 } from './g10-config-schema/index.js';
import { g11 } from './g11-ungrounded-frameworks/index.js';
import { g12 } from './g12-config-packages/index.js';
import { g14 } from './g14-dead-links/index.js';
import { g8 } from './g8-tests/index.js';
import { g9 } from './g9-history/index.js';
import { psi } from './psi/index.js';
import { g13 } from './g13-doc-preservation/index.js';
import { g15 } from './g15-weak-assertions/index.js';
import { g16 } from './g16-project-checks/index.js';
import { g17 } from './g17-type-probe/index.js';

/** The guard object of each registry id (src/core/guard-ids.ts): a missing or an extra guard does not compile. */
const GUARD_OF: Record<GuardId, Guard> = {
  G1: g1,
  G2: g2,
  G4: g4,
  G7: g7,
  G10: g10,
  G11: g11,
  G12: g12,
  G13: g13,
  G14: g14,
  G15: g15,
  G16: g16,
  G17: g17,
  G8: g8,
  G9: g9,
  psi,
};

/**
 * The guards, in the registry's order (src/core/guard-ids.ts). Every guard runs on every file it applies to;
 * the order only decides the order of the report's guard table.
 */
export const GUARDS: Guard[] = GUARD_IDS.map((id) => GUARD_OF[id]);
