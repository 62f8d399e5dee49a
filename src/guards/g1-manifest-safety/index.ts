import type { HostKind } from '../../core/host-kind.js';
import picomatch from 'picomatch';
import { readBlobs } from '../../core/git.js';
import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { dependencyChanges, type DependencyChange } from './dependency-diff.js';
import { sectionChanges } from './manifest-sections.js';
import {
  gitInternalsSymlinkFinding,
  lockfileFinding,
  manifestMessage,
  manifestRemediation,
  oversizeFinding,
  sensitiveFinding,
  symlinkFinding,
} from './messages.js';
import { basenameLower, dirnameOf, isManifest, lockfileManifests, sensitiveReason } from './path-rules.js';
import { resolveSymlink, type SymlinkReader } from './symlinks.js';
import { actionsUsed, workflowConcerns } from './workflow-risk.js';
import { isDependencyBot } from './dependency-bots.js';
import { staleLockfileFindings } from './stale-lockfile.js';
import { versionOnlyEdit } from './version-bumps.js';
import { G1_EVIDENCE, type G1ManifestEvidence, type G1WorkflowEvidence } from './evidence.js';
import type { SanctionRecord } from '../../core/report-sections.js';

/** The line of the first added line that mentions a changed dependency, else the first added line. */
function manifestLine(file: ChangedFile, changes: DependencyChange[] | null): number | undefined {
  const first = file.added[0]?.start;
  const lines = file.head.text?.split(/\r?\n/);
  if (!lines || !changes?.length) return first;
  const names = changes.filter((c) => c.kind !== 'removed').map((c) => c.name.toLowerCase());
  for (const range of file.added) {
    for (let n = range.start; n <= range.end; n++) {
      const text = lines[n - 1]?.toLowerCase() ?? '';
      if (names.some((name) => text.includes(name))) return n;
    }
  }
  return first;
}

/** A lockfile change is explained when a matching manifest in its directory or below (a workspace member) changed too. */
function lockfileUnexplained(file: ChangedFile, all: ChangedFile[]): string[] | null {
  const manifests = lockfileManifests(file.path);
  if (!manifests) return null;
  const dir = dirnameOf(file.path).toLowerCase();
  const explained = all.some((other) =>
    [other.path, other.oldPath].some((p) => {
      if (!p || !manifests.includes(basenameLower(p))) return false;
      const otherDir = dirnameOf(p).toLowerCase();
      return dir === '' || otherDir === dir || otherDir.startsWith(`${dir}/`);
    }),
  );
  return explained ? null : manifests;
}

function headSymlinkReader(ctx: GuardContext): SymlinkReader {
  const cache = new Map<string, Promise<string | null>>();
  return (path) => {
    let hit = cache.get(path);
    if (!hit) {
      hit = ctx.head.entries().then(async (entries) => {
        const entry = entries.get(path);
        if (entry?.mode !== '120000') return null;
        const blob = (await readBlobs(ctx.head.repoDir, [entry.oid], 4096)).get(entry.oid);
        return blob?.content ? blob.content.toString('utf8') : null;
      });
      cache.set(path, hit);
    }
    return hit;
  };
}

