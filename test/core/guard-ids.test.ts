import { describe, expect, it } from 'vitest';
import { GUARD_IDS, GUARD_REGISTRY, canonicalGuardId, guardIdsText, refinerGuardIds } from '../../src/core/guard-ids.js';
import { ConfigError, parseConfigText } from '../../src/config/load.js';
import { GUARDS } from '../../src/guards/index.js';
import { REFINER_GUARD_IDS } from '../../src/refiner/verdict.js';

describe('the guard registry', () => {
  it('gives GUARDS one guard per id, carrying that id, in registry order', () => {
    expect(GUARDS.map((g) => g.id)).toEqual([...GUARD_IDS]);
    expect(GUARD_IDS).toEqual(['G1', 'G2', 'G4', 'G7', 'G10', 'G11', 'G12', 'G13', 'G14', 'G15', 'G16', 'G17', 'G8', 'G9', 'psi']);
  });

  it('numbers the refiner verdicts 1..n without a gap, and says why each other guard is left out', () => {
    const places = GUARD_REGISTRY.flatMap((g) => ('verdict' in g.refiner ? [g.refiner.verdict] : [])).sort((a, b) => a - b);
    expect(places).toEqual(places.map((_, i) => i + 1));
    const leftOut = GUARD_REGISTRY.flatMap((g) => ('leftOut' in g.refiner ? [[g.id, g.refiner.leftOut.length > 20]] : []));
    expect(leftOut).toEqual([
      ['G15', true],
      ['G16', true],
      ['G17', true],
      ['G9', true],
    ]);
  });

  it('derives the refiner list in verdict order (the order issue 20 found it in)', () => {
    expect(refinerGuardIds()).toEqual(['G1', 'G2', 'G4', 'G10', 'G11', 'G12', 'G13', 'G14', 'G7', 'psi', 'G8']);
    expect([...REFINER_GUARD_IDS]).toEqual(refinerGuardIds());
  });

  it('match case-insensitively and return the registry spelling', () => {
    expect(canonicalGuardId('g7')).toBe('G7');
    expect(canonicalGuardId('PSI')).toBe('psi');
    expect(canonicalGuardId('G3')).toBeUndefined();
  });
});

describe('guardIdsText', () => {
  it('lists ids in number order, runs of three or more as a range, Ψ last', () => {
    expect(guardIdsText(['psi', 'G8', 'G12', 'G1', 'G10', 'G2', 'G11', 'G4', 'G7', 'G13', 'G14'])).toBe('G1, G2, G4, G7, G8, G10–G14, Ψ');
    expect(guardIdsText(['G1', 'G2', 'G3'])).toBe('G1–G3');
    expect(guardIdsText(['G9'])).toBe('G9');
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
