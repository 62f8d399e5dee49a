import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The Action's files as GitHub reads them, checked here because GitHub Actions cannot run on this
 * machine: action.yml (a composite that builds slopgate on the runner), the example workflow the docs
 * show, and this repository's own workflows, against SchemaStore's schemas bundled in schemas/.
 */
const ROOT = process.cwd();
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const yamlOf = (p: string) => parse(read(p)) as Record<string, unknown>;

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
  shell?: string;
  'working-directory'?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[]; 'runs-on': string; if?: string }>;
}
interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value?: string }>;
  runs: { using: string; steps: Step[] };
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
function schemaErrors(schemaFile: string, doc: unknown): string[] {
  const validate =
    ajv.getSchema(schemaFile) ??
    (ajv.addSchema(JSON.parse(read(`schemas/${schemaFile}`)) as object, schemaFile), ajv.getSchema(schemaFile)!);
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

const action = yamlOf('action.yml') as unknown as ActionYml;
const example = yamlOf('docs/examples/slopgate.yml') as unknown as Workflow;
const ci = yamlOf('.github/workflows/ci.yml') as unknown as Workflow;
const prepareStep = (w: Workflow, job: string) => w.jobs[job]!.steps.find((s) => s.run?.includes('apt-get install -y -qq bubblewrap'));

const tmp = mkdtempSync(join(tmpdir(), 'slopgate-action-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let runs = 0;
/** Runs one composite step's script as the runner would (bash -e), with the action's folder as its directory. */
function runStep(step: Step, env: Record<string, string>): { status: number | null; output: string; stdout: string } {
  const out = join(tmp, `output-${String(++runs)}`);
  const r = spawnSync('bash', ['-e', '-c', step.run!], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GITHUB_OUTPUT: out, RUNNER_OS: 'Linux', RUNNER_ARCH: 'X64', ...env },
  });
  let output = '';
  try {
    output = readFileSync(out, 'utf8');
  } catch {
    // no outputs written
  }
  return { status: r.status, output, stdout: r.stdout };
}

describe('action.yml', () => {
  it('is a valid action (SchemaStore github-action schema) and a composite, so any ref runs with no release step', () => {
    expect(schemaErrors('github-action.schema.json', action)).toEqual([]);
    expect(action.runs.using).toBe('composite');
    const uses = action.runs.steps.map((s) => s.uses?.replace(/@.*/, '')).filter(Boolean);
    expect(uses).toEqual(['actions/setup-node', 'actions/cache/restore', 'actions/cache/save']);
  });

  it('builds from its own folder with the runtime dependencies only, cached, and runs the compiled entry', () => {
    const build = action.runs.steps.find((s) => s.run?.includes('npm ci'))!;
    expect(build['working-directory']).toBe('${{ github.action_path }}');
    expect(build.run).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(build.run).toMatch(/tsc -p action\/tsconfig\.json/);
    expect(build.if).toBe("steps.cache.outputs.cache-hit != 'true'");
    const restore = action.runs.steps.find((s) => s.uses?.startsWith('actions/cache/restore'))!;
    const save = action.runs.steps.find((s) => s.uses?.startsWith('actions/cache/save'))!;
    expect(restore.with).toEqual(save.with);
    expect(restore.with!.key).toBe('${{ steps.key.outputs.key }}');
    const gate = action.runs.steps.find((s) => s.id === 'gate')!;
    expect(gate.run).toBe('node "$GITHUB_ACTION_PATH/dist/platforms/actions/main.js"');
    // tsconfig.build.json's outDir layout: the entry the gate step runs is what the build emits
    const tsconfig = JSON.parse(read('action/tsconfig.json')) as { compilerOptions: { rootDir: string; outDir: string } };
    expect(tsconfig.compilerOptions).toMatchObject({ rootDir: '../src', outDir: '../dist' });
    expect(readdirSync(join(ROOT, 'src/platforms/actions'))).toContain('main.ts');
  });

  it('hands every input to the entry as a variable, never pasted into a script', () => {
    const gate = action.runs.steps.find((s) => s.id === 'gate')!;
    const expected = Object.fromEntries(
      Object.keys(action.inputs).map((name) => [`INPUT_${name.toUpperCase().replace(/-/g, '_')}`, `\${{ inputs.${name} }}`]),
    );
    expect(gate.env).toEqual(expected);
    for (const s of action.runs.steps) expect(s.run ?? '').not.toContain('${{');
    expect(action.outputs.decision!.value).toBe('${{ steps.gate.outputs.decision }}');
    expect(action.outputs.blocking!.value).toBe('${{ steps.gate.outputs.blocking }}');
  });

  it("uses the job's Node when it fits (this one does) and keys the cache on the sources and the lockfile", () => {
    const node = runStep(
      action.runs.steps.find((s) => s.id === 'node')!,
      {},
    );
    expect(node.status).toBe(0);
    expect(node.output).toBe('fits=true\n');
    const tooOld = join(tmp, 'old-node');
    spawnSync('sh', ['-c', `mkdir -p "$1" && printf '#!/bin/sh\\nexit 1\\n' > "$1/node" && chmod +x "$1/node"`, 'sh', tooOld]);
    const old = runStep(
      action.runs.steps.find((s) => s.id === 'node')!,
      { PATH: `${tooOld}:${process.env.PATH ?? ''}` },
    );
    expect(old.output).toBe('fits=false\n');
    const key = runStep(
      action.runs.steps.find((s) => s.id === 'key')!,
      {},
    );
    expect(key.status).toBe(0);
    expect(key.output).toMatch(/^key=slopgate-action-Linux-X64-node\d+-[0-9a-f]{40}\n$/);
  });
});

describe('the example workflow (docs/examples/slopgate.yml)', () => {
  it('is the one docs/github-action.md shows, byte for byte', () => {
    const doc = read('docs/github-action.md');
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(read('docs/examples/slopgate.yml'));
  });

  it('is a valid workflow on pull_request and merge_group that prepares the sandbox before slopgate', () => {
    expect(schemaErrors('github-workflow.schema.json', example)).toEqual([]);
    expect(Object.keys(example.on).sort()).toEqual(['merge_group', 'pull_request']);
    const steps = example.jobs.gate!.steps;
    const prepare = prepareStep(example, 'gate')!;
    const gate = steps.findIndex((s) => s.uses?.includes('/slopgate@'));
    expect(steps.indexOf(prepare)).toBeGreaterThan(-1);
    expect(steps.indexOf(prepare)).toBeLessThan(gate);
    expect(steps[0]!.uses).toMatch(/^actions\/checkout@/);
    // An AppArmor profile for bwrap alone that allows user namespaces; the sysctl only when it cannot load
    expect(prepare.run).toMatch(/profile bwrap \/usr\/bin\/bwrap flags=\(unconfined\) \{\n\s+userns,\n\}/);
    expect(prepare.run).toMatch(
      /apparmor_parser -r \/etc\/apparmor\.d\/bwrap \|\| sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/,
    );
    expect(prepare.run).toMatch(/bwrap --unshare-all .* true \|\| \{/);
    expect(spawnSync('bash', ['-n', '-c', prepare.run!]).status).toBe(0);
  });
});

describe("this repository's workflows", () => {
  it('are valid workflows', () => {
    for (const f of readdirSync(join(ROOT, '.github/workflows'))) {
      expect({ f, errors: schemaErrors('github-workflow.schema.json', yamlOf(`.github/workflows/${f}`)) }).toEqual({ f, errors: [] });
    }
  });

  it("run the Action from this checkout on the project's own pull requests, with the example's sandbox step", () => {
    const [name, job] = Object.entries(ci.jobs).find(([, j]) => j.steps.some((s) => s.uses === './'))!;
    expect(job.if).toBe("github.event_name == 'pull_request'");
    expect(job['runs-on']).toBe('ubuntu-24.04');
    expect(prepareStep(ci, name)!.run).toBe(prepareStep(example, 'gate')!.run);
    const steps = job.steps;
    expect(steps.indexOf(prepareStep(ci, name)!)).toBeLessThan(steps.findIndex((s) => s.uses === './'));
    // tests stay on: the sandbox has to start for the step to pass
    expect(steps.find((s) => s.uses === './')!.with).toEqual({ 'fail-level': 'none' });
  });

  it("keep slopgate's own config valid (the test gate's command for this repository)", () => {
    const config = yamlOf('.github/slopgate.yml');
    expect(schemaErrors('slopgate.schema.json', config)).toEqual([]);
    expect(config).toMatchObject({ tests: { command: expect.stringMatching(/^npx vitest run /) } });
  });
});
