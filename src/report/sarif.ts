import type { Log, Notification, ReportingDescriptor, Result, Run } from 'sarif';
import type { Finding, Severity } from '../core/finding.js';
import { guardsSkippedForCause, testsNotRunReason } from '../core/phases-not-run.js';
import type { Report } from '../core/report.js';
import { categoryHelp } from './category-help.js';
import { dismissedText } from './dismissed-text.js';
import { repoRelativePath, SEVERITY_ORDER } from './format-helpers.js';
import { readTests } from './sections.js';
import { qaSummaryLine } from './qa-section.js';
import { coverageNotifications } from './coverage-section.js';

/**
 * SARIF 2.1.0 for GitHub code scanning: one run, one rule per guard + category, one result per finding.
 *
 * Code scanning rejects a result without a location ("expected at least one location"), so a finding
 * without a path (it concerns the whole change) is placed at line 1 of the first changed file that
 * still exists at head, and its message says so. When there is no such file it is reported as a
 * tool notification of the invocation instead of a result.
 */

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
export const TOOL_INFORMATION_URI = 'https://github.com/slopgate/slopgate';
/** Code scanning accepts at most 25,000 results per run. */
export const MAX_SARIF_RESULTS = 25_000;
/** Key of the finding id in `partialFingerprints` (versioned so the scheme can change later). */
export const FINGERPRINT_KEY = 'slopgateFindingId/v1';

type Level = 'error' | 'warning' | 'note';

export const SARIF_LEVEL: Record<Severity, Level> = { fail: 'error', risk: 'warning', nit: 'note' };

function levelOf(severity: Severity): Level {
  return SARIF_LEVEL[severity];
}

/** Rule id `G7/toplevel-dropped`: guard and category, restricted to URI-safe characters. */
export function ruleIdOf(f: Pick<Finding, 'guard' | 'category'>): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_') || 'unknown';
  return `${safe(f.guard)}/${safe(f.category)}`;
}

/** A repository-relative path as a SARIF URI reference (each segment percent-encoded). */
export function sarifUri(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function rulesOf(report: Report): { rules: ReportingDescriptor[]; index: Map<string, number> } {
  const rules: ReportingDescriptor[] = [];
  const index = new Map<string, number>();
  const levels: Level[] = [];
  const names = new Map(report.guards.map((g) => [g.id, g.name]));
  for (const f of report.findings) {
    const id = ruleIdOf(f);
    const existing = index.get(id);
    if (existing !== undefined) {
      // The most severe finding of a rule sets its level.
      const rank = (l: Level) => SEVERITY_ORDER.findIndex((s) => SARIF_LEVEL[s] === l);
      const level = levelOf(f.severity);
      if (rank(level) < rank(levels[existing]!)) {
        levels[existing] = level;
        rules[existing]!.defaultConfiguration = { level };
      }
      continue;
    }
    const guardName = names.get(f.guard) ?? f.guard;
    const help = categoryHelp(f.category);
    index.set(id, rules.length);
    levels.push(levelOf(f.severity));
    rules.push({
      id,
      name: id.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : '')),
      shortDescription: { text: `${guardName}: ${f.category}` },
      fullDescription: { text: help },
      help: {
        text: `${help} Each alert says what was found and what to do about it.`,
        markdown: `**${f.category}** (${guardName}): ${help}\n\nEach alert says what was found and what to do about it.`,
      },
      defaultConfiguration: { level: levelOf(f.severity) },
      properties: { tags: ['slopgate', f.category] },
    });
  }
  return { rules, index };
}

/** The changed file pathless findings are pinned to: the first one that still exists at head. */
function anchorFile(report: Report): string | undefined {
  for (const file of report.files) {
    if (file.status === 'deleted') continue;
    const p = repoRelativePath(file.path);
    if (p) return p;
  }
  return undefined;
}

function resultOf(f: Finding, ruleIndex: number | undefined, path: string, pinned: boolean): Result {
  const startLine = pinned || !f.line ? 1 : f.line;
  const endLine = !pinned && f.line && f.endLine && f.endLine >= f.line ? f.endLine : startLine;
  const prefix = pinned ? 'Applies to the whole change (shown on its first file). ' : '';
  const result: Result = {
    ruleId: ruleIdOf(f),
    ...(ruleIndex !== undefined ? { ruleIndex } : {}),
    level: levelOf(f.severity),
    message: { text: `${prefix}${f.message}${f.remediation ? `\nWhat to do: ${f.remediation}` : ''}` },
    locations: [
      { physicalLocation: { artifactLocation: { uri: sarifUri(path), uriBaseId: '%SRCROOT%' }, region: { startLine, endLine } } },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: f.id },
    properties: {
      guard: f.guard,
      category: f.category,
      severity: f.severity,
      confirmedBy: f.confirmedBy,
      ...(f.commit ? { commit: f.commit } : {}),
    },
  };
  if (f.dismissed) {
    // SARIF's own way to say "reported but accepted": code scanning shows such alerts as dismissed.
    result.suppressions = [
      {
        kind: f.dismissed.source === 'inline' ? 'inSource' : 'external',
        status: 'accepted',
        justification: dismissedText(f.dismissed),
        properties: { by: f.dismissed.by, at: f.dismissed.at, source: f.dismissed.source },
      },
    ];
  }
  const s = f.suggestion;
  const suggestionPath = s ? repoRelativePath(s.path) : undefined;
  if (s && suggestionPath && typeof s.replacement === 'string' && s.startLine >= 1 && s.endLine >= s.startLine) {
    result.fixes = [
      {
        description: { text: `Replace lines ${s.startLine}-${s.endLine}` },
        artifactChanges: [
          {
            artifactLocation: { uri: sarifUri(suggestionPath), uriBaseId: '%SRCROOT%' },
            replacements: [{ deletedRegion: { startLine: s.startLine, endLine: s.endLine }, insertedContent: { text: s.replacement } }],
          },
        ],
      },
    ];
  }
  return result;
}

