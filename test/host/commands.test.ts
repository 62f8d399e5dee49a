import { describe, expect, it } from 'vitest';
import { normaliseAllowPath, parseCommand } from '../../src/host/commands.js';
import { RERUN_ACTION, REFINE_ACTION, capText } from '../../src/host/check-outcome.js';

describe('github/commands: parseCommand', () => {
  it('finds the command line anywhere in the comment', () => {
    expect(parseCommand('Thanks!\n\n/slopgate recheck\n')).toEqual({ name: 'recheck' });
    expect(parseCommand('/slopgate explain 3f2a9c1b7d0e')).toEqual({ name: 'explain', findingId: '3f2a9c1b7d0e' });
    expect(parseCommand('/slopgate RESET')).toEqual({ name: 'reset' });
  });

  it('ignores quoted replies and code blocks that merely show a command', () => {
    expect(parseCommand('> /slopgate reset\nI disagree')).toBeNull();
    expect(parseCommand('Use it like this:\n```\n/slopgate allow go.mod\n```')).toBeNull();
    expect(parseCommand('/slopgaterecheck')).toBeNull();
  });

  it('turns unknown verbs and missing arguments into a help answer', () => {
    expect(parseCommand('/slopgate merge')).toMatchObject({ name: 'unknown' });
    expect(parseCommand('/slopgate allow')).toMatchObject({ name: 'unknown', problem: expect.stringContaining('needs a path') });
    expect(parseCommand('/slopgate explain <id>')).toMatchObject({ name: 'unknown' });
    expect(parseCommand('/slopgate')).toEqual({ name: 'help' });
  });
});

describe('github/commands: normaliseAllowPath', () => {
  it('normalises harmless spellings of a repo path', () => {
    expect(normaliseAllowPath('`./services/api/package.json`')).toEqual({ ok: true, path: 'services/api/package.json' });
    expect(normaliseAllowPath('/go.mod')).toEqual({ ok: true, path: 'go.mod' });
    expect(normaliseAllowPath('services\\api\\Cargo.toml')).toEqual({ ok: true, path: 'services/api/Cargo.toml' });
    expect(normaliseAllowPath('a//b/./c/')).toEqual({ ok: true, path: 'a/b/c' });
  });

  it('refuses traversal, control characters and backticks', () => {
    expect(normaliseAllowPath('../../etc/passwd').ok).toBe(false);
    expect(normaliseAllowPath('a/../../b').ok).toBe(false);
    expect(normaliseAllowPath('a\u0000b').ok).toBe(false);
    expect(normaliseAllowPath('a`b').ok).toBe(false);
    expect(normaliseAllowPath('.').ok).toBe(false);
  });
});

describe('github/check-run: limits', () => {
  it('buttons stay within GitHub limits (label and identifier ≤ 20, description ≤ 40)', () => {
    for (const a of [RERUN_ACTION, REFINE_ACTION]) {
      expect(a.label.length).toBeLessThanOrEqual(20);
      expect(a.identifier.length).toBeLessThanOrEqual(20);
      expect(a.description.length).toBeLessThanOrEqual(40);
    }
  });

  it('capText keeps text within the cap and says how much was cut', () => {
    const text = 'x'.repeat(70_000);
    const out = capText(text);
    expect(out.length).toBeLessThanOrEqual(65_535);
    const cut = Number(/… (\d+) more characters/.exec(out)?.[1]);
    expect(out.indexOf('\n\n…')).toBe(70_000 - cut);
    expect(capText('short')).toBe('short');
  });
});
