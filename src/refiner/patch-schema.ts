import { posix } from 'node:path';
import { z } from 'zod';
import { isManifest, lockfileManifests, sensitiveReason } from '../guards/g1-manifest-safety/path-rules.js';

/** Longest path and file the refiner accepts from a model (full-file contents, so generous). */
export const MAX_PATH_CHARS = 500;
export const MAX_FILE_CHARS = 400_000;
export const MAX_FILES = 20;

/**
 * Why `path` can never be written by the refiner, or null when it is a plain repo-relative path.
 * Contained (no `..` segment, not absolute, no backslash or NUL), and never a manifest, a lockfile
 * or a sensitive path (G1's own lists): a refiner patch fixes code and docs, it does not change what
 * the project depends on.
 */
export function unsafePathReason(path: string): string | null {
  if (path.length === 0 || path.length > MAX_PATH_CHARS) return `path length must be 1–${MAX_PATH_CHARS} characters`;
  if (path.includes('\0')) return 'path contains a NUL byte';
  if (path.includes('\\')) return 'path contains a backslash (use forward slashes)';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'path is absolute';
  if (path.split('/').some((s) => s === '..')) return "path has a '..' segment";
  if (path.split('/').some((s) => s === '' || s === '.')) return "path has an empty or '.' segment";
  if (posix.normalize(path) !== path) return 'path is not normalised';
  if (path === '.git' || path.startsWith('.git/') || path.includes('/.git/')) return 'path is inside .git';
  if (isManifest(path)) return 'path is a build manifest (the refiner never edits manifests)';
  if (lockfileManifests(path)) return 'path is a lockfile (the refiner never edits lockfiles)';
  const sensitive = sensitiveReason(path);
  if (sensitive) return `path is sensitive: ${sensitive}`;
  return null;
}

const fileShape = z
  .object({
    path: z.string().min(1).max(MAX_PATH_CHARS),
    content: z.string().max(MAX_FILE_CHARS),
  })
  .strict();

const replyShape = z
  .object({
    files: z.array(fileShape).max(MAX_FILES),
    summary: z.string().max(200).optional(),
  })
  .strict();

export type RefinerReply = z.output<typeof replyShape>;

/**
 * The schema a model's reply must meet, bound to the flagged paths of this attempt: strict keys, at
 * most one entry per path, every path contained, not a manifest/lockfile, and inside the fence. A reply
 * that breaks it is refused as a whole (no partial patch is ever applied).
 */
export function refinerReplySchema(flagged: ReadonlySet<string>): z.ZodType<RefinerReply> {
  return replyShape.superRefine((reply, ctx) => {
    const seen = new Set<string>();
    reply.files.forEach((f, i) => {
      const unsafe = unsafePathReason(f.path);
      if (unsafe) ctx.addIssue({ code: 'custom', path: ['files', i, 'path'], message: `'${f.path}': ${unsafe}` });
      else if (!flagged.has(f.path)) {
        const message = `'${f.path}' is outside the fence: only ${[...flagged].sort().join(', ')} may change`;
        ctx.addIssue({ code: 'custom', path: ['files', i, 'path'], message });
      }
      if (seen.has(f.path)) ctx.addIssue({ code: 'custom', path: ['files', i, 'path'], message: `'${f.path}' appears twice` });
      seen.add(f.path);
    });
  });
}

/** The schema's complaint in a few lines (for the retry feedback and the report). */
export function schemaProblems(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.join('.') || '(reply)'}: ${i.message}`)
    .join('\n');
}
