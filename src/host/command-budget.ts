import { errorMessage } from '../core/errors.js';
import { evictOldest } from '../core/evict-oldest.js';
import type { Logger } from '../core/trace.js';
import type { CommandScope, CommandWindow } from '../store/command-attempts.js';
import type { Store } from '../store/store.js';
import type { Command } from './commands.js';

/**
 * What one commenter can make slopgate spend. Every command costs API calls of the installation's
 * shared rate limit (a permission check, a reaction, a reply, often a PR lookup), so: at most
 * {@link COMMAND_WINDOW}.limit commands of one user on one PR are answered per window (help, unknown
 * verbs and refused commands count; beyond that there is no reply and no reaction, only a log line);
 * the same command again in the window is answered once; bots are never answered.
 */
export const COMMAND_WINDOW: CommandWindow = { limit: 5, windowMs: 10 * 60 * 1000 };

export type { CommandScope };

/** The counter: in the store when there is one (every App process and worker agrees), in memory otherwise. */
export interface CommandLedger {
  /** Counts one attempt; null when the scope has used up its window (nothing is recorded then). */
  admit(scope: CommandScope): Promise<string | null>;
  /** Marks the attempt answered under `key`; false when the same key was answered in the window (a repeat). */
  settle(scope: CommandScope, id: string, key: string): Promise<boolean>;
}

/** True for a bot account: GitHub's user type, or an App's `name[bot]` login. */
export function isBotSender(login: string, type?: string | null): boolean {
  return type === 'Bot' || /\[bot\]$/i.test(login);
}

/** Commands whose meaning depends on the PR's head: the same one after a push is a new request. */
const HEAD_BOUND: ReadonlySet<Command['name']> = new Set(['recheck', 'refine', 'allow']);

export function isHeadBound(command: Command): boolean {
  return HEAD_BOUND.has(command.name);
}

/** What makes two commands "the same": the verb and its arguments (and the head, for head-bound ones). */
export function commandKey(command: Command, headSha?: string): string {
  const parts: string[] = [command.name];
  switch (command.name) {
    case 'allow':
      parts.push(command.path);
      break;
    case 'explain':
      parts.push(command.findingId.toLowerCase());
      break;
    case 'dismiss':
      parts.push(command.findingId, command.reason);
      break;
    case 'unknown':
      parts.push(command.text.replace(/\s+/g, ' ').trim().toLowerCase());
      break;
    default:
      break;
  }
  if (headSha && isHeadBound(command)) parts.push(`@${headSha}`);
  return parts.join(' ').slice(0, 1000);
}

interface MemoryAttempt {
  id: string;
  at: number;
  key?: string;
}

/** The ledger of one process (no store). Bounded: the least recently used scopes are forgotten first. */
export class MemoryCommandLedger implements CommandLedger {
  private readonly scopes = new Map<string, MemoryAttempt[]>();
  private next = 0;

  constructor(
    private readonly window: CommandWindow = COMMAND_WINDOW,
    private readonly now: () => number = Date.now,
    private readonly maxScopes = 10_000,
  ) {}

  private attempts(scope: CommandScope): MemoryAttempt[] {
    const k = `${scope.repo}#${scope.pr}@${scope.login.toLowerCase()}`;
    const since = this.now() - this.window.windowMs;
    const live = (this.scopes.get(k) ?? []).filter((a) => a.at > since);
    this.scopes.delete(k);
    this.scopes.set(k, live);
    evictOldest(this.scopes, this.maxScopes);
    return live;
  }

  admit(scope: CommandScope): Promise<string | null> {
    const live = this.attempts(scope);
    if (live.length >= this.window.limit) return Promise.resolve(null);
    const id = String(++this.next);
    live.push({ id, at: this.now() });
    return Promise.resolve(id);
  }

  settle(scope: CommandScope, id: string, key: string): Promise<boolean> {
    const live = this.attempts(scope);
    if (live.some((a) => a.id !== id && a.key === key)) return Promise.resolve(false);
    const mine = live.find((a) => a.id === id);
    if (mine) mine.key = key;
    return Promise.resolve(true);
  }
}

/**
 * The store's ledger, shared by every process. When the store does not answer, this process's own
 * memory counts instead (logged): the bound then holds per process, never not at all.
 */
export class StoreCommandLedger implements CommandLedger {
  private readonly fallback: MemoryCommandLedger;
  /** Attempts admitted by the fallback (their ids are not the store's). */
  private readonly local = new Set<string>();

  constructor(
    private readonly store: Pick<Store, 'admitCommand' | 'settleCommand'>,
    private readonly log: Logger,
    private readonly window: CommandWindow = COMMAND_WINDOW,
    private readonly now: () => number = Date.now,
  ) {
    this.fallback = new MemoryCommandLedger(window, now);
  }

  async admit(scope: CommandScope): Promise<string | null> {
    try {
      return await this.store.admitCommand(scope, this.window, new Date(this.now()));
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'command bound: the store did not answer; counting in this process');
      const id = await this.fallback.admit(scope);
      if (id === null) return null;
      this.local.add(`m${id}`);
      return `m${id}`;
    }
  }

  async settle(scope: CommandScope, id: string, key: string): Promise<boolean> {
    if (this.local.delete(id)) return this.fallback.settle(scope, id.slice(1), key);
    try {
      return await this.store.settleCommand(scope, id, key, this.window, new Date(this.now()));
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'command bound: the store did not answer; this command is answered');
      return true;
    }
  }
}