/**
 * The phases that did not run or compare anything (the tests, the guards skipped for a cause, the Q&A
 * phase), as notifications of the invocation: code scanning shows them on the tool's run, so a SARIF
 * upload never reads as fully checked when it was not. Their wording is the text and Markdown reports'
 * own: the tests line (or the decision's `tests not run: …` when G8 never ran), each skipped guard's row
 * of the guard table, the Q&A line. A guard with no changed file in scope did look and is left out.
 */
function phaseNotifications(report: Report): Notification[] {
  const out: Notification[] = [];
  const tests = readTests(report);
  const testsNotRun = tests ? undefined : testsNotRunReason(report.guards, report.sections.tests);
  if (tests && !tests.compared) {
    out.push({ level: 'warning', message: { text: `Tests: ${tests.headline}` }, descriptor: { id: 'slopgate/tests' } });
  } else if (testsNotRun !== undefined) {
    const text = `Tests: tests not run: ${testsNotRun.replace(/^tests not run:\s*/i, '')}`;
    out.push({ level: 'warning', message: { text }, descriptor: { id: 'slopgate/tests' } });
  }
  // G8's skip, when it has one, is the tests notification above.
  const testsSaid = out.length > 0;
  for (const g of guardsSkippedForCause(report.guards)) {
    if (g.id === 'G8' && testsSaid) continue;
    out.push({ level: 'warning', message: { text: `${g.id} ${g.name}: skipped: ${g.reason}` }, descriptor: { id: `slopgate/${g.id}` } });
  }
  const qa = qaSummaryLine(report.sections.qa);
  if (qa && report.sections.qa?.status !== 'ran') {
    const level = report.sections.qa?.status === 'crashed' ? 'error' : 'warning';
    out.push({ level, message: { text: qa }, descriptor: { id: 'slopgate/qa' } });
  }
  return out;
}

export function toSarif(report: Report): Log {
  const { rules, index } = rulesOf(report);
  const anchor = anchorFile(report);
  const results: Result[] = [];
  const notifications: Notification[] = [];
  for (const f of report.findings) {
    const own = repoRelativePath(f.path);
    const path = own ?? anchor;
    if (!path) {
      notifications.push({
        level: levelOf(f.severity),
        message: { text: `${f.message}${f.remediation ? `\nWhat to do: ${f.remediation}` : ''}` },
        descriptor: { id: ruleIdOf(f) },
      });
      continue;
    }
    if (results.length >= MAX_SARIF_RESULTS) continue;
    results.push(resultOf(f, index.get(ruleIdOf(f)), path, !own));
  }
  const dropped = report.findings.length - results.length - notifications.length;
  notifications.push(...phaseNotifications(report), ...coverageNotifications(report.coverage));
  if (dropped > 0) {
    notifications.push({
      level: 'warning',
      message: { text: `${dropped} more findings were left out: code scanning accepts at most ${MAX_SARIF_RESULTS} results per run.` },
    });
  }
  const run: Run = {
    tool: {
      driver: {
        name: 'slopgate',
        version: report.tool.version,
        semanticVersion: report.tool.version,
        informationUri: TOOL_INFORMATION_URI,
        rules,
      },
    },
    invocations: [
      {
        executionSuccessful: !report.guards.some((g) => g.status === 'error'),
        ...(notifications.length ? { toolExecutionNotifications: notifications } : {}),
      },
    ],
    results,
    columnKind: 'utf16CodeUnits',
    properties: {
      decision: report.decision.outcome,
      conclusion: report.decision.conclusion,
      reason: report.decision.reason,
      ...(report.decision.notVerified?.length ? { notVerified: report.decision.notVerified } : {}),
      ...(report.coverage ? { coverage: report.coverage } : {}),
      base: report.base.sha,
      head: report.head.sha,
      ...(report.configSource ? { config: report.configSource } : {}),
    },
  };
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

export function renderSarif(report: Report): string {
  return JSON.stringify(toSarif(report), null, 2) + '\n';
}
