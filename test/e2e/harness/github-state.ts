/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

export interface UserState {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface RepoState {
  id: number;
  owner: UserState;
  name: string;
  defaultBranch: string;
  fork: boolean;
  private: boolean;
  /** login → permission (admin, maintain, write, triage, read); everyone else is `none`. */
  collaborators: Map<string, string>;
}

export interface PullState {
  id: number;
  number: number;
  repo: RepoState;
  /** The repository the head branch lives in (the base repo, or a fork). */
  headRepo: RepoState;
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  title: string;
  body: string | null;
  user: UserState;
  state: 'open' | 'closed';
  draft: boolean;
  labels: string[];
  mergeable: boolean | null;
  maintainerCanModify: boolean;
}

export interface CheckRunState {
  id: number;
  repo: RepoState;
  name: string;
  headSha: string;
  externalId: string | null;
  status: string;
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** All annotations sent so far (updates append, like GitHub). */
  annotations: Json[];
  actions: Json[];
  /** Every create/update body, in order. */
  history: Json[];
}

export interface ReviewCommentState {
  id: number;
  repo: RepoState;
  pull: number;
  reviewId: number;
  user: UserState;
  path: string;
  line: number | null;
  side: string;
  startLine: number | null;
  body: string;
  commitId: string;
  inReplyTo: number | null;
  viaApp: number | null;
}

export interface ReviewState {
  id: number;
  repo: RepoState;
  pull: number;
  user: UserState;
  body: string | null;
  event: string;
  commitId: string;
  commentIds: number[];
}

export interface IssueCommentState {
  id: number;
  repo: RepoState;
  issue: number;
  user: UserState;
  body: string;
  viaApp: number | null;
}

export interface ReactionState {
  id: number;
  commentId: number;
  content: string;
  user: UserState;
}

const ISO = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** In-memory GitHub: repositories, pull requests and everything the App writes to them. */
export class GitHubState {
  private nextId = 1000;
  readonly repos = new Map<string, RepoState>();
  readonly pulls: PullState[] = [];
  readonly checkRuns: CheckRunState[] = [];
  readonly reviews: ReviewState[] = [];
  readonly reviewComments: ReviewCommentState[] = [];
  readonly issueComments: IssueCommentState[] = [];
  readonly reactions: ReactionState[] = [];
  readonly graphql: { query: string; variables: Json }[] = [];
  readonly users = new Map<string, UserState>();

  constructor(
    /** Where the stand-in listens, e.g. `http://127.0.0.1:4321`. */
    public baseUrl: string,
    readonly appId: number,
    readonly appSlug = 'slopgate',
  ) {}

  id(): number {
    return this.nextId++;
  }

  user(login: string, type: UserState['type'] = 'User'): UserState {
    let u = this.users.get(login);
    if (!u) {
      u = { login, id: this.id(), type };
      this.users.set(login, u);
    }
    return u;
  }

  /** The App's bot account (what its installation token writes as). */
  get bot(): UserState {
    return this.user(`${this.appSlug}[bot]`, 'Bot');
  }

  addRepo(owner: string, name: string, opts: { defaultBranch?: string; fork?: boolean; ownerType?: UserState['type'] } = {}): RepoState {
    const repo: RepoState = {
      id: this.id(),
      owner: this.user(owner, opts.ownerType ?? 'Organization'),
      name,
      defaultBranch: opts.defaultBranch ?? 'main',
      fork: opts.fork ?? false,
      private: false,
      collaborators: new Map(),
    };
    this.repos.set(`${owner}/${name}`.toLowerCase(), repo);
    return repo;
  }

  repo(owner: string, name: string): RepoState | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  pull(repo: RepoState, number: number): PullState | undefined {
    return this.pulls.find((p) => p.repo === repo && p.number === number);
  }

  nextIssueNumber(repo: RepoState): number {
    return Math.max(0, ...this.pulls.filter((p) => p.repo === repo).map((p) => p.number)) + 1;
  }

  // ---- JSON shapes (the fields Octokit users read, plus the usual ids and urls) ----

