// ESLint flat config: typescript-eslint's strictest type-checked presets over src/ and test/.
// Every rule turned off or tuned below says why beside it; the presets decide everything else.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/', 'action/dist/', 'coverage/', 'node_modules/', 'schemas/', 'bench/', '**/fixtures/', '.slopgate-data/'],
  },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Numbers print as digits in messages and reports; the rule still catches objects, null, undefined and unknown.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(x) => set.add(x)` style one-line callbacks are idiomatic here; statements that use a void value still fail.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // With noUncheckedIndexedAccess on, `lines[i]!` inside a loop bounded by `lines.length` is how the code says
      // "this index exists"; flagging every one of them (two thirds of all hits) buried the assertions that matter.
      // The selector below keeps the rule for everything else: `values.repo!`, `parentPort!`, `re.exec(s)!`.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `a || b` on strings deliberately treats '' as missing (an empty message, an empty env var); `??` would not.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // Environments (process.env, spawn's env) are plain records; deleting a key is how a variable is unset.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // In-memory implementations of async ports (a cache, a queue, a fake host) are `async` without an await so
      // that a throw becomes a rejection, as it would be in the real implementation.
      '@typescript-eslint/require-await': 'off',
      // PR text is hostile: reports, anchors and paths strip control characters (ANSI escapes, NUL, BEL) with
      // regexes written to match exactly those characters, which is all this rule reports.
      'no-control-regex': 'off',
      // `const { handler: _h, ...rest } = opts` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSNonNullExpression:not([expression.type="MemberExpression"][expression.computed=true])',
          message: 'Non-null assertion on a value that is not an index access: check it, or narrow it where it comes from.',
        },
        // Text parsed from a file, a tool or the network has whatever shape the text had: a cast on the parse
        // result only tells the compiler a story. Each selector is a cast (`as X` or `<X>`, other than to unknown)
        // applied straight to JSON.parse, smol-toml's or yaml's parse (imported as parse/parseToml/parseYaml)
        // or a yaml node's toJSON().
        ...[
          "[callee.object.name='JSON'][callee.property.name='parse']",
          "[callee.type='Identifier'][callee.name=/^parse(Toml|Yaml)?$/]",
          "[callee.property.name='toJSON']",
        ].map((call) => ({
          selector: `:matches(TSAsExpression, TSTypeAssertion)[typeAnnotation.type!='TSUnknownKeyword'] > CallExpression.expression${call}`,
          message:
            'A cast on parsed JSON, TOML or YAML is unchecked: check the value with a zod schema (parseJsonAs or shapedAs in src/core/parse-data.ts), or read it field by field with isRecord (src/core/is-record.ts).',
        })),
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // `findings[0]!.message`: in a test a wrong guess throws and fails the test, which is the point of the test.
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-restricted-syntax': 'off',
      // Tests read untyped JSON from fake servers, CLI output and SARIF files and assert on it directly; the
      // expect() is the type check. Typing every fixture response would add code without adding safety.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // `.catch((e: { status: number }) => e.status)` reads the one field a test expects from an API error;
      // a wrong guess fails the assertion right after it.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
    },
  },
  {
    // This file and other plain JavaScript are not in tsconfig.json: lint them without type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
