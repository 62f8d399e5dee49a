/**
 * Merging a CI test command's arguments into the gate's own command: what selects or configures
 * tests (markers, paths, build tags, features, import mode) is kept; what changes the output, stops
 * early, needs an optional plugin or a toolchain extra (coverage, xdist, `-x`, `-race`) is dropped,
 * because the gate needs every result in its own report format. An option it cannot classify safely
 * makes the whole CI command unusable (null), and the gate falls back to its default.
 */

export interface MergedArgs {
  /** Options to pass on (flags with their values). */
  options: string[];
  /** Positional arguments (test paths, node ids, packages). */
  positional: string[];
}

interface FlagTable {
  /** Options kept, that take a value. */
  keepWithValue: Set<string>;
  /** Options kept, without a value. */
  keepBare: Set<string>;
  /** Options dropped, that take a value. */
  dropWithValue: Set<string>;
  /** Options dropped, without a value. */
  dropBare: Set<string>;
  /** Options whose value is optional (taken when the next word is not an option). */
  dropOptionalValue?: Set<string>;
  /** Options after which nothing can be merged (e.g. `--manifest-path`). */
  reject?: Set<string>;
}

function merge(args: string[], t: FlagTable, attachedShort: (a: string) => 'keep' | 'drop' | null): MergedArgs | null {
  const options: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break; // arguments for the test binary (libtest, go test -args): not merged
    if (!a.startsWith('-') || a === '-') {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const hasValue = eq > 0;
    const next = args[i + 1];
    if (t.reject?.has(name)) return null;
    if (t.keepWithValue.has(name)) {
      if (hasValue) options.push(a);
      else if (next !== undefined) {
        options.push(a, next);
        i++;
      } else return null;
    } else if (t.keepBare.has(name)) {
      options.push(a);
    } else if (t.dropWithValue.has(name)) {
      if (!hasValue) i++;
    } else if (t.dropOptionalValue?.has(name)) {
      if (!hasValue && next !== undefined && !next.startsWith('-')) i++;
    } else if (t.dropBare.has(name)) {
      // dropped
    } else {
      const short = attachedShort(a);
      if (short === 'keep') options.push(a);
      else if (short === 'drop') continue;
      else if (hasValue)
        continue; // unknown --name=value: dropped
      else if (next !== undefined && !next.startsWith('-')) return null; // unknown option that may take the next word
      // unknown bare option at the end or before another option: dropped
    }
  }
  return { options, positional };
}

const set = (s: string) => new Set(s.split(' '));

const PYTEST: FlagTable = {
  keepWithValue: set(
    '-m -k --import-mode --rootdir -c --config-file --ignore --ignore-glob --deselect -p -W --pythonwarnings -o --override-ini --confcutdir --doctest-glob',
  ),
  keepBare: set('--strict-markers --strict-config --strict --doctest-modules --runxfail --continue-on-collection-errors'),
  dropWithValue: set(
    '-n --numprocesses --dist --maxprocesses --cov-report --cov-config --cov-fail-under --junitxml --junit-xml --junit-prefix --tb --maxfail --durations --durations-min --timeout --reruns --reruns-delay -r --color --code-highlight --log-level --log-cli-level --basetemp --html --capture --report-log --json-report-file --benchmark-json --random-order-seed',
  ),
  dropBare: set(
    '-x --exitfirst -v -vv -vvv --verbose -q -qq --quiet -s -l --showlocals --lf --last-failed --ff --failed-first --nf --new-first --sw --stepwise --no-header --no-summary --cov-append --no-cov --disable-warnings --disable-pytest-warnings --benchmark-skip --benchmark-disable --random-order --forked --setup-show --cache-clear',
  ),
  dropOptionalValue: set('--cov'),
};

function pytestShort(a: string): 'keep' | 'drop' | null {
  if (/^-[vqsxl]+$/.test(a) || /^-r\w+$/.test(a) || /^-n\w+$/.test(a)) return 'drop';
  if (/^-[pmkWo]\S+$/.test(a)) return 'keep';
  return null;
}

/** pytest arguments of a CI command, or null when they cannot be merged safely. */
export function pytestCiArgs(args: string[]): MergedArgs | null {
  return merge(args, PYTEST, pytestShort);
}

const GO: FlagTable = {
  keepWithValue: set('-tags -run -skip -timeout -mod -ldflags -gcflags'),
  keepBare: set('-short -trimpath -vet'),
  dropWithValue: set(
    '-count -p -parallel -coverprofile -covermode -coverpkg -cpu -o -exec -shuffle -fuzz -fuzztime -benchtime -bench -outputdir -memprofile -cpuprofile -blockprofile -mutexprofile -trace',
  ),
  dropBare: set('-v -race -cover -failfast -json -x -n -a -benchmem -msan -asan'),
};

/** `go test` arguments of a CI command (packages default to `./...`), or null. */
export function goCiArgs(args: string[]): MergedArgs | null {
  // Go's flag package also accepts `--flag`; normalise to one dash.
  const norm = args.map((a) => (/^--\w/.test(a) ? a.slice(1) : a));
  const m = merge(norm, GO, () => null);
  if (!m) return null;
  // -vet without a value is not valid; -vet=off is the form that matters.
  m.options = m.options.filter((o) => o !== '-vet');
  if (m.positional.some((p) => !/^(\.{1,2}(\/[\w.@+-]+)*(\/\.\.\.)?|[\w.-]+(\/[\w.@+-]+)*(\/\.\.\.)?)$/.test(p))) return null;
  return m;
}

const CARGO: FlagTable = {
  keepWithValue: set('--features -F --exclude'),
  keepBare: set('--all-features --no-default-features --workspace --all --locked --frozen --offline'),
  dropWithValue: set('--jobs -j --color --message-format --target-dir --profile --test --bench --bin --example -Z --config'),
  dropBare: set(
    '--no-fail-fast --lib --bins --tests --benches --examples --all-targets --doc -q --quiet -v --verbose --release --ignore-rust-version --timings --future-incompat-report',
  ),
  reject: set('--manifest-path --target -p --package'),
};

/** `cargo test` options of a CI command (test-name filters and `-- …` are not merged), or null. */
export function cargoCiArgs(args: string[]): MergedArgs | null {
  const m = merge(args, CARGO, (a) => (/^-F\S+$/.test(a) ? 'keep' : /^-j\d+$/.test(a) ? 'drop' : null));
  if (!m) return null;
  return { options: m.options.map((o) => (o === '--all' ? '--workspace' : o)), positional: [] };
}
