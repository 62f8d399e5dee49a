import type { HostKind } from '../../core/host-kind.js';
import type { GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import { describeChange, type DependencyChange } from './dependency-diff.js';
import { describeSection, type SectionChange } from './manifest-sections.js';
import type { G1OversizeEvidence, G1SymlinkEvidence } from './evidence.js';

/**
 * How a G1 path is allowed where the gate runs; appended to every sanctionable remediation. The CLI has
 * only the config; the Action adds the label (its `labeled` run); the App adds the label and `/slopgate allow`.
 */
export function sanctionHint(path: string, host: HostKind): string {
  switch (host) {
    case 'cli':
      return `If it is intended, allow it: add the path to \`manifests.allow\` in the slopgate config (\`.github/slopgate.yml\` on the base branch, or the file given with \`--config\`).`;
    case 'action':
      return 'If it is intended, a maintainer can allow it: add the path to `manifests.allow` in the slopgate config on the base branch, or apply the `slopgate:allow-manifest` label (the workflow must run on `labeled` pull_request events).';
    case 'app':
      return `If it is intended, a maintainer can allow it: add the path to \`manifests.allow\` in the slopgate config, apply the \`slopgate:allow-manifest\` label, or comment \`/slopgate allow ${path}\`.`;
  }
}

function lineCount(ranges: { start: number; end: number }[]): number {
  return ranges.reduce((n, r) => n + r.end - r.start + 1, 0);
}

/** "adds", "deletes", "moves … to", "edits": what the PR did to the file. */
export function verbOf(file: ChangedFile): string {
  switch (file.status) {
    case 'added':
    case 'copied':
      return 'adds';
    case 'deleted':
      return 'deletes';
    case 'renamed':
      return `moves \`${file.oldPath}\` to`;
    default:
      return 'edits';
  }
}

const MAX_LISTED = 8;

/** Why a manifest edit is only a note: only versions moved, or a dependency bot wrote the PR. */
export interface RoutineEdit {
  onlyVersions?: 'versions' | 'formatting' | null;
  bot?: string | undefined;
}

function routineNote(routine: RoutineEdit): string {
  const why: string[] = [];
  if (routine.onlyVersions === 'formatting') why.push('Only comments or whitespace changed: nothing a build reads.');
  if (routine.onlyVersions === 'versions')
    why.push('Only versions of dependencies it already declared changed: no dependency was added, removed or pointed elsewhere.');
  if (routine.bot) why.push(`The PR is by \`${routine.bot}\`, a dependency-update bot: editing manifests is its job.`);
  return why.length ? ` ${why.join(' ')}` : '';
}

export function manifestMessage(
  file: ChangedFile,
  changes: DependencyChange[] | null,
  sections: SectionChange[] | null = null,
  routine: RoutineEdit = {},
): string {
  return manifestWhat(file, changes, sections) + routineNote(routine);
}

function manifestWhat(file: ChangedFile, changes: DependencyChange[] | null, sections: SectionChange[] | null): string {
  const where = `\`${file.path}\` is a build manifest and this PR ${verbOf(file) === 'edits' ? 'edits it' : `${verbOf(file)} it`}`;
  if (file.status === 'deleted') return `This PR deletes the build manifest \`${file.path}\`.`;
  if (file.status === 'renamed') return `This PR moves the build manifest \`${file.oldPath}\` to \`${file.path}\`.`;
  const phrases = [...(changes ?? []).map(describeChange), ...(sections ?? []).map(describeSection)];
  if (phrases.length > 0) {
    const listed = phrases.slice(0, MAX_LISTED).join('; ');
    const more = phrases.length > MAX_LISTED ? `; and ${phrases.length - MAX_LISTED} more` : '';
    const toolOnly =
      !changes?.length && sections?.length && sections.every((s) => s.impact === 'tool')
        ? ' Only tool configuration changed: no dependency, build or install setting.'
        : '';
    return `${where}: it ${listed}${more}.${toolOnly}`;
  }
  const added = lineCount(file.added);
  const removed = lineCount(file.removed);
  const counts = `${added} line${added === 1 ? '' : 's'} added, ${removed} removed`;
  if (changes && sections) return `${where} (${counts}); no dependency or section changed (formatting or comments only).`;
  if (changes) return `${where} (${counts}) without changing any dependency.`;
  return `${where} (${counts}).`;
}

export function manifestRemediation(path: string, host: HostKind): string {
  return `Check that the manifest change is needed for this PR; manifests decide what every build installs and runs. ${sanctionHint(path, host)}`;
}

export function lockfileFinding(
  file: ChangedFile,
  manifests: string[],
  bot: string | undefined,
  host: HostKind,
): Omit<GuardFinding, 'line'> {
  const names = manifests.map((m) => `\`${m}\``).join(' or ');
  const byBot = bot
    ? ` The PR is by \`${bot}\`, a dependency-update bot: a lockfile-only update (a transitive or security bump) is its job.`
    : '';
  return {
    category: 'sensitive-path',
    severity: bot ? 'nit' : 'risk',
    path: file.path,
    message: `This PR ${verbOf(file)} the lockfile \`${file.path}\` without changing ${names} in the same directory or below it. A lockfile edited on its own can swap the exact packages every install downloads, and lockfile diffs are rarely read.${byBot}`,
    remediation: `Regenerate the lockfile from its manifest with the package manager, or drop it from the PR. ${sanctionHint(file.path, host)}`,
  };
}

export function sensitiveFinding(file: ChangedFile, reason: string, host: HostKind): Omit<GuardFinding, 'line'> {
  const isEnv = reason.startsWith('an environment file');
  const remediation = isEnv
    ? `Remove the file from the PR and rotate any secret it held (it stays in git history); commit a template such as \`.env.example\` instead. ${sanctionHint(file.path, host)}`
    : `A maintainer must review this change by hand. ${sanctionHint(file.path, host)}`;
  return {
    category: 'sensitive-path',
    severity: 'risk',
    path: file.path,
    message: `This PR ${verbOf(file)} \`${file.path}\`, which is ${reason}.`,
    remediation,
  };
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}

export function oversizeFinding(file: ChangedFile, limit: number, host: HostKind): GuardFinding {
  const before = file.base.mode?.startsWith('100') && file.base.size > limit ? ` (it was already ${mib(file.base.size)} before)` : '';
  return {
    category: 'oversize-file',
    severity: 'risk',
    path: file.path,
    message: `\`${file.path}\` is ${mib(file.head.size)} (${file.head.size} bytes) at head, over the ${mib(limit)} limit (\`limits.maxFileBytes\`)${before}. Large files bloat every clone forever and are not checked by the other guards.`,
    remediation: `Keep large or generated files out of git (Git LFS, a release asset or a build step). ${sanctionHint(file.path, host)}`,
    evidence: { bytes: file.head.size, limit } satisfies G1OversizeEvidence,
  };
}

export function symlinkFinding(file: ChangedFile, target: string, why: string, host: HostKind): GuardFinding {
  return {
    category: 'sensitive-path',
    severity: 'fail',
    path: file.path,
    message: `\`${file.path}\` is a symbolic link to \`${target}\`, which points outside the repository: ${why}. Tools that follow links (builds, docs generators, artifact uploads) would read files from the machine running them.`,
    remediation: `Replace the link with a real file or a link that stays inside the repository. ${sanctionHint(file.path, host)}`,
    evidence: { target } satisfies G1SymlinkEvidence,
    cause: `symlink to ${target}`,
  };
}

export function gitInternalsSymlinkFinding(file: ChangedFile, target: string, resolved: string, host: HostKind): GuardFinding {
  return {
    category: 'sensitive-path',
    severity: 'fail',
    path: file.path,
    message: `\`${file.path}\` is a symbolic link to \`${target}\`, which resolves into git's own directory (\`${resolved}\`); git config and hooks are not part of the repository.`,
    remediation: `Remove the link. ${sanctionHint(file.path, host)}`,
    evidence: { target } satisfies G1SymlinkEvidence,
    cause: `symlink to ${target}`,
  };
}
