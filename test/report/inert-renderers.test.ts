import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../src/core/finding.js';
import type { Report } from '../../src/core/report.js';
import { dismissedReply } from '../../src/host/dismiss-finding.js';
import { grantedReply, labelRefusedReply, sanctionRefusal } from '../../src/host/give-sanction.js';
import {
  abandonedOutcome,
  configErrorOutcome,
  failedJobOutcome,
  infrastructureOutcome,
  queueOutcome,
  reportOutcome,
  skippedOutcome,
} from '../../src/host/check-run-outcomes.js';
import { GateInfraError } from '../../src/core/errors.js';
import { parseCommand } from '../../src/host/commands.js';
import { renderBodySection } from '../../src/host/pr-body.js';
import { nothingKeptComment, pushedComment, refineCommitMessage, suggestionsBody } from '../../src/host/refine-messages.js';
import { commentBody } from '../../src/host/review-plan.js';
import { ConfigError } from '../../src/config/load.js';
import { jobSummary } from '../../src/platforms/actions/actions-review-host.js';
import { annotationCommand } from '../../src/platforms/actions/workflow-commands.js';
import { unknownCommandReply } from '../../src/platforms/github/command-handler.js';
import { explainFinding, findingBlockInText } from '../../src/platforms/github/explain-finding.js';
import { qaMarkdown } from '../../src/qa/section.js';
import { qaBlockMarkdown, qaSummaryLine } from '../../src/report/qa-section.js';
import type { RefineResult } from '../../src/refiner/refine.js';
import { toAnnotations } from '../../src/report/annotations.js';
import { inertReport, inertText } from '../../src/report/markdown-escape.js';
import { renderCheckRun, renderMarkdown } from '../../src/report/markdown.js';
import { buildReport, f } from './build-report.js';
import { liveMarkup, OWN_URL } from '../helpers/live-markup.js';

/**
 * Issue 19, item 5: every place where the App or the Action writes text a pull request controls, fed
 * one hostile string. Nothing of it may survive as a mention, a cross-reference, an image, a link (inline,
 * by reference, auto-linked), raw HTML, a character reference or an HTML comment. A second test scans
 * src/ for every call that sends a body to GitHub, so a new one cannot skip this list.
 */

const HOSTILE =
  '@acme/maintainers LGTM ![x](https://t.example/p.gif) [re-run](https://phish.example) <img src=x onerror=alert(1)> ' +
  '<!-- slopgate:allow:Zm9v.AAAAAAAAAAAAAAAAAAAAAAAAAAAA --> www.evil.example &#64;acme/team fixes #12 GH-7 mail@evil.example ' +
  '<https://auto.example> [r][ref] \\`@acme/escaped\\` `code @ok`\n[ref]: https://ref.example\n`a\n\n@acme/split\n\nb`';

const hostileFinding: Finding = f({
  guard: 'G8',
  category: 'test-regression',
  path: `tests/${HOSTILE.slice(0, 40)}.py`,
  line: 3,
  message: `Test \`test_x\` fails: ${HOSTILE}`,
  remediation: `Fix it. ${HOSTILE}`,
  evidence: { output: HOSTILE, [HOSTILE.slice(0, 30)]: [HOSTILE] },
  suggestion: { path: 'tests/a.py', startLine: 3, endLine: 3, replacement: `x = 1  # ${HOSTILE}\n` },
});
const dismissed: Finding = {
  ...f({ path: 'src/b.py', message: 'other' }),
  dismissed: { by: HOSTILE, at: '2026-01-01T00:00:00Z', reason: HOSTILE, source: 'inline' },
};

