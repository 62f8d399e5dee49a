import { parse as parseYaml } from 'yaml';
import { gateConcerns } from './workflow-gates.js';

/**
 * What in a GitHub Actions workflow (or a local action) edit deserves a reviewer's eye. Most workflow
 * PRs are routine (a new Python version in the matrix, an action bumped, a step renamed); a few
 * changes widen what untrusted code can reach:
 *   - a new `pull_request_target` (or `workflow_run`) trigger: runs with secrets on fork PRs,
 *   - wider `permissions`: a new `write` scope, `write-all`, or a permissions block removed,
 *   - a new `secrets.*` reference (`GITHUB_TOKEN` is covered by permissions),
 *   - a new `curl … | sh` / `wget … | bash` pipe,
 *   - a third-party action the repository did not use before, referenced by a tag or branch rather
 *     than a full commit sha (its owner can change what runs). Bumping an action already in use, and
 *     actions of `actions/` and `github/`, are routine;
 *   - a check taken away (`workflow-gates.ts`): an action pinned to a lower major version, a step that
 *     could fail the job removed, `continue-on-error` added, a job's `if:` or `needs:` removed.
 * Anything else is a `nit`.
 */
export interface WorkflowConcern {
  what: string;
  /** 1-based head line of the first place it shows, when found. */
  line?: number;
}

type Doc = Record<string, unknown>;

const isRecord = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: string | null): Doc | null | 'invalid' {
  if (text === null) return null;
  try {
    const doc: unknown = parseYaml(text, { uniqueKeys: false, logLevel: 'silent' });
    return isRecord(doc) ? doc : {};
  } catch {
    return 'invalid';
  }
}

function triggers(doc: Doc): Set<string> {
  const on = doc.on ?? doc.true; // YAML 1.1 readers turn `on:` into true; accept both
  if (typeof on === 'string') return new Set([on]);
  if (Array.isArray(on)) return new Set(on.map(String));
  if (isRecord(on)) return new Set(Object.keys(on));
  return new Set();
}

/** Every permissions block: 'workflow' and 'job:<id>' → scope → level ('write-all' as scope '*'). */
function permissions(doc: Doc): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const read = (where: string, value: unknown) => {
    if (value === undefined) return;
    const scopes = new Map<string, string>();
    if (typeof value === 'string') scopes.set('*', value);
    else if (isRecord(value)) for (const [k, v] of Object.entries(value)) scopes.set(k, String(v));
    out.set(where, scopes);
  };
  read('workflow', doc.permissions);
  if (isRecord(doc.jobs)) for (const [id, job] of Object.entries(doc.jobs)) if (isRecord(job)) read(`job:${id}`, job.permissions);
  return out;
}

const SECRET_REF = /\bsecrets\.([A-Za-z_][A-Za-z0-9_]*)|\bsecrets\[\s*['"]([^'"]+)['"]\s*\]/g;
const PIPE_TO_SHELL = /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b/;
const USES = /^\s*-?\s*uses:\s*['"]?([^'"\s#]+)/;

function secretsIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(SECRET_REF)) {
    const name = m[1] ?? m[2]!;
    if (name !== 'GITHUB_TOKEN') out.add(name);
  }
  return out;
}

function lineOf(lines: string[], test: (line: string) => boolean): number | undefined {
  const i = lines.findIndex(test);
  return i < 0 ? undefined : i + 1;
}

/** `owner/repo` of a `uses:` value, or null for local (`./`) and docker actions. */
function actionOwnerRepo(uses: string): { name: string; ref: string } | null {
  if (uses.startsWith('./') || uses.startsWith('docker://')) return null;
  const at = uses.lastIndexOf('@');
  if (at < 0) return null;
  const name = uses.slice(0, at).split('/').slice(0, 2).join('/').toLowerCase();
  return { name, ref: uses.slice(at + 1) };
}

/**
 * The concerns a workflow edit raises. `usedAtBase` holds the `owner/repo` of every action any
 * workflow or action of the base tree uses (a new use of one of them is routine).
 */
