import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';

/** A fresh RSA key pair for one test App (PKCS#1 PEM, the format GitHub hands out). */
export function generateAppKey(): { privateKey: string; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKey, publicKey: createPublicKey(publicKey) };
}

export type JwtCheck = { ok: true; appId: string } | { ok: false; problem: string };

function decodePart(part: string): Record<string, unknown> | null {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * Checks an App JWT the way GitHub does: RS256, signed with the App's key, `iss` the App id, issued
 * in the past and expiring at most 10 minutes after issue (with a minute of clock drift allowed).
 */
export function verifyAppJwt(
  token: string,
  publicKey: KeyObject,
  appId: string | number,
  nowSec = Math.floor(Date.now() / 1000),
): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, problem: 'not a JWT (expected three dot-separated parts)' };
  const [h, p, s] = parts as [string, string, string];
  const header = decodePart(h);
  const payload = decodePart(p);
  if (!header || !payload) return { ok: false, problem: 'JWT header or payload is not base64url JSON' };
  if (header.alg !== 'RS256') return { ok: false, problem: `JWT alg is ${String(header.alg)}, GitHub requires RS256` };
  if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'))) {
    return { ok: false, problem: 'JWT signature does not verify with the App public key' };
  }
  if (String(payload.iss) !== String(appId))
    return { ok: false, problem: `JWT iss is ${String(payload.iss)}, expected the App id ${appId}` };
  const iat = Number(payload.iat);
  const exp = Number(payload.exp);
  if (!Number.isFinite(iat) || !Number.isFinite(exp)) return { ok: false, problem: 'JWT lacks iat or exp' };
  if (iat > nowSec + 60) return { ok: false, problem: 'JWT iat is in the future' };
  if (exp <= nowSec) return { ok: false, problem: 'JWT has expired' };
  if (exp - iat > 600 + 60) return { ok: false, problem: 'JWT lives longer than 10 minutes' };
  return { ok: true, appId: String(payload.iss) };
}