async function checkFile(file: ChangedFile, all: ChangedFile[], ctx: GuardContext, readLink: SymlinkReader): Promise<GuardFinding[]> {
  const out: GuardFinding[] = [];
  const firstAdded = file.added[0]?.start;
  const at = (line: number | undefined) => (line !== undefined && file.status !== 'deleted' ? { line } : {});
  if (isManifest(file.path) || (file.oldPath && isManifest(file.oldPath))) {
    const edited = file.status === 'modified' || file.status === 'added';
    const changes = edited ? dependencyChanges(file.path, file.base.text, file.head.text) : null;
    const sections = file.status === 'modified' ? sectionChanges(file.path, file.base.text, file.head.text) : null;
    // Only tool configuration ([tool.ruff], Cargo [lints]/[profile], package.json `prettier` or a
    // non-lifecycle script) changed: worth a note, not a risk.
    const toolOnly = changes?.length === 0 && sections?.every((s) => s.impact === 'tool') === true;
    // Only versions of dependencies the manifest already had moved (or only formatting changed):
    // routine upkeep, not a change of what the project depends on.
    const onlyVersions = file.status === 'modified' ? versionOnlyEdit(file.path, file.base.text, file.head.text) : null;
    const author = ctx.services.run?.author;
    const bot = isDependencyBot(author) ? author : undefined;
    // Collateral: an edit of an existing manifest that adds no dependency the PR's code could need
    // (reformatting, bumped or dropped pins, touched tool settings); undoing it is a safe known fix.
    const collateral = file.status === 'modified' && changes !== null && !changes.some((c) => c.kind === 'added');
    const evidence = {
      status: file.status,
      collateral,
      ...(onlyVersions ? { onlyVersions } : {}),
      ...(bot ? { author: bot } : {}),
      ...(changes?.length ? { dependencies: changes.slice(0, 50) } : {}),
      ...(sections?.length ? { sections: sections.slice(0, 50) } : {}),
    } satisfies G1ManifestEvidence;
    out.push({
      category: 'manifest-edit',
      severity: toolOnly || onlyVersions !== null || bot !== undefined ? 'nit' : 'risk',
      path: file.path,
      ...at(manifestLine(file, changes)),
      message: manifestMessage(file, changes, sections, { onlyVersions, bot }),
      remediation: manifestRemediation(file.path, hostOf(ctx)),
      evidence,
    });
    out.push(...(await staleLockfileFindings(file, changes, all, ctx)));
  }
  const sensitive = sensitiveReason(file.path) ?? (file.oldPath ? sensitiveReason(file.oldPath) : null);
  if (sensitive && isWorkflowYaml(file.path)) out.push(await workflowFinding(file, sensitive, ctx, at));
  else if (sensitive) out.push({ ...sensitiveFinding(file, sensitive, hostOf(ctx)), ...at(firstAdded) });
  const lockManifests = lockfileUnexplained(file, all);
  if (lockManifests) {
    const author = ctx.services.run?.author;
    out.push({ ...lockfileFinding(file, lockManifests, isDependencyBot(author) ? author : undefined, hostOf(ctx)), ...at(firstAdded) });
  }
  const limit = ctx.config.limits.maxFileBytes;
  const newContent = file.head.oid !== file.base.oid;
  if (file.head.mode?.startsWith('100') && file.head.size > limit && newContent) out.push(oversizeFinding(file, limit, hostOf(ctx)));
  if (file.head.mode === '120000' && file.head.symlinkTarget !== undefined) {
    const target = file.head.symlinkTarget;
    const verdict = await resolveSymlink(file.path, target, readLink);
    if (verdict.kind === 'outside') out.push(symlinkFinding(file, target, verdict.why, hostOf(ctx)));
    else if (verdict.kind === 'git-internals') out.push(gitInternalsSymlinkFinding(file, target, verdict.resolved, hostOf(ctx)));
  }
  return out;
}

/** Workflow files and local action metadata: YAML whose effect G1 can read. */
function isWorkflowYaml(path: string): boolean {
  return /(^|\/)\.github\/workflows\/[^/]+\.ya?ml$/i.test(path) || /(^|\/)\.github\/actions\/(?:.+\/)?action\.ya?ml$/i.test(path);
}

/** `owner/repo` of every action used anywhere in the base tree's workflows and actions (once per run). */
function baseActions(ctx: GuardContext): Promise<Set<string>> {
  return ctx.memo('g1:base-actions', async () => {
    const paths = [...(await ctx.base.entries()).keys()].filter((p) => isWorkflowYaml(p) || /(^|\/)action\.ya?ml$/.test(p));
    return actionsUsed((await ctx.base.readTexts(paths.slice(0, 500))).values());
  });
}