  userJson(u: UserState): Json {
    const html = `${this.baseUrl}/${u.login}`;
    return {
      login: u.login,
      id: u.id,
      node_id: nodeId('U', u.id),
      avatar_url: `${this.baseUrl}/avatars/u/${u.id}`,
      gravatar_id: '',
      url: `${this.baseUrl}/api/v3/users/${u.login}`,
      html_url: html,
      type: u.type,
      site_admin: false,
    };
  }

  appJson(): Json {
    return {
      id: this.appId,
      slug: this.appSlug,
      node_id: nodeId('A', this.appId),
      name: this.appSlug,
      owner: this.userJson(this.user('slopgate-dev')),
      description: '',
      external_url: `${this.baseUrl}/apps/${this.appSlug}`,
      html_url: `${this.baseUrl}/apps/${this.appSlug}`,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      permissions: { checks: 'write', contents: 'read', pull_requests: 'write', issues: 'write', metadata: 'read' },
      events: ['check_run', 'check_suite', 'issue_comment', 'pull_request'],
    };
  }

  repoUrls(r: RepoState) {
    const full = `${r.owner.login}/${r.name}`;
    return { full, api: `${this.baseUrl}/api/v3/repos/${full}`, html: `${this.baseUrl}/${full}`, clone: `${this.baseUrl}/${full}.git` };
  }

  repoJson(r: RepoState): Json {
    const u = this.repoUrls(r);
    return {
      id: r.id,
      node_id: nodeId('R', r.id),
      name: r.name,
      full_name: u.full,
      owner: this.userJson(r.owner),
      private: r.private,
      html_url: u.html,
      description: null,
      fork: r.fork,
      url: u.api,
      clone_url: u.clone,
      git_url: u.clone.replace(/^https?/, 'git'),
      ssh_url: `git@127.0.0.1:${u.full}.git`,
      svn_url: u.html,
      default_branch: r.defaultBranch,
      visibility: 'public',
      archived: false,
      disabled: false,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      pushed_at: ISO(),
      size: 1,
      stargazers_count: 0,
      watchers_count: 0,
      forks_count: 0,
      open_issues_count: 0,
      language: null,
      topics: [],
      permissions: { admin: false, maintain: false, push: false, triage: false, pull: true },
    };
  }

  labelJson(name: string): Json {
    const id = Array.from(name, (c) => c.charCodeAt(0)).reduce((h, code) => (h * 31 + code) >>> 0, 7);
    return {
      id,
      node_id: nodeId('L', id),
      url: `${this.baseUrl}/api/v3/labels/${encodeURIComponent(name)}`,
      name,
      color: 'ededed',
      default: false,
      description: null,
    };
  }

  pullJson(p: PullState): Json {
    const u = this.repoUrls(p.repo);
    return {
      id: p.id,
      node_id: nodeId('PR', p.id),
      number: p.number,
      url: `${u.api}/pulls/${p.number}`,
      html_url: `${u.html}/pull/${p.number}`,
      diff_url: `${u.html}/pull/${p.number}.diff`,
      patch_url: `${u.html}/pull/${p.number}.patch`,
      issue_url: `${u.api}/issues/${p.number}`,
      state: p.state,
      locked: false,
      title: p.title,
      body: p.body,
      user: this.userJson(p.user),
      labels: p.labels.map((l) => this.labelJson(l)),
      draft: p.draft,
      merged: false,
      mergeable: p.mergeable,
      mergeable_state: p.mergeable ? 'clean' : 'unknown',
      maintainer_can_modify: p.maintainerCanModify,
      author_association: 'CONTRIBUTOR',
      created_at: '2026-01-02T00:00:00Z',
      updated_at: ISO(),
      closed_at: null,
      merged_at: null,
      merge_commit_sha: null,
      head: {
        label: `${p.headRepo.owner.login}:${p.headRef}`,
        ref: p.headRef,
        sha: p.headSha,
        user: this.userJson(p.headRepo.owner),
        repo: this.repoJson(p.headRepo),
      },
      base: {
        label: `${p.repo.owner.login}:${p.baseRef}`,
        ref: p.baseRef,
        sha: p.baseSha,
        user: this.userJson(p.repo.owner),
        repo: this.repoJson(p.repo),
      },
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
      comments: 0,
      review_comments: 0,
    };
  }

