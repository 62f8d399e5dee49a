import { createHash } from 'node:crypto';
import type { Revision } from '../../core/revision.js';
import { shq } from '../../sandbox/index.js';
import { DEPS_MOUNT, INSTALL_TREE, type DepsPlan, type NoInstall } from './deps-plan.js';
import { readPythonRequirements, TEST_GROUPS } from './python-requirements.js';
import { findPythons, pickPython } from './toolchains.js';
import { resolveAsOf } from './as-of.js';
import { readPythonSelf } from './python-self.js';

/**
 * A Python project: a virtual environment at {@link DEPS_MOUNT}/venv, made with an interpreter that
 * satisfies the project's `requires-python`, holding the project's dependencies and test extras and
 * groups (and pytest), never the project itself. With a lockfile its pins are pip constraints; when
 * the index cannot satisfy them the install falls back to the manifest's ranges and says so. When
 * the dependencies are computed (setup.py, dynamic metadata) the project is built once to learn them
 * and then uninstalled again.
 */

const VENV = `${DEPS_MOUNT}/venv`;

/**
 * A `.pth` line in the venv: at start-up, Python adds the test run's own layer (SLOPGATE_PY_LAYER, a
 * `pip --prefix`) as a site directory, its own `.pth` files (an editable install's) included.
 */
const LAYER_PTH =
  "import os, sys, site; p = os.environ.get('SLOPGATE_PY_LAYER'); p and site.addsitedir(os.path.join(p, 'lib', 'python%d.%d' % sys.version_info[:2], 'site-packages'))";

/** The project's own install in a test run: editable, no dependencies, offline, into the run's layer (PIP_PREFIX). */
const SELF_INSTALL = {
  command:
    'SETUPTOOLS_SCM_PRETEND_VERSION="${SETUPTOOLS_SCM_PRETEND_VERSION:-0.0.0}" python -m pip install --disable-pip-version-check --no-input -q --no-deps --no-build-isolation --no-index --ignore-installed -e .',
  what: "the project's own install (pip install -e .)",
};
const PIP = `${VENV}/bin/python -m pip --disable-pip-version-check --no-input`;