function hostileReport(): Report {
  const base = buildReport([hostileFinding, dismissed]);
  return {
    ...base,
    decision: { ...base.decision, reason: HOSTILE },
    guards: base.guards.map((g) => ({ ...g, reason: HOSTILE })),
    sections: {
      tests: {
        runner: 'pytest',
        command: HOSTILE,
        regressions: [HOSTILE],
        brokenUnits: [HOSTILE],
        suiteBroken: false,
        fixed: [],
        removed: [HOSTILE],
        flaky: [],
        notRun: HOSTILE,
        notes: [HOSTILE],
      },
      qa: { status: 'crashed', reason: HOSTILE, handled: 0, gap: 0, uncertain: 0 },
      refine: {
        attempts: [{ n: 1, source: HOSTILE, outcome: 'reverted', paths: [HOSTILE], reason: HOSTILE }],
        kept: 0,
        reverted: 1,
        tokens: 0,
      },
      sincePush: {
        previous: { headSha: 'e'.repeat(40), mergeBase: 'f'.repeat(40) },
        history: 'rewritten',
        mergeBaseMoved: true,
        lineMapping: 'diff',
        new: [hostileFinding.id],
        stillOpen: [],
        dismissed: [],
        fixed: [
          { id: 'gone', guard: HOSTILE, category: HOSTILE, severity: 'fail', path: HOSTILE, line: 3, message: HOSTILE, gone: 'fixed' },
          { id: 'base', guard: HOSTILE, category: HOSTILE, severity: 'risk', message: HOSTILE, gone: 'base' },
        ],
      },
    },
  };
}

const refineResult: RefineResult = {
  baseSha: 'a'.repeat(40),
  headSha: 'b'.repeat(40),
  candidateSha: null,
  files: [],
  diff: `+ ${HOSTILE}`,
  commitMessage: '',
  fixed: [hostileFinding.id],
  attempts: [
    {
      n: 1,
      source: HOSTILE,
      paths: [HOSTILE],
      targets: [],
      outcome: 'reverted',
      reason: HOSTILE,
      verdicts: [],
      fixed: [],
      tokens: { prompt: 0, completion: 0 },
      ms: 1,
    },
  ],
  tokens: { promptTokens: 0, completionTokens: 0, calls: 0 },
  model: null,
  excluded: [{ path: HOSTILE, reason: HOSTILE }],
  notes: [HOSTILE],
  blockingBefore: 1,
  blockingAfter: 1,
};

/**
 * Every renderer of text that reaches GitHub, by the file that owns it. Each returns the strings it
 * would post for the hostile input. The published report always goes through inertReport first (the
 * App's pr-job.ts and the Action's run-action.ts), but the renderers must hold on their own too, so
 * both are fed here.
 */
