import type { Guard, GuardContext, GuardFinding } from '../../core/guard.js';
import type { ChangedFile } from '../../core/patch-set.js';
import type { LinkChecker, LinkVerdict } from '../../core/ports.js';
import { sharedLinkChecker } from '../../repo/link-checker.js';
import { docKindOf, isAdded, isChangedDoc, textLines } from '../shared/doc-files.js';
import { extractLinks, type DocLink } from './link-extract.js';
import { checkAnchor, resolveLocalTarget, type AnchorProblem } from './local-targets.js';
import { similarPaths } from '../../repo/similar-paths.js';
import {
  G14_EVIDENCE,
  type G14AnchorEvidence,
  type G14DeadUrlEvidence,
  type G14MissingPathEvidence,
  type G14RootOnlyEvidence,
} from './evidence.js';

/** A link's target, sorted by what checking it takes. */
type Target = { type: 'external'; url: string } | { type: 'local'; path: string; fragment: string } | { type: 'skip' };

export function classifyTarget(raw: string): Target {
  const target = raw.trim();
  if (!target || /\{\{|\{%|\$\{|%7B%7B/i.test(target)) return { type: 'skip' }; // templated docs
  if (/^https?:\/\//i.test(target)) return { type: 'external', url: target };
  if (target.startsWith('//')) return { type: 'external', url: `https:${target}` };
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return { type: 'skip' }; // mailto:, tel:, data:, ftp: …
  const hash = target.indexOf('#');
  const beforeHash = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? '' : target.slice(hash + 1);
  const path = beforeHash.replace(/\?.*$/, '');
  return { type: 'local', path, fragment };
}

/** The links on lines this PR added whose target was not already linked somewhere in the base doc. */
export function addedLinks(file: ChangedFile): DocLink[] {
  const kind = docKindOf(file.path);
  const headText = file.head.text;
  if (kind === null || headText === null) return [];
  const before =
    file.base.text !== null
      ? new Set(extractLinks(file.oldPath ?? file.path, file.base.text, kind).map((l) => l.target))
      : new Set<string>();
  const seen = new Set<string>();
  return extractLinks(file.path, headText, kind).filter((link) => {
    const key = `${link.line}\u0000${link.target}`;
    if (seen.has(key) || before.has(link.target) || !isAdded(file, link.line)) return false;
    seen.add(key);
    return true;
  });
}

const noun = (link: DocLink) => (link.kind === 'image' ? 'image' : 'link');

function anchorFinding(file: ChangedFile, link: DocLink, problem: AnchorProblem): GuardFinding {
  const where = problem.file === file.path ? file.path : problem.file;
  const closest = problem.closest ? ` The closest anchor there is #${problem.closest}.` : '';
  const finding: GuardFinding = {
    category: 'dead-link',
    severity: 'risk',
    path: file.path,
    line: link.line,
    message: `The ${noun(link)} \`${link.target}\` added on line ${link.line} points to the anchor #${problem.fragment}, but ${where} has no heading or element with that anchor.${closest}`,
    remediation: `Point the ${noun(link)} at an existing heading of ${where} (anchors are the heading text lower-cased, spaces as hyphens, punctuation dropped), or add the heading.`,
    evidence: {
      target: link.target,
      file: where,
      anchor: problem.fragment,
      ...(problem.closest ? { closest: problem.closest } : {}),
    } satisfies G14AnchorEvidence,
  };
  const lineText = textLines(file.head.text ?? '')[link.line - 1] ?? '';
  const wrong = `#${problem.fragment}`;
  if (problem.closest && lineText.split(wrong).length === 2) {
    finding.suggestion = {
      path: file.path,
      startLine: link.line,
      endLine: link.line,
      replacement: lineText.replace(wrong, `#${problem.closest}`),
    };
  }
  return finding;
}

async function checkLocal(
  file: ChangedFile,
  link: DocLink,
  target: { path: string; fragment: string },
  ctx: GuardContext,
): Promise<GuardFinding | null> {
  const kind = docKindOf(file.path);
  if (target.path === '') {
    if (!target.fragment || kind !== 'markdown' || file.head.text === null) return null;
    const problem = await checkAnchor(file.path, target.fragment, ctx, file.head.text);
    return problem ? anchorFinding(file, link, problem) : null;
  }
  const resolved = await resolveLocalTarget(file.path, target.path, ctx);
  if (resolved.found) {
    if (!target.fragment) return null;
    const problem = await checkAnchor(resolved.found, target.fragment, ctx);
    return problem ? anchorFinding(file, link, problem) : null;
  }
  if (resolved.fromRoot) return rootOnlyFinding(file, link, resolved.fromRoot, resolved.tried[0] ?? target.path);
  const escapes = resolved.tried.length === 0;
  // Files the link most likely meant (case, extension or folder slip), for the refiner's relink recipe.
  const candidates = escapes ? [] : similarPaths((await ctx.head.entries()).keys(), resolved.tried[0]!);
  return {
    category: 'dead-link',
    severity: 'risk',
    path: file.path,
    line: link.line,
    message: escapes
      ? `The ${noun(link)} \`${link.target}\` added on line ${link.line} points outside the repository, where nobody reading ${file.path} can follow it.`
      : `The ${noun(link)} \`${link.target}\` added on line ${link.line} points to a file or folder that does not exist in this PR (looked for ${resolved.tried.map((t) => `\`${t}\``).join(' and ')}).`,
    remediation: escapes
      ? `Link to a path inside the repository or to a full https:// URL instead of \`${target.path}\`.`
      : `Fix the target of the ${noun(link)} \`${target.path}\`, add the missing file in this PR, or remove the ${noun(link)}.`,
    evidence: {
      target: link.target,
      tried: resolved.tried,
      kind: link.kind,
      ...(candidates.length ? { candidates } : {}),
    } satisfies G14MissingPathEvidence,
  };
}

/**
 * A relative link whose target exists only when read from the repository root: GitHub resolves it
 * against the doc's folder, so every reader gets a 404. The fix (the path relative to the doc) is a
 * suggestion when the target is written once on its line.
 */
function rootOnlyFinding(file: ChangedFile, link: DocLink, fromRoot: { path: string; fix: string }, githubPath: string): GuardFinding {
  const raw = link.target.trim();
  const cut = raw.search(/[?#]/);
  const fixed = `${fromRoot.fix}${cut < 0 ? '' : raw.slice(cut)}`;
  const finding: GuardFinding = {
    category: 'dead-link',
    severity: 'risk',
    path: file.path,
    line: link.line,
    message:
      `The ${noun(link)} \`${raw}\` added on line ${link.line} resolves to \`${githubPath}\` on GitHub (relative links are read from the doc's folder), which does not exist; ` +
      `\`${fromRoot.path}\` exists only from the repository root, so readers of ${file.path} get a 404.`,
    remediation: `Link to \`${fixed}\` (the path from ${file.path}'s folder) or to \`/${fromRoot.path}\` (from the repository root).`,
    evidence: {
      target: link.target,
      resolvesTo: githubPath,
      existsAt: fromRoot.path,
      fix: fixed,
      kind: link.kind,
    } satisfies G14RootOnlyEvidence,
  };
  const lineText = textLines(file.head.text ?? '')[link.line - 1] ?? '';
  if (lineText.split(raw).length === 2) {
    finding.suggestion = { path: file.path, startLine: link.line, endLine: link.line, replacement: lineText.replace(raw, fixed) };
  }
  return finding;
}

/** Online check of the added external URLs (only NXDOMAIN and a definitive 404/410 are dead). */
async function checkExternal(urls: Map<string, { file: ChangedFile; link: DocLink }[]>, checker: LinkChecker, ctx: GuardContext) {
  const findings: GuardFinding[] = [];
  const counts = { ok: 0, dead: 0, unknown: 0, skipped: 0 };
  // Stay well inside the guard's time budget: URLs not answered by then count as unknown, so a slow
  // network degrades to "not checked" instead of a guard timeout.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<LinkVerdict>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'unknown', reason: 'not checked within the time budget' }),
      Math.floor(ctx.config.guards.timeoutMs * 0.8),
    );
  });
  await Promise.all(
    [...urls].map(async ([url, uses]) => {
      if (ctx.signal.aborted) return;
      const verdict = await Promise.race([checker.check(url), deadline]);
      counts[verdict.status]++;
      if (verdict.status !== 'dead') return;
      for (const { file, link } of uses) {
        findings.push({
          category: 'dead-link',
          severity: 'risk',
          path: file.path,
          line: link.line,
          message: `The ${noun(link)} ${url} added on line ${link.line} is dead: ${verdict.reason}.`,
          remediation: `Replace ${url} with a URL that exists (check for a typo or a moved page), or remove the ${noun(link)}.`,
          evidence: {
            url,
            reason: verdict.reason,
            ...(verdict.httpStatus ? { httpStatus: verdict.httpStatus } : {}),
          } satisfies G14DeadUrlEvidence,
        });
      }
    }),
  );
  clearTimeout(timer);
  return { findings, counts };
}

export const g14: Guard = {
  id: 'G14',
  name: 'dead links',
  evidence: G14_EVIDENCE,
  // An injected link checker lives in this process, so with one G14 runs here (gate/thread-placement.ts).
  needs: { services: ['linkChecker'], config: ['links'] },
  appliesTo: (file) => isChangedDoc(file),
  async checkAll(files, ctx) {
    const findings: GuardFinding[] = [];
    const external = new Map<string, { file: ChangedFile; link: DocLink }[]>();
    let localChecked = 0;
    for (const file of files) {
      for (const link of addedLinks(file)) {
        const target = classifyTarget(link.target);
        if (target.type === 'external') {
          external.set(target.url, [...(external.get(target.url) ?? []), { file, link }]);
        } else if (target.type === 'local') {
          localChecked++;
          const finding = await checkLocal(file, link, target, ctx);
          if (finding) findings.push(finding);
        }
      }
    }
    if (!ctx.config.links.online) {
      ctx.section('links', { mode: 'offline', localChecked, externalSkipped: external.size });
      return findings;
    }
    const checker = ctx.services.linkChecker ?? sharedLinkChecker(ctx.config.links);
    const online = await checkExternal(external, checker, ctx);
    ctx.section('links', { mode: 'online', localChecked, external: external.size, ...online.counts });
    return [...findings, ...online.findings];
  },
};