export async function planPython(rev: Revision, floor?: Revision): Promise<DepsPlan | NoInstall | null> {
  // The interpreters are probed (once per process) while the tree's requirements are read.
  const [pythons, req, pinnedText, self] = await Promise.all([
    findPythons(),
    readPythonRequirements(rev),
    rev.readText('.python-version'),
    readPythonSelf(rev),
  ]);
  const pinned = pinnedText?.trim().split(/\s+/)[0] ?? null;
  const pick = pickPython(pythons, req.requiresPython, pinned);
  if (!pick.python) return { none: pick.notes.join('; '), notes: pick.notes };
  const py = pick.python;
  if (req.requirements.length === 0 && !req.dynamic) {
    // Nothing declared: a venv with pytest alone still gives the project the pytest it would install.
    req.notes.push('the project declares no dependencies; only pytest was installed');
  }
  const files = [
    { path: 'requirements.txt', content: req.requirements.join('\n') + '\n' },
    { path: 'constraints.txt', content: req.constraints.join('\n') + '\n' },
  ];
  const extras = (req.extras.length ? req.extras : TEST_GROUPS).join(',');
  // Without a lockfile, an old commit gets the versions of its day (pip ≥ 25.3 can be told so).
  const asOf = req.constraints.length ? null : await resolveAsOf(rev, floor);
  const before = asOf ? ` --uploaded-prior-to ${asOf}` : '';
  const steps = [
    `${shq(py.path)} -m venv ${VENV}`,
    // A test run's own writable layer over the read-only venv: what tests.setup or the project's own install puts there is importable.
    `${VENV}/bin/python -c ${shq(`import os, sysconfig; open(os.path.join(sysconfig.get_paths()['purelib'], '_slopgate_layer.pth'), 'w').write(${JSON.stringify(LAYER_PTH)} + '\\n')`)}`,
    ...(asOf ? [`${PIP} install -q 'pip>=25.3'`] : []),
    // The build backend, so that the project builds offline in a test run; a version no index has fails here.
    ...(self.buildRequires.length ? [`${PIP} install${before} ${self.buildRequires.map(shq).join(' ')}`] : []),
    // With a lockfile, its versions first; if the index cannot give them, the manifest's ranges.
    req.constraints.length
      ? `if ! ${PIP} install -c ${DEPS_MOUNT}/constraints.txt -r ${DEPS_MOUNT}/requirements.txt; then echo "slopgate: the lockfile's versions could not be installed; installing from the manifest's ranges" >&2; ${PIP} install -r ${DEPS_MOUNT}/requirements.txt; fi`
      : `${PIP} install${before} -r ${DEPS_MOUNT}/requirements.txt`,
  ];
  if (req.dynamic) {
    // Build the project to learn its dependencies (setup.py, dynamic metadata), then remove the project itself.
    steps.push(
      `SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0 ${PIP} install${before} --report ${DEPS_MOUNT}/report.json ${shq(`${INSTALL_TREE}[${extras}]`)}`,
      `${VENV}/bin/python -c ${shq(
        'import json,sys; r=json.load(open(sys.argv[1])); print("\\n".join(i["metadata"]["name"] for i in r["install"] if i.get("download_info",{}).get("url","").startswith("file://")))',
      )} ${DEPS_MOUNT}/report.json > ${DEPS_MOUNT}/self.txt`,
      `if [ -s ${DEPS_MOUNT}/self.txt ]; then ${PIP} uninstall -y -r ${DEPS_MOUNT}/self.txt; fi`,
    );
  }
  steps.push(
    `${VENV}/bin/python -c 'import pytest' 2>/dev/null || { echo "slopgate: pytest is not among the project's dependencies; installing the newest" >&2; ${PIP} install${before} pytest; }`,
  );
  // Last line: the version of pytest (read without loading the project's config or conftest.py).
  steps.push(`${VENV}/bin/python -c 'import pytest; print(pytest.__version__)'`);
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        py: py.version,
        path: py.path,
        req: req.requirements,
        c: req.constraints,
        dynamic: req.dynamic,
        extras,
        asOf,
        build: self.buildRequires,
      }),
    )
    .digest('hex');
  const inputs = [...req.inputs];
  if (req.dynamic) {
    // What the build reads is the project's packaging: setup.py and pyproject.toml are in the inputs already.
    inputs.push(...(await rev.paths()).filter((p) => p === 'setup.py' || p === 'MANIFEST.in'));
  }
  const setupPy = req.dynamic ? ((await rev.readText('setup.py')) ?? '') + ((await rev.readText('pyproject.toml')) ?? '') : '';
  return {
    ecosystem: 'python',
    keyMaterial: `${key}\n${setupPy}`,
    inputs: [...new Set(inputs)],
    // Computed metadata comes from running the project's build backend (setup.py, a dynamic pyproject).
    ...(req.dynamic ? { projectCode: "the project's dependencies are computed by its build (setup.py or dynamic metadata)" } : {}),
    // One command a line: the install runs under `set -e`, so the first failing step ends it.
    script: steps.join('\n'),
    files,
    env: { PIP_NO_CACHE_DIR: '0', PIP_CACHE_DIR: '$TMPDIR/pip-cache', PIP_CONFIG_FILE: '/dev/null', PYTHONNOUSERSITE: '1' },
    notes: [
      ...pick.notes,
      ...req.notes,
      ...(self.install ? [`the project itself is installed (editable, without its dependencies) into each test run: ${self.install}`] : []),
      req.lockfile
        ? `dependencies pinned by ${req.lockfile}`
        : asOf
          ? `no lockfile: dependencies were installed from the version ranges the project declares, as published by ${asOf.slice(0, 10)} (the commit's date)`
          : `no lockfile: dependencies were installed from the version ranges the project declares`,
    ],
    toolchain: { python: py.version },
    ...(self.install ? { prepare: SELF_INSTALL } : {}),
    hostPaths: [py.prefix],
    runEnv: { VIRTUAL_ENV: VENV, PYTHONNOUSERSITE: '1' },
    runPath: [`${VENV}/bin`],
  };
}
