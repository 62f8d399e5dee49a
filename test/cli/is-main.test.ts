import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isMainModule } from '../../src/cli/is-main.js';

describe('isMainModule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slopgate-main-'));
  const script = join(dir, 'cli.js');
  writeFileSync(script, '');
  const link = join(dir, 'slopgate');
  symlinkSync(script, link);

  it('is true when started through npm’s bin symlink', () => {
    expect(isMainModule(pathToFileURL(script).href, link)).toBe(true);
  });

  it('is true for the script itself and a relative path to it', () => {
    expect(isMainModule(pathToFileURL(script).href, script)).toBe(true);
    expect(isMainModule(pathToFileURL(script).href, join(dir, '.', 'cli.js'))).toBe(true);
  });

  it('is false for another script or none', () => {
    expect(isMainModule(pathToFileURL(script).href, join(dir, 'other.js'))).toBe(false);
    expect(isMainModule(pathToFileURL(script).href, undefined)).toBe(false);
  });
});
