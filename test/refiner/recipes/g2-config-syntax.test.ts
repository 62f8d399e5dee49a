import { describe, expect, it } from 'vitest';
import { g2 } from '../../../src/guards/g2-syntax/index.js';
import { g2ConfigSyntax as recipe } from '../../../src/refiner/recipes/g2-config-syntax.js';
import { applyAndRerun, contextOf, fixOne, reproduce } from './harness.js';

const SETTINGS = '[server]\nhost = "127.0.0.1"\nport = 8080\n\n[storage]\nbackend = "sqlite"\npath = "data/app.db"\n';

describe('recipe g2-config-syntax', () => {
  it('quotes the unquoted TOML string an LLM wrote (and the second one behind it)', async () => {
    const head = SETTINGS.replace('backend = "sqlite"', 'backend = postgres # switched') // two bare strings
      .replace('path = "data/app.db"', 'path = data/app.db');
    const c = await reproduce(g2, { 'config/settings.toml': SETTINGS }, { 'config/settings.toml': head });
    expect(c.findings).toHaveLength(1);
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toBe(SETTINGS.replace('backend = "sqlite"', 'backend = "postgres" # switched'));
    expect(fix.summary).toContain('quoted 2 bare TOML strings');
    expect(fix.suggestion).toMatchObject({ startLine: 6, endLine: 7 });
    expect(await applyAndRerun(c, g2, fix)).toEqual([]);
  });

  it('drops a trailing comma from strict JSON', async () => {
    const base = '{\n  "name": "app",\n  "features": ["a", "b"]\n}\n';
    const head = '{\n  "name": "app",\n  "features": ["a", "b", "c",],\n  "debug": true,\n}\n';
    const c = await reproduce(g2, { 'config/app.json': base }, { 'config/app.json': head });
    expect(c.findings).toHaveLength(1);
    const { fix } = await fixOne(c, recipe);
    expect(fix.files[0]!.content).toBe('{\n  "name": "app",\n  "features": ["a", "b", "c"],\n  "debug": true\n}\n');
    expect(JSON.parse(fix.files[0]!.content)).toEqual({ name: 'app', features: ['a', 'b', 'c'], debug: true });
    expect(await applyAndRerun(c, g2, fix)).toEqual([]);
  });

  it('returns null when the TOML error is not a bare string (an unclosed array)', async () => {
    const head = SETTINGS.replace('port = 8080', 'ports = [8080, 8081');
    const c = await reproduce(g2, { 'config/settings.toml': SETTINGS }, { 'config/settings.toml': head });
    expect(c.findings).toHaveLength(1);
    expect(recipe.handles(c.findings[0]!)).toBe(true);
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo))).toBeNull();
  });

  it('returns null when a bare string is fixable but another error stays (the result would still not parse)', async () => {
    const head = SETTINGS.replace('backend = "sqlite"', 'backend = postgres').replace('port = 8080', 'port = 8080 8081');
    const c = await reproduce(g2, { 'config/settings.toml': SETTINGS }, { 'config/settings.toml': head });
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo))).toBeNull();
  });

  it('returns null for a JSON error other than a trailing comma, and for JSON that parses again', async () => {
    const base = '{\n  "name": "app"\n}\n';
    const c = await reproduce(g2, { 'config/app.json': base }, { 'config/app.json': "{\n  'name': 'app',\n}\n" });
    expect(c.findings).toHaveLength(1);
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo))).toBeNull();
    expect(await recipe.fix(c.findings[0]!, contextOf(c.repo, { 'config/app.json': base }))).toBeNull();
  });
});