  checkRunJson(c: CheckRunState): Json {
    const u = this.repoUrls(c.repo);
    const prs = this.pulls.filter((p) => p.repo === c.repo && p.headSha === c.headSha && p.headRepo === p.repo);
    return {
      id: c.id,
      node_id: nodeId('CR', c.id),
      head_sha: c.headSha,
      external_id: c.externalId,
      url: `${u.api}/check-runs/${c.id}`,
      html_url: `${u.html}/runs/${c.id}`,
      details_url: `${u.html}/runs/${c.id}`,
      status: c.status,
      conclusion: c.conclusion,
      started_at: c.startedAt,
      completed_at: c.completedAt,
      name: c.name,
      output: { ...c.output, annotations_count: c.annotations.length, annotations_url: `${u.api}/check-runs/${c.id}/annotations` },
      check_suite: { id: c.id + 1 },
      app: this.appJson(),
      pull_requests: prs.map((p) => ({
        id: p.id,
        number: p.number,
        url: `${u.api}/pulls/${p.number}`,
        head: { ref: p.headRef, sha: p.headSha, repo: { id: p.repo.id, url: u.api, name: p.repo.name } },
        base: { ref: p.baseRef, sha: p.baseSha, repo: { id: p.repo.id, url: u.api, name: p.repo.name } },
      })),
    };
  }

  reviewCommentJson(c: ReviewCommentState): Json {
    const u = this.repoUrls(c.repo);
    return {
      id: c.id,
      node_id: nodeId('PRRC', c.id),
      url: `${u.api}/pulls/comments/${c.id}`,
      html_url: `${u.html}/pull/${c.pull}#discussion_r${c.id}`,
      pull_request_url: `${u.api}/pulls/${c.pull}`,
      pull_request_review_id: c.reviewId,
      diff_hunk: '@@',
      path: c.path,
      position: c.line,
      original_position: c.line,
      commit_id: c.commitId,
      original_commit_id: c.commitId,
      in_reply_to_id: c.inReplyTo ?? undefined,
      user: this.userJson(c.user),
      body: c.body,
      created_at: ISO(),
      updated_at: ISO(),
      author_association: 'NONE',
      line: c.line,
      original_line: c.line,
      side: c.side,
      start_line: c.startLine,
      original_start_line: c.startLine,
      start_side: c.startLine ? c.side : null,
      subject_type: 'line',
      _links: {
        self: { href: `${u.api}/pulls/comments/${c.id}` },
        html: { href: `${u.html}/pull/${c.pull}#discussion_r${c.id}` },
        pull_request: { href: `${u.api}/pulls/${c.pull}` },
      },
      ...(c.viaApp ? { performed_via_github_app: this.appJson() } : {}),
    };
  }

  reviewJson(r: ReviewState): Json {
    const u = this.repoUrls(r.repo);
    return {
      id: r.id,
      node_id: nodeId('PRR', r.id),
      user: this.userJson(r.user),
      body: r.body ?? '',
      state:
        r.event === 'APPROVE'
          ? 'APPROVED'
          : r.event === 'REQUEST_CHANGES'
            ? 'CHANGES_REQUESTED'
            : r.event === 'COMMENT'
              ? 'COMMENTED'
              : 'PENDING',
      html_url: `${u.html}/pull/${r.pull}#pullrequestreview-${r.id}`,
      pull_request_url: `${u.api}/pulls/${r.pull}`,
      commit_id: r.commitId,
      submitted_at: ISO(),
      author_association: 'NONE',
      _links: { html: { href: `${u.html}/pull/${r.pull}#pullrequestreview-${r.id}` }, pull_request: { href: `${u.api}/pulls/${r.pull}` } },
    };
  }

  issueCommentJson(c: IssueCommentState): Json {
    const u = this.repoUrls(c.repo);
    return {
      id: c.id,
      node_id: nodeId('IC', c.id),
      url: `${u.api}/issues/comments/${c.id}`,
      html_url: `${u.html}/pull/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${u.api}/issues/${c.issue}`,
      body: c.body,
      user: this.userJson(c.user),
      created_at: ISO(),
      updated_at: ISO(),
      author_association: 'NONE',
      performed_via_github_app: c.viaApp ? this.appJson() : null,
    };
  }
}

export function nodeId(prefix: string, id: number): string {
  return `${prefix}_kw${Buffer.from(String(id)).toString('base64url')}`;
}
