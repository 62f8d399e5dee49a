import type { CommandSite } from './command-site.js';
import { makefileSites, packageJsonSites, preCommitSites, toxSites } from './project-files.js';
import { isWorkflowPath, workflowSites } from './workflow-sites.js';

/** The files {@link readCiSites} reads besides `.github/workflows/*.yml`. */
export const CI_FILES = [
  '.pre-commit-config.yaml',
  '.pre-commit-config.yml',
  'package.json',
  'Makefile',
  'makefile',
  'GNUmakefile',
  'tox.ini',
];

/**
 * Every command site of a base tree's CI files (`files` maps paths to their text): the workflows
 * first, by path, then the other files in the map's order; and whether pre-commit runs as
 * pre-commit.ci.
 */
export function readCiSites(files: ReadonlyMap<string, string>, baseBranch?: string): { sites: CommandSite[]; preCommitService: boolean } {
  const sites: CommandSite[] = [];
  let preCommitService = false;
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (isWorkflowPath(path)) sites.push(...workflowSites(path, text, baseBranch));
  }
  for (const [path, text] of files) {
    if (path === '.pre-commit-config.yaml' || path === '.pre-commit-config.yml') {
      const pc = preCommitSites(path, text);
      sites.push(...pc.sites);
      preCommitService ||= pc.ciService;
    } else if (path === 'package.json') sites.push(...packageJsonSites(text));
    else if (path === 'Makefile' || path === 'makefile' || path === 'GNUmakefile') sites.push(...makefileSites(path, text));
    else if (path === 'tox.ini') sites.push(...toxSites(text));
  }
  return { sites, preCommitService };
}

/**
 * Units reached from a workflow through calls (`tox:*` reaches every tox environment), each with
 * why its failure does not fail CI when it is reached only through lenient lines (undefined: it does).
 * pre-commit is reached as well when it runs as pre-commit.ci.
 */
export function ciUnits(sites: readonly CommandSite[], preCommitService: boolean): Map<string, string | undefined> {
  const reached = new Map<string, string | undefined>([['workflow', undefined]]);
  if (preCommitService) reached.set('pre-commit', undefined);
  const toxEnvs = [...new Set(sites.filter((s) => s.unit.startsWith('tox:')).map((s) => s.unit))];
  // strict reach first, so that a unit also reached through a lenient line keeps the strict one
  for (const strict of [true, false]) {
    let grew = true;
    while (grew) {
      grew = false;
      for (const s of sites) {
        if (!reached.has(s.unit) || (strict && (s.lenient !== undefined || reached.get(s.unit) !== undefined))) continue;
        const why = s.lenient ?? reached.get(s.unit);
        for (const call of s.calls) {
          // a tox env without its own commands inherits [testenv]'s
          const targets = call === 'tox:*' ? toxEnvs : call.startsWith('tox:') && !toxEnvs.includes(call) ? ['tox:'] : [call];
          for (const t of targets) {
            if (reached.has(t)) continue;
            reached.set(t, why);
            grew = true;
          }
        }
      }
    }
  }
  return reached;
}
