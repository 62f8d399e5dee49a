/**
 * Which host runs slopgate: the CLI (`slopgate check`), the GitHub Action or the GitHub App. What a report
 * tells the reader to do next (a command, a flag, a workflow input, a label, a `/slopgate` comment) names
 * only what this host offers: `/slopgate` commands exist in the App alone, rounds are kept by the App alone.
 */
export type HostKind = 'cli' | 'action' | 'app';