const RENDERERS: Record<string, () => string[]> = {
  'report/markdown.ts renderCheckRun (check run title, summary, text)': () => {
    const raw = renderCheckRun(hostileReport(), { detailsUrl: OWN_URL });
    const inert = renderCheckRun(inertReport(hostileReport()), { detailsUrl: OWN_URL });
    return [raw.title, raw.summary, raw.text, inert.title, inert.summary, inert.text];
  },
  'report/markdown.ts renderMarkdown': () => [renderMarkdown(hostileReport())],
  'host/check-run-outcomes.ts reportOutcome (what completeCheckRun sends)': () => {
    const o = reportOutcome(hostileReport(), true, OWN_URL);
    return [o.title, o.summary, o.text ?? '', ...(o.annotations ?? []).flatMap((a) => [a.title, a.message, a.raw_details ?? ''])];
  },
  'report/annotations.ts toAnnotations (check-run annotations)': () =>
    toAnnotations(hostileReport()).flatMap((a) => [a.title, a.message, a.raw_details ?? '']),
  'platforms/actions/workflow-commands.ts annotationCommand (the Action without checks: write)': () =>
    // The file property is the exact path GitHub attaches the annotation to, never rendered: left out of the check.
    toAnnotations(hostileReport()).map((a) => annotationCommand(a).replace(/file=[^,]*,/, 'file=PATH,')),
  'platforms/actions/actions-review-host.ts jobSummary (the Action job summary)': () => [
    jobSummary(reportOutcome(hostileReport(), false, OWN_URL)),
    jobSummary(infrastructureOutcome(HOSTILE)),
  ],
  'host/review-plan.ts commentBody (review comments)': () => [commentBody(hostileFinding), commentBody(hostileFinding, 'x = 1')],
  'platforms/github/explain-finding.ts explainFinding (/slopgate explain, from the store)': () => [
    explainFinding(hostileFinding, 'c'.repeat(40)),
  ],
  'platforms/github/explain-finding.ts findingBlockInText (/slopgate explain, from the check run)': () => {
    const text = renderCheckRun(hostileReport()).text;
    const block = findingBlockInText(text, hostileFinding.id) ?? '';
    expect(block).not.toBe('');
    return [inertText(block)];
  },
  'platforms/github/command-handler.ts unknownCommandReply (unknown verbs and malformed commands)': () => {
    const replies: string[] = [];
    for (const body of [
      `/slopgate ${HOSTILE}`,
      `/slopgate a\`${HOSTILE}`,
      `/slopgate dismiss ${HOSTILE}`,
      `/slopgate dismiss 0123456789ab`,
    ]) {
      const c = parseCommand(body);
      if (c?.name === 'unknown') replies.push(unknownCommandReply(c));
    }
    expect(replies.length).toBeGreaterThanOrEqual(3);
    return replies;
  },
  'host/dismiss-finding.ts dismissedReply (/slopgate dismiss)': () => [
    dismissedReply('maint', { id: hostileFinding.id, category: 'test-regression', path: HOSTILE }, HOSTILE),
  ],
  'host/give-sanction.ts (sanction replies: /slopgate allow and the label)': () => {
    const grant = { via: 'allow' as const, by: 'maint', at: 'f'.repeat(40), pattern: HOSTILE, files: [{ path: HOSTILE, blob: null }] };
    const refusal = sanctionRefusal('adding the label', 'maint', { level: 'read', name: 'triage' }, null, () => false) ?? '';
    return [grantedReply(grant), grantedReply({ ...grant, via: 'label' }), labelRefusedReply(refusal), refusal];
  },
  'host/pr-body.ts renderBodySection (the PR description)': () => [
    renderBodySection({
      decision: { ...hostileReport().decision },
      headSha: 'd'.repeat(40),
      checkRunUrl: OWN_URL,
      notes: [HOSTILE],
      qa: { status: 'crashed', reason: HOSTILE },
    }),
    renderBodySection({ decision: hostileReport().decision, headSha: 'd'.repeat(40), qa: { status: 'not-run', reason: HOSTILE } }),
  ],
  'qa/section.ts and report/qa-section.ts (Q&A rationales, questions, evidence)': () => {
    const q = `Why ${HOSTILE}`;
    const result = {
      questions: [{ slot: 'intent' as const, question: q }],
      answers: [{ slot: 'intent' as const, verdict: 'gap' as const, rationale: HOSTILE, evidence: HOSTILE, flipped: HOSTILE }],
      roundTrip: false,
      revisedPatch: [],
    };
    return [
      // cast: the fixture fills only the fields the renderer reads
      qaMarkdown(result as unknown as Parameters<typeof qaMarkdown>[0]),
      qaBlockMarkdown({ status: 'crashed', reason: HOSTILE }),
      qaBlockMarkdown({ status: 'not-run', reason: HOSTILE }),
      qaSummaryLine({ status: 'crashed', reason: HOSTILE }, (t) => inertText(t)) ?? '',
    ];
  },
  'host/refine-messages.ts (refine comments, suggestion reviews, the refine commit)': () => [
    nothingKeptComment(refineResult, 'e'.repeat(40)),
    pushedComment('e'.repeat(40), HOSTILE, [hostileFinding], null),
    suggestionsBody({
      why: 'The branch is protected.',
      fixed: [hostileFinding],
      diff: HOSTILE,
      leftOver: [HOSTILE],
      suggested: 0,
      model: null,
    }),
    refineCommitMessage(refineResult, [hostileFinding], 1),
  ],
  'host/check-run-outcomes.ts (skipped, config error, outage, abandoned, no sandbox, wrong tree)': () =>
    [
      skippedOutcome(HOSTILE),
      configErrorOutcome(new ConfigError(HOSTILE, 2, 1, HOSTILE), 'main'),
      infrastructureOutcome(HOSTILE),
      abandonedOutcome({ reason: 'failed', message: HOSTILE }),
      abandonedOutcome({ reason: 'worker-lost', message: HOSTILE }),
      failedJobOutcome(
        new GateInfraError(`the tree under test differs from the commit at ${HOSTILE}`, 'Re-run.', 'tree'),
        'action_required',
      ),
      failedJobOutcome(new Error(HOSTILE), 'neutral'),
    ].flatMap((o) => [inertText(o.title), o.summary]),
  'host/check-run-outcomes.ts queueOutcome (a merge queue entry, gated or with a reused verdict)': () => {
    const group = { headRef: HOSTILE, baseRef: HOSTILE, baseSha: 'f'.repeat(40) };
    const verdict = reportOutcome(inertReport(buildReport([hostileFinding])), false);
    return [queueOutcome(verdict, group), queueOutcome(verdict, group, { number: 7, headSha: 'e'.repeat(40) })].flatMap((o) => [
      inertText(o.title),
      o.summary,
    ]);
  },
};

