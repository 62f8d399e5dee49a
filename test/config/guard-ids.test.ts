import { describe, expect, it } from 'vitest';
import { GUARD_IDS, canonicalGuardId } from '../../src/core/guard-ids.js';
import { ConfigError, parseConfigText } from '../../src/config/load.js';
import { GUARDS } from '../../src/guards/index.js';

describe('known guard ids', () => {
  it('are exactly the ids of the guard registry, in its order', () => {
    expect([...GUARD_IDS]).toEqual(GUARDS.map((g) => g.id));
  });

  it('match case-insensitively and return the registry spelling', () => {
    expect(canonicalGuardId('g7')).toBe('G7');
    expect(canonicalGuardId('PSI')).toBe('psi');
    expect(canonicalGuardId('G3')).toBeUndefined();
  });
});

describe('guards.disable', () => {
  it('rejects an unknown id, naming the line and the known ids', () => {
    let err: unknown;
    try {
      parseConfigText('guards:\n  disable: [G11, G99]\n', '.github/slopgate.yml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).line).toBe(2);
    expect((err as ConfigError).message).toMatch(
      /unknown guard id 'G99'; known ids: G1, G2, G4, G7, G10, G11, G12, G13, G14, G15, G16, G17, G8, G9, psi/,
    );
  });

  it('rejects an unknown id in TOML too', () => {
    expect(() => parseConfigText('[guards]\ndisable = ["G5"]\n', '.github/slopgate.toml')).toThrow(/unknown guard id 'G5'/);
  });

  it('accepts known ids in any case', () => {
    expect(parseConfigText('guards:\n  disable: [g11, PSI]\n', '.github/slopgate.yml').guards.disable).toEqual(['g11', 'PSI']);
  });
});
