import { spawn } from 'node:child_process';
import { gitEnv } from '../core/git.js';

/**
 * Writes the files of one commit into `dest` with `git archive | tar -x`. The result has no `.git`:
 * no remote URLs, no credential helpers, no extra headers and no path back to the app's mirror, so a
 * PR's tests cannot read anything git knows. (Submodules and LFS objects are not included.)
 */
export function exportTree(repoDir: string, sha: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn('git', ['archive', '--format=tar', sha], { cwd: repoDir, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-f', '-', '-C', dest, '--no-same-owner'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    archive.stderr.on('data', (c: Buffer) => (err += c.toString()));
    tar.stderr.on('data', (c: Buffer) => (err += c.toString()));
    archive.stdout.pipe(tar.stdin);
    let archiveCode: number | null = null;
    archive.on('error', reject);
    tar.on('error', reject);
    archive.on('close', (code) => {
      archiveCode = code;
    });
    tar.on('close', (code) => {
      if (archiveCode !== 0 && archiveCode !== null) reject(new Error(`git archive ${sha} failed: ${err.trim()}`));
      else if (code !== 0) reject(new Error(`extracting ${sha} failed: ${err.trim()}`));
      else resolve();
    });
  });
}