describe('no PR-controlled text is live where slopgate writes it', () => {
  it.each(Object.keys(RENDERERS))('%s', (name) => {
    const outputs = RENDERERS[name]!();
    expect(outputs.join('').length).toBeGreaterThan(0);
    for (const text of outputs) expect(liveMarkup(text), text.slice(0, 2000)).toEqual([]);
    // Still readable: the words are there, just not live.
    expect(outputs.join('\n').replace(/[\u200b\\]/g, '')).toMatch(/acme\/maintainers|LGTM|phish\.example/);
  });

  it('the checker itself sees the raw string as live', () => {
    expect(liveMarkup(HOSTILE).length).toBeGreaterThanOrEqual(9);
  });
});

/**
 * Every call in src/ that sends a body to GitHub (a comment, a review, a check run, the PR description,
 * a commit, a workflow command, the job summary), counted per file. A new call, or a new file with one,
 * fails here until it is added with the renderer that builds its text (and that renderer to RENDERERS).
 */
const POSTING =
  /\.(postComment|createReview|postSuggestions|completeCheckRun|reopenCheckRun|startCheckRun|updatePullRequestBody|pushCommit)\(|rest\.(issues\.(createComment|update(Comment)?)|pulls\.(createReview|update)|checks\.(create|update)|git\.createCommit|repos\.createCommitComment)\(|\bworkflowCommand\(|\bappendSummary\(/g;

const POSTING_SITES: Record<string, { calls: number; renderers: string }> = {
  'src/host/job-check-run.ts': {
    calls: 3,
    renderers: 'check-run-outcomes.ts outcomes from pr-job.ts; queueOutcome of reportOutcome after inertReport from merge-queue-job.ts',
  },
  'src/host/publish-report.ts': { calls: 2, renderers: 'reportOutcome (renderCheckRun, toAnnotations), renderBodySection' },
  'src/host/post-review.ts': { calls: 1, renderers: 'commentBody; reviewBody holds no PR text' },
  'src/host/refine-pr.ts': { calls: 3, renderers: 'refine-messages.ts; pushCommit with refineCommitMessage' },
  'src/platforms/github/command-handler.ts': {
    calls: 1,
    renderers: 'unknownCommandReply, explainFinding, dismissedReply, grantedReply, takeGrant problems, own fixed texts',
  },
  'src/platforms/github/allow-label.ts': { calls: 3, renderers: 'grantedReply, labelRefusedReply, takeGrant problems' },
  'src/platforms/github/runtime.ts': { calls: 3, renderers: 'check-run-outcomes.ts outcomes; startCheckRun has a fixed text' },
  'src/platforms/github/github-review-host.ts': { calls: 5, renderers: 'the adapter: bodies come from the callers above' },
  'src/platforms/github/check-run.ts': {
    calls: 3,
    renderers: 'the adapter: inertText on titles and annotations, breakComments on Markdown',
  },
  'src/platforms/actions/actions-review-host.ts': { calls: 7, renderers: 'jobSummary, annotationCommand, fixed texts' },
  'src/platforms/actions/run-action.ts': {
    calls: 9,
    renderers: 'inertReport, check-run-outcomes.ts outcomes, inertText on errors, on the sandbox failure and on the workflow-trust warning',
  },
  'src/platforms/actions/workflow-commands.ts': { calls: 2, renderers: 'annotationCommand of toAnnotations' },
  'src/platforms/actions/runner-files.ts': { calls: 1, renderers: 'appendSummary of jobSummary' },
  'src/platforms/actions/main.ts': { calls: 1, renderers: 'a crash message of slopgate itself' },
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('every place that posts to GitHub is on the list', () => {
  it('the calls in src/ match POSTING_SITES, file by file', () => {
    const found: Record<string, number> = {};
    for (const file of tsFiles('src')) {
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => !/^\s*(\*|\/\/)/.test(l))
        .join('\n');
      const n = [...code.matchAll(POSTING)].length;
      if (n) found[relative('.', file)] = n;
    }
    const expected = Object.fromEntries(Object.entries(POSTING_SITES).map(([file, s]) => [file, s.calls]));
    expect(found, 'a call that posts to GitHub was added or removed: check its text is escaped, then update POSTING_SITES').toEqual(
      expected,
    );
  });
});
