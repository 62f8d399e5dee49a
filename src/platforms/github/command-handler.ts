import { errorMessage } from '../../core/errors.js';
import type { RepoTarget } from '../../host/check-outcome.js';
import type { GitHubClient } from './check-run.js';
import { HELP_TEXT, type Command } from '../../host/commands.js';
import { lookUpFinding } from './explain-finding.js';
import { checkRunFindings } from './check-run-findings.js';
import { dismissByCommand } from '../../host/dismiss-finding.js';
import { canWrite } from '../../host/permissions.js';
import type { PullRequestFacts, Reaction, RepoRole, ReviewHost } from '../../host/review-host.js';
import { COMMAND_WINDOW, commandKey, isBotSender, isHeadBound, type CommandScope } from '../../host/command-budget.js';
import { GitHubReviewHost } from './github-review-host.js';
import { refineOnGitHub } from './refine-on-github.js';
import type { SlopgateRuntime } from './runtime.js';
import { grantMarker } from '../../host/sanctions.js';
import { grantedReply, sanctionRefusal, takeGrant } from '../../host/give-sanction.js';
import { breakComments, codeSpan } from '../../report/markdown-escape.js';

/** Where a command came from: a PR comment or a check-run button. */
export interface CommandOrigin {
  target: RepoTarget;
  installationId: number;
  number: number;
  sender: string;
  /** GitHub's account type of the sender (`User`, `Bot`, …), when the event says. */
  senderType?: string;
  deliveryId: string;
  /** The comment to react to (absent for buttons). */
  commentId?: number;
}

const NEEDS_WRITE: ReadonlySet<Command['name']> = new Set(['refine', 'allow', 'reset', 'dismiss']);
/** Commands that accept what only a maintainer may: another person than the PR's author must give them. */
const SECOND_PERSON: ReadonlySet<Command['name']> = new Set(['allow', 'dismiss']);

export const REFINER_NOT_CONFIGURED =
  'The refiner is switched off for this slopgate installation, so there is nothing to run. Fix the findings listed in the check run and push; slopgate gates the new head automatically.';

async function react(host: ReviewHost, o: CommandOrigin, content: Reaction): Promise<void> {
  if (!o.commentId) return;
  await host.conversation?.addReaction(o.commentId, content);
}

/**
 * Posts a reply. Every PR-controlled part of `body` (paths, messages, the command itself) was escaped
 * where it was put in (markdown-escape.ts); on top, no HTML comment delimiter goes out, so only
 * `marker`, built by slopgate, can be a hidden marker.
 */
async function reply(host: ReviewHost, o: CommandOrigin, body: string, marker = ''): Promise<void> {
  await host.conversation?.postComment(o.number, breakComments(body) + marker);
}

/** The answer to a comment that is not a slopgate command: what is wrong (its parts escaped where the parser built it) and the help. */
export function unknownCommandReply(command: Extract<Command, { name: 'unknown' }>): string {
  return `${command.problem}.\n\n${HELP_TEXT}`;
}

function refusal(command: Command['name'], user: string, role: RepoRole, authorMayRecheck: boolean): string {
  const who = authorMayRecheck ? 'the PR author or someone with write access' : 'write access to this repository';
  return `@${user}, \`/slopgate ${command}\` needs ${who}; your role here is \`${role.name}\`. Nothing was changed.`;
}

/**
 * The sender's turn within the command budget (command-budget.ts), taken before any API call; null
 * when the sender is a bot or is over the per-user, per-PR bound (only a log line then). Commands and
 * the allow label share it.
 */
export async function admitSender(
  rt: SlopgateRuntime,
  origin: CommandOrigin,
  log: SlopgateRuntime['log'],
  what: 'command' | 'label change',
): Promise<{ scope: CommandScope; attempt: string } | null> {
  if (isBotSender(origin.sender, origin.senderType)) {
    log.info(`${what} from a bot: not answered`);
    return null;
  }
  const scope = { repo: `${origin.target.owner}/${origin.target.repo}`, pr: origin.number, login: origin.sender };
  const attempt = await rt.commands.admit(scope);
  if (attempt === null) {
    log.info(
      { limit: COMMAND_WINDOW.limit, windowMinutes: COMMAND_WINDOW.windowMs / 60_000 },
      `${what} not answered: this user made too many requests on this PR in the window`,
    );
    return null;
  }
  return { scope, attempt };
}

/**
 * Answers one command within the commenter's budget (command-budget.ts), before any API call: a bot is
 * never answered; beyond the per-user, per-PR bound, or for the same command again within the window,
 * there is no reply and no reaction, only a log line. Then {@link runCommand}.
 */
export async function handleCommand(rt: SlopgateRuntime, gh: GitHubClient, origin: CommandOrigin, command: Command): Promise<void> {
  const { target } = origin;
  const log = rt.log.child({ pr: `${target.owner}/${target.repo}#${origin.number}`, sender: origin.sender, command: command.name });
  const turn = await admitSender(rt, origin, log, 'command');
  if (!turn) return;
  const { scope, attempt } = turn;
  const host = new GitHubReviewHost(gh, target, rt.deps.appId);
  const pr = isHeadBound(command) ? await host.pullRequest(origin.number) : undefined;
  if (!(await rt.commands.settle(scope, attempt, commandKey(command, pr?.headSha)))) {
    log.info('command not answered: the same command was answered in the window');
    return;
  }
  await runCommand(rt, gh, host, origin, command, pr);
}

