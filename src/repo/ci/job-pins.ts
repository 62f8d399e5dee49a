import { isRecord } from '../../core/is-record.js';

/** A release a project's CI or toolchain file asks for, and where that was read. */
export interface ToolchainPin {
  /** `1.97`, `1.22.3`, a channel (`stable`, `nightly-2025-01-01`); `go.mod` for setup-go's `go-version-file: go.mod`. */
  version: string;
  where: string;
}

export interface Pins {
  go?: ToolchainPin;
  rust?: ToolchainPin;
}

/** A name from the workflow for inside a code span: one line, no backticks, at most 80 characters. */
export const spanText = (v: string): string =>
  v
    .replace(/\s+/g, ' ')
    .replace(/[`\u0000-\u001f\u007f]+/g, "'")
    .trim()
    .slice(0, 80);

const VERSION = /^[\w.+-]{1,40}$/;
const versionText = (v: unknown) => {
  const t = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim().replace(/^["']|["']$/g, '') : '';
  return VERSION.test(t) ? t : null;
};

/** The Go and Rust releases a job's steps install. */
export function jobPins(source: string, jobName: string, steps: unknown[]): Pins {
  const pins: Pins = {};
  const where = `${source}, job \`${spanText(jobName)}\``;
  for (const step of steps) {
    if (!isRecord(step)) continue;
    const uses = typeof step.uses === 'string' ? step.uses.toLowerCase() : '';
    const withArgs = isRecord(step.with) ? step.with : {};
    if (uses.startsWith('actions/setup-go@')) {
      const v = versionText(withArgs['go-version']);
      if (v) pins.go = { version: v.replace(/\.x$/, ''), where };
      else if (typeof withArgs['go-version-file'] === 'string' && /(^|\/)go\.mod$/.test(withArgs['go-version-file']))
        pins.go = { version: 'go.mod', where: `${where} \`go-version-file\`` };
    }
    if (/^(?:dtolnay\/rust-toolchain|actions-rs\/toolchain|actions-rust-lang\/setup-rust-toolchain)@/.test(uses)) {
      const input = versionText(withArgs.toolchain);
      const ref = /^dtolnay\/rust-toolchain@(.+)$/.exec(uses)?.[1];
      const v = input ?? (ref && /^(?:\d+\.\d+(?:\.\d+)?|stable|beta|nightly)$/.test(ref) ? ref : null);
      if (v) pins.rust = { version: v, where };
    }
    if (typeof step.run === 'string') {
      const m = /\brustup\s+(?:toolchain\s+install|install|default|override\s+set)\s+(?:--\S+\s+)*([\w.-]+)/.exec(step.run);
      const v = m ? versionText(m[1]) : null;
      if (v) pins.rust = { version: v, where };
    }
  }
  return pins;
}