export function workflowConcerns(baseText: string | null, headText: string | null, usedAtBase: Set<string>): WorkflowConcern[] {
  if (headText === null) return [];
  const head = parse(headText);
  const base = parse(baseText);
  if (head === 'invalid' || head === null) return [{ what: 'the workflow does not parse as YAML, so its effect cannot be checked' }];
  const baseDoc = base === 'invalid' || base === null ? {} : base;
  const lines = headText.split('\n');
  const concerns: WorkflowConcern[] = [];

  const before = triggers(baseDoc);
  for (const t of ['pull_request_target', 'workflow_run']) {
    if (triggers(head).has(t) && !before.has(t)) {
      concerns.push({
        what: `adds the \`${t}\` trigger (runs with the repository's secrets and write token on events from forks)`,
        line: lineOf(lines, (l) => l.includes(t)),
      });
    }
  }

  const permsBefore = permissions(baseDoc);
  const permsAfter = permissions(head);
  for (const [where, scopes] of permsBefore) {
    if (!permsAfter.has(where)) {
      const label =
        where === 'workflow' ? 'the workflow-level `permissions` block' : `the \`permissions\` block of job \`${where.slice(4)}\``;
      concerns.push({ what: `removes ${label} (the token falls back to the repository default, often write-all)` });
      void scopes;
    }
  }
  for (const [where, scopes] of permsAfter) {
    const old = permsBefore.get(where);
    for (const [scope, level] of scopes) {
      const widened = level === 'write' || level === 'write-all';
      if (!widened || old?.get(scope) === level) continue;
      const label = scope === '*' ? level : `\`${scope}: ${level}\``;
      const whereLabel = where === 'workflow' ? 'for the whole workflow' : `for job \`${where.slice(4)}\``;
      concerns.push({
        what: `grants ${label} ${whereLabel}`,
        line: lineOf(lines, (l) => (scope === '*' ? l.includes('write-all') : new RegExp(`^\\s*${scope}\\s*:\\s*write`).test(l))),
      });
    }
  }

  const oldSecrets = secretsIn(baseText ?? '');
  const newSecrets = [...secretsIn(headText)].filter((s) => !oldSecrets.has(s));
  if (newSecrets.length) {
    concerns.push({
      what: `uses new secret${newSecrets.length === 1 ? '' : 's'} ${newSecrets.map((s) => `\`${s}\``).join(', ')}`,
      line: lineOf(lines, (l) => l.includes(`secrets.${newSecrets[0]}`)),
    });
  }

  const oldPipes = new Set(
    (baseText ?? '')
      .split('\n')
      .filter((l) => PIPE_TO_SHELL.test(l))
      .map((l) => l.trim()),
  );
  const pipeLine = lines.findIndex((l) => PIPE_TO_SHELL.test(l) && !oldPipes.has(l.trim()));
  if (pipeLine >= 0)
    concerns.push({ what: `pipes a download into a shell (\`${lines[pipeLine]!.trim().slice(0, 80)}\`)`, line: pipeLine + 1 });

  const baseUses = new Set(
    (baseText ?? '').split('\n').flatMap((l) => {
      const u = USES.exec(l)?.[1];
      return u ? [actionOwnerRepo(u)?.name] : [];
    }),
  );
  lines.forEach((l, i) => {
    const uses = USES.exec(l)?.[1];
    const action = uses ? actionOwnerRepo(uses) : null;
    if (!action || /^(actions|github)\//.test(action.name) || baseUses.has(action.name) || usedAtBase.has(action.name)) return;
    if (/^[0-9a-f]{40}$/i.test(action.ref)) return;
    if (concerns.some((c) => c.what.includes(`\`${action.name}\``))) return;
    concerns.push({
      what: `adds the third-party action \`${action.name}\` pinned to \`${action.ref}\`, a tag or branch its owner can move (pin a full commit sha)`,
      line: i + 1,
    });
  });
  // What the edit takes away from the checks: downgraded actions, removed steps, conditions and needs.
  concerns.push(...gateConcerns(baseText, headText));
  return concerns;
}

/** `owner/repo` of every action used by the given workflow/action texts. */
export function actionsUsed(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const uses = USES.exec(line)?.[1];
      const action = uses ? actionOwnerRepo(uses) : null;
      if (action) out.add(action.name);
    }
  }
  return out;
}