/**
 * Carries out one command. Write-level commands (refine, allow, reset) check the sender's role with
 * the collaborator-permission API; recheck is also open to the PR author. Every comment command gets
 * a reaction: 👀 accepted, 👍 done, 😕 refused or not understood.
 */
async function runCommand(
  rt: SlopgateRuntime,
  gh: GitHubClient,
  host: GitHubReviewHost,
  origin: CommandOrigin,
  command: Command,
  fetched: PullRequestFacts | undefined,
): Promise<void> {
  const { target } = origin;
  switch (command.name) {
    case 'help':
      await react(host, origin, '+1');
      await reply(host, origin, HELP_TEXT);
      return;
    case 'unknown':
      await react(host, origin, 'confused');
      await reply(host, origin, unknownCommandReply(command));
      return;
    case 'explain': {
      const pr = await host.pullRequest(origin.number);
      const found = await lookUpFinding(gh, target, origin.number, pr.headSha, command.findingId, rt.deps.store);
      await react(host, origin, found ? '+1' : 'confused');
      await reply(
        host,
        origin,
        found ??
          `No finding \`${command.findingId}\` in the recent slopgate runs of this PR. Finding ids are shown next to each finding in the check run.`,
      );
      return;
    }
    default:
      break;
  }
  const pr = fetched ?? (await host.pullRequest(origin.number));
  const isAuthor = pr.author?.toLowerCase() === origin.sender.toLowerCase();
  if (NEEDS_WRITE.has(command.name) || !isAuthor) {
    const role = await host.permissionOf(origin.sender);
    if (!canWrite(role)) {
      await react(host, origin, 'confused');
      await reply(host, origin, refusal(command.name, origin.sender, role, command.name === 'recheck'));
      return;
    }
    // Sanctions and dismissals open the gate for what only a maintainer may accept: never the PR's own author's call.
    const selfApproval =
      SECOND_PERSON.has(command.name) && sanctionRefusal(codeSpan(`/slopgate ${command.name}`), origin.sender, role, pr.author, canWrite);
    if (selfApproval) {
      await react(host, origin, 'confused');
      await reply(host, origin, selfApproval);
      return;
    }
  }
  const gate = (trigger: 'recheck' | 'allow') =>
    rt.requestGate(gh, {
      installationId: origin.installationId,
      owner: target.owner,
      repo: target.repo,
      number: origin.number,
      headSha: pr.headSha,
      trigger,
      deliveryId: origin.deliveryId,
      requestedBy: origin.sender,
    });
  switch (command.name) {
    case 'recheck':
      await react(host, origin, 'eyes');
      gate('recheck');
      return;
    case 'refine':
      if (!rt.deps.refinerAvailable) {
        await react(host, origin, 'confused');
        await reply(host, origin, REFINER_NOT_CONFIGURED);
        return;
      }
      await react(host, origin, 'eyes');
      await refineOnGitHub(rt.deps, gh, (g, req) => rt.requestGate(g, req), host, origin);
      return;
    case 'allow': {
      const taken = await takeGrant(host, pr, 'allow', origin.sender, command.path);
      if (!taken.ok) {
        await react(host, origin, 'confused');
        await reply(host, origin, taken.problem);
        return;
      }
      await react(host, origin, '+1');
      await reply(
        host,
        origin,
        grantedReply(taken.grant),
        grantMarker(taken.grant, rt.deps.sanctionKey, { ...target, number: origin.number }),
      );
      gate('allow');
      return;
    }
    case 'dismiss': {
      const outcome = await dismissByCommand(
        rt.deps.store,
        { repo: `${target.owner}/${target.repo}`, pr: origin.number, headSha: pr.headSha, sender: origin.sender, ...command },
        { log: rt.log, hostFindings: (head, id) => checkRunFindings(gh, target, head, id) },
      );
      await react(host, origin, outcome.ok ? '+1' : 'confused');
      await reply(host, origin, outcome.reply);
      // A re-gate of the same head, like a recheck: it neither advances the round nor needs a new trigger.
      if (outcome.ok) gate('recheck');
      return;
    }
    case 'reset': {
      const store = rt.deps.store;
      if (!store) {
        await react(host, origin, 'confused');
        await reply(
          host,
          origin,
          'This slopgate installation keeps no store, so there is no round counter to reset (every run counts as round 1).',
        );
        return;
      }
      try {
        await store.resetRound(`${target.owner}/${target.repo}`, origin.number);
      } catch (err) {
        rt.log.error({ err: errorMessage(err) }, 'round reset failed');
        await react(host, origin, 'confused');
        await reply(host, origin, 'The round counter could not be reset (the store did not answer). Try again later.');
        return;
      }
      await react(host, origin, '+1');
      await reply(host, origin, `Round counter reset by @${origin.sender}: the next run of this PR is round 1.`);
      return;
    }
  }
}
