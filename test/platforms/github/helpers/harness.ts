import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { pino } from 'pino';
import { expect } from 'vitest';
import { Probot, ProbotOctokit } from 'probot';
import { createSlopgateApp, type SlopgateApp, type SlopgateAppOptions } from '../../../../src/platforms/github/app.js';
import { deriveSanctionKey } from '../../../../src/host/sanctions.js';
import { APP_ID, type Json } from './payloads.js';
import { FakeGitHub } from './fake-github.js';
import type { FakeRemote } from '../../../helpers/fake-remote.js';

let privateKey: string | undefined;

/** A throwaway RSA key for the test App (Probot signs its JWT with it). */
export function testPrivateKey(): string {
  privateKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }).privateKey;
  return privateKey;
}

export interface Harness {
  probot: Probot;
  app: SlopgateApp;
  github: FakeGitHub;
  workDir: string;
  /** Delivers a webhook like GitHub does (the id is X-GitHub-Delivery). */
  receive(name: string, payload: Json, id?: string): Promise<void>;
  /** Waits until every background task and queued job is done. */
  idle(): Promise<void>;
  close(): void;
}

/** The key the harness's App signs `/slopgate allow` markers with (tests compute expected markers with it). */
export const SANCTION_KEY = deriveSanctionKey('test-app-private-key');

/** Probot with the slopgate app loaded, retries and throttling off, talking to a strict fake GitHub. */
export async function startHarness(remote: FakeRemote | null, opts: Partial<SlopgateAppOptions> = {}): Promise<Harness> {
  nock.disableNetConnect();
  const workDir = mkdtempSync(join(tmpdir(), 'slopgate-app-'));
  const probot = new Probot({
    appId: APP_ID,
    privateKey: testPrivateKey(),
    log: pino({ level: 'silent' }),
    Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
  });
  const app = createSlopgateApp({
    appId: APP_ID,
    workDir,
    remoteUrl: () => remote?.url ?? 'file:///nonexistent',
    log: pino({ level: 'silent' }),
    sanctionKey: SANCTION_KEY,
    ...opts,
  });
  await probot.load(app.appFn);
  const github = new FakeGitHub();
  return {
    probot,
    app,
    github,
    workDir,
    receive: (name, payload, id) => probot.receive({ id: id ?? randomUUID(), name: name as never, payload: payload as never }),
    idle: () => app.runtime().idle(),
    close: () => {
      github.dispose();
      nock.cleanAll();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * Closes a test's harness and fails the test when GitHub saw a request nobody expected or an
 * expected request never came (nock strict mode for the whole file).
 */
export function closeStrict(h: Harness | undefined): void {
  if (!h) return;
  const pending = nock.pendingMocks();
  const unmatched = [...h.github.unmatched];
  h.close();
  expect(unmatched, 'requests nobody expected').toEqual([]);
  expect(pending, 'expected requests that never came').toEqual([]);
}
