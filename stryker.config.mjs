// Mutation testing of the security boundary: the gate and the reference compiler, the engine's leaf
// (every step's one call through the gate), the doors' shared entry and run_js's calls (`npm run mutation`).
// It takes an hour or more on two cores, so it is not part of `npm test` or CI. Narrow a run
// while working on one file: `npx stryker run --mutate src/refs/jsonpath.ts`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // TypeScript refuses about a third of the mutants; the checker sorts those out before any test runs.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  mutate: ['src/gate/**/*.ts', 'src/refs/**/*.ts', 'src/doors/**/*.ts', 'src/engine/leaf.ts', 'src/agent-tools/script/script-calls.ts'],
  // Left on, Stryker puts `// @ts-nocheck` on top of the files it copies, the fixture project's
  // (bench/fixtures/repo) too; their line numbers shift and the first test run fails.
  disableTypeChecks: false,
  // A mutant in code that runs only when a module loads needs every test file reloaded: about half
  // the time for a handful of mutants.
  ignoreStatic: true,
  coverageAnalysis: 'perTest',
  // One test runner: the machine is shared, and one core stays free.
  concurrency: 1,
  timeoutMS: 10000,
  dryRunTimeoutMinutes: 20,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false },
  incrementalFile: 'reports/mutation/incremental.json',
};