/** A workflow edit: `risk` for what widens its reach, `nit` for a routine change. */
async function workflowFinding(
  file: ChangedFile,
  reason: string,
  ctx: GuardContext,
  at: (line: number | undefined) => { line?: number },
): Promise<GuardFinding> {
  const base = sensitiveFinding(file, reason, hostOf(ctx));
  if (file.status === 'deleted') return { ...base, severity: 'nit' };
  if (file.head.text === null) return { ...base, ...at(file.added[0]?.start) };
  const concerns = workflowConcerns(file.status === 'added' ? null : file.base.text, file.head.text, await baseActions(ctx));
  if (concerns.length === 0) {
    return {
      ...base,
      severity: 'nit',
      ...at(file.added[0]?.start),
      message: `${base.message} Nothing in the change widens what it can reach: no new \`pull_request_target\` trigger, write permission, secret, download piped into a shell or unpinned third-party action.`,
    };
  }
  const listed = concerns.map((c) => c.what).join('; ');
  return {
    ...base,
    ...at(concerns.find((c) => c.line !== undefined)?.line ?? file.added[0]?.start),
    message: `${base.message} The change ${listed}.`,
    evidence: { concerns: concerns.map((c) => c.what) } satisfies G1WorkflowEvidence,
  };
}

/**
 * What a G1 finding is about: the file's content at the head (its blob, or its absence). Part of the
 * finding's id, so a `/slopgate dismiss` of one version of a workflow or CODEOWNERS does not carry to a
 * later push that rewrites it.
 */
function contentCause(file: ChangedFile): string {
  return file.head.oid ? `blob ${file.head.oid}` : 'deleted';
}

/** Names the sanction that allowed `path`: the matching `manifests.allow` glob, else a label or command. */
function sanctionSource(path: string, ctx: GuardContext): string {
  for (const glob of ctx.config.manifests.allow) {
    if (picomatch(glob, { dot: true })(path)) return `config manifests.allow: ${glob}`;
  }
  return hostOf(ctx) === 'action' ? 'the slopgate:allow-manifest label' : 'the slopgate:allow-manifest label or a /slopgate allow command';
}

/** The host running the gate (the App when the caller did not say). */
function hostOf(ctx: GuardContext): HostKind {
  return ctx.services.host ?? 'app';
}

export const g1: Guard = {
  id: 'G1',
  name: 'Build manifests, sensitive paths, oversize files and escaping symlinks',
  evidence: G1_EVIDENCE,
  needs: { services: ['run', 'host'], config: ['manifests', 'limits'] },
  appliesTo: () => true,
  async checkAll(files, ctx) {
    const readLink = headSymlinkReader(ctx);
    const findings: GuardFinding[] = [];
    const sanctions: SanctionRecord[] = [];
    for (const file of files) {
      if (ctx.signal.aborted) break;
      const raised = (await checkFile(file, ctx.patch.files, ctx, readLink)).map((f) => ({ ...f, cause: f.cause ?? contentCause(file) }));
      if (raised.length === 0) continue;
      const allowed = ctx.sanctioned(file.path) || (file.oldPath !== undefined && ctx.sanctioned(file.oldPath));
      if (!allowed) {
        findings.push(...raised);
        continue;
      }
      // A sanction allows the edit; it does not make the installer accept a lockfile that no longer matches.
      findings.push(...raised.filter((f) => f.category === 'lockfile-stale'));
      for (const f of raised.filter((x) => x.category !== 'lockfile-stale')) {
        sanctions.push({ path: file.path, category: f.category, finding: f.message, allowedBy: sanctionSource(file.path, ctx) });
      }
    }
    if (sanctions.length > 0) ctx.section('sanctions', { guard: 'G1', allowed: sanctions });
    return findings;
  },
};
