import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/load.js';
import { loadBaseConfig } from '../../../src/platforms/actions/base-config.js';
import { prRepo, removeTestRepos } from '../../helpers/git-repo.js';

afterAll(() => removeTestRepos());

describe('config from the base commit', () => {
  it('reads the base commit, never the pull request head or the checkout', async () => {
    const repo = prRepo(
      { '.github/slopgate.yml': 'strict: true\n', 'a.txt': 'a\n' },
      { '.github/slopgate.yml': 'strict: false\nguards:\n  disable: [G1]\n' },
    );
    const base = repo.git('rev-parse', 'main').trim();
    // The checkout holds the PR's version of the file.
    const { config, file } = await loadBaseConfig(repo.dir, base, '.github/slopgate.yml');
    expect(file).toBe('.github/slopgate.yml');
    expect(config.strict).toBe(true);
    expect(config.guards.disable).toEqual([]);
  });

  it('the default path also finds .toml; no file means the defaults; an explicit missing path is an error', async () => {
    const toml = prRepo({ '.github/slopgate.toml': 'strict = true\n' }, { 'b.txt': 'b\n' });
    expect((await loadBaseConfig(toml.dir, 'main', '.github/slopgate.yml')).file).toBe('.github/slopgate.toml');
    const none = prRepo({ 'a.txt': 'a\n' }, { 'b.txt': 'b\n' });
    expect(await loadBaseConfig(none.dir, 'main', '')).toMatchObject({ file: null, config: { strict: false } });
    await expect(loadBaseConfig(none.dir, 'main', 'ci/slopgate.yml')).rejects.toThrow(ConfigError);
  });

  it('a broken config or two config files are errors, not the defaults', async () => {
    const broken = prRepo({ '.github/slopgate.yml': 'strict: maybe\n' }, { 'b.txt': 'b\n' });
    await expect(loadBaseConfig(broken.dir, 'main', '')).rejects.toThrow(/strict/);
    const two = prRepo({ '.github/slopgate.yml': 'strict: true\n', '.github/slopgate.toml': 'strict = true\n' }, { 'b.txt': 'b\n' });
    await expect(loadBaseConfig(two.dir, 'main', '')).rejects.toThrow(/keep exactly one/);
  });

  it('a symlink on the base is not followed', async () => {
    const repo = prRepo({ 'real.yml': 'strict: true\n' }, { 'b.txt': 'b\n' });
    repo.checkout('main').symlink('.github/slopgate.yml', '../real.yml').commit('link');
    await expect(loadBaseConfig(repo.dir, 'main', '')).rejects.toThrow(/regular file/);
  });
});
