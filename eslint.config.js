// Lint (npm run lint): typescript-eslint with type information, for the rules that catch real bugs
// in this code base: promises nobody waits for or handles, values never used, `any` leaking into
// typed code, and the usual correctness rules. Formatting is left to the editor (.editorconfig).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // client/: types written by npm run client:types; docs/client/: the example client, compiled by its own test against them.
  { ignores: ['dist/**', 'node_modules/**', 'bench/out/**', 'coverage/**', '**/*.js', 'client/**', 'docs/client/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Production code: `any` must not flow into typed values.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      // A cast the compiler does not need hides the type it checks.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
  {
    // The scripts (scripts/*.mjs, bench/**/*.mjs) are type-checked by tsc with checkJs (tsconfig.scripts.json, run
    // by npm run typecheck and npm test), which also finds undefined names; here the same rules
    // without type information.
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: { ...tseslint.configs.disableTypeChecked.rules, 'no-undef': 'off' },
  },
);
