import type { Revision } from '../../core/revision.js';
import { hashTexts } from './hash-texts.js';
import { DEPS_MOUNT, type DepsPlan, type NoInstall } from './deps-plan.js';

/**
 * A Go module (or workspace): `go mod download` plus the packages the tests import, into a module
 * cache at {@link DEPS_MOUNT}/gomod that the tests then read with GOPROXY=off. A newer `go` or
 * `toolchain` line than the machine's Go is honoured the Go way (GOTOOLCHAIN=auto downloads that
 * toolchain from the module proxy into the same cache). Vendored modules need nothing.
 */

export const GO_MODCACHE = `${DEPS_MOUNT}/gomod`;

function goDirective(goMod: string): { go?: string; toolchain?: string } {
  const go = /^go\s+(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
  const toolchain = /^toolchain\s+go(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
  return { ...(go ? { go } : {}), ...(toolchain ? { toolchain } : {}) };
}

function newer(a: string, b: string): boolean {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0);
  return false;
}

export async function planGo(rev: Revision, goVersion: string): Promise<DepsPlan | NoInstall | null> {
  const goMod = await rev.readText('go.mod');
  const goWork = await rev.readText('go.work');
  if (goMod === null && goWork === null) return null;
  const paths = await rev.paths();
  if (paths.includes('vendor/modules.txt')) return { none: 'the module vendors its dependencies (vendor/)', toolchain: { go: goVersion } };
  const modFiles = paths.filter(
    (p) => /(^|\/)(go\.mod|go\.sum|go\.work|go\.work\.sum)$/.test(p) && !p.startsWith('vendor/') && !/(^|\/)testdata\//.test(p),
  );
  const texts = await rev.readTexts(modFiles);
  const requires = /^\s*require\b/m.test(goMod ?? '') || [...texts.values()].some((t) => /^\s*require\b/m.test(t));
  const { go, toolchain } = goDirective(goMod ?? goWork ?? '');
  const want = toolchain ?? go;
  const notes: string[] = [];
  const needsToolchain = want !== undefined && newer(want, goVersion);
  if (needsToolchain)
    notes.push(
      `go.mod asks for Go ${want}; this machine has ${goVersion}, so Go ${want} was fetched from the module proxy (GOTOOLCHAIN=auto)`,
    );
  if (!requires && !needsToolchain) return { none: 'go.mod requires no modules', toolchain: { go: goVersion } };
  return {
    ecosystem: 'go',
    keyMaterial: `go=${goVersion}\n${hashTexts(texts)}`,
    inputs: [...texts.keys()].sort(),
    script: 'go mod download && go list -e -deps -test ./... > /dev/null && go version',
    env: {
      GOMODCACHE: GO_MODCACHE,
      GOFLAGS: '-modcacherw',
      GOTOOLCHAIN: 'auto',
      GOPATH: '$TMPDIR/gopath',
      GOCACHE: '$TMPDIR/gocache',
      GONOSUMDB: '',
      GONOSUMCHECK: '',
      GOPRIVATE: '',
    },
    notes,
    toolchain: { go: needsToolchain ? want : goVersion },
    runEnv: { GOMODCACHE: GO_MODCACHE, GOPROXY: 'off', ...(needsToolchain ? { GOTOOLCHAIN: 'auto' } : {}) },
  };
}
