import { parse as parseYaml } from 'yaml';
import { isRecord } from '../../core/is-record.js';
import { readIni } from '../manifests/ini-read.js';
import { sitesOfScript, type CommandSite } from './command-site.js';

/** The command sites of package.json's scripts (unit `npm:<name>`). */
export function packageJsonSites(text: string): CommandSite[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isRecord(doc) || !isRecord(doc.scripts)) return [];
  const out: CommandSite[] = [];
  for (const [name, script] of Object.entries(doc.scripts)) {
    if (typeof script !== 'string') continue;
    out.push(...sitesOfScript(`npm:${name}`, 'package.json', script));
  }
  return out;
}

/**
 * The sites of a Makefile (`\`-continued lines joined): each recipe line in the unit of every target
 * of its rule (`make:<target>`; a leading `-` makes it lenient), each rule line calling its
 * prerequisites, and `make:` (a bare `make`) calling the first target.
 */
export function makefileSites(source: string, text: string): CommandSite[] {
  const out: CommandSite[] = [];
  let targets: string[] = [];
  let first: string | null = null;
  const lines = text.replace(/\\\r?\n\s*/g, ' ').split(/\r?\n/);
  for (const raw of lines) {
    if (raw.startsWith('\t')) {
      const prefix = /^[@+-]*/.exec(raw.trim())?.[0] ?? '';
      const line = raw.trim().slice(prefix.length);
      if (!line || line.startsWith('#')) continue;
      const ignored = prefix.includes('-') ? 'the Makefile line starts with `-`, so make ignores its failure' : undefined;
      for (const t of targets) out.push(...sitesOfScript(`make:${t}`, source, line, ignored));
      continue;
    }
    const rule = /^([A-Za-z0-9_./%-]+(?:[ \t]+[A-Za-z0-9_./%-]+)*)[ \t]*:(?![=:])(.*)$/.exec(raw);
    if (rule) {
      targets = rule[1]!.split(/\s+/).filter((t) => !t.startsWith('.'));
      first ??= targets[0] ?? null;
      const prereqs = rule[2]!
        .replace(/[;#].*$/, '')
        .split(/\s+/)
        .filter(Boolean);
      for (const t of targets)
        out.push({ kind: 'rule', unit: `make:${t}`, source, line: raw.trim(), script: '', calls: prereqs.map((p) => `make:${p}`) });
    } else if (raw.trim() && !/^\s/.test(raw)) targets = [];
  }
  if (first !== null) out.push({ kind: 'rule', unit: 'make:', source, line: '(default target)', script: '', calls: [`make:${first}`] });
  return out;
}

/** The sites of tox.ini's `commands`, per environment (`tox:<env>`; `[testenv]` itself is `tox:`). */
export function toxSites(text: string): CommandSite[] {
  const out: CommandSite[] = [];
  for (const [section, keys] of readIni(text)) {
    const m = /^testenv(?::(.+))?$/.exec(section);
    const commands = keys.get('commands');
    if (!m || !commands) continue;
    const env = m[1]?.trim() ?? '';
    out.push(...sitesOfScript(`tox:${env}`, 'tox.ini', commands));
  }
  return out;
}

/** The hooks of a pre-commit config (unit `pre-commit`), and whether it declares pre-commit.ci (a top-level `ci:`). */
export function preCommitSites(source: string, text: string): { sites: CommandSite[]; ciService: boolean } {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    return { sites: [], ciService: false };
  }
  if (!isRecord(doc) || !Array.isArray(doc.repos)) return { sites: [], ciService: false };
  const sites: CommandSite[] = [];
  for (const repo of doc.repos) {
    if (!isRecord(repo) || !Array.isArray(repo.hooks)) continue;
    const url = typeof repo.repo === 'string' ? repo.repo.toLowerCase() : '';
    for (const hook of repo.hooks) {
      if (!isRecord(hook) || typeof hook.id !== 'string') continue;
      const args = Array.isArray(hook.args) ? hook.args.filter((a): a is string => typeof a === 'string') : undefined;
      const entry = typeof hook.entry === 'string' ? hook.entry : undefined;
      sites.push({
        kind: 'hook',
        unit: 'pre-commit',
        source,
        line: `hook ${hook.id}`,
        script: entry ?? '',
        calls: [],
        hook: { repo: url, id: hook.id, ...(entry !== undefined ? { entry } : {}), ...(args ? { args } : {}) },
      });
    }
  }
  return { sites, ciService: 'ci' in doc };
}
