import { defineConfig } from 'vitest/config'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const alias = {
  '~': fileURLToPath(new URL('./app', import.meta.url)),
  '#server': fileURLToPath(new URL('./server', import.meta.url)),
  '#tests': fileURLToPath(new URL('./tests', import.meta.url)),
}

/**
 * The suites that run in node (unit, realtime, api, fuzz) are CPU-bound in their own workers
 * (PGlite in each database test file's), and vitest's default of one worker fewer than the cores
 * leaves one of CI's two cores idle.
 */
const NODE_SUITE_WORKERS = Math.max(2, Math.min(4, availableParallelism()))

/**
 * Browser files at once: E2E_WORKERS, else one more than the cores (see the e2e project). Written
 * back to the environment, which the e2e workers inherit: the harness scales its bounds by it
 * (tests/e2e/harness.ts FILES_AT_ONCE).
 */
const E2E_WORKERS = Number(process.env.E2E_WORKERS) || availableParallelism() + 1
process.env.E2E_WORKERS = String(E2E_WORKERS)

// A separate config so the reactRouter() Vite plugin never runs under vitest.
export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        // 30 s: a bound for a busy machine, not an expectation (npm test runs these beside the type
        // checker, the linters and the build; a property test of 1,000 runs took 5 s there).
        // Both cores: vitest's default of one worker fewer than the cores ran them on one of two.
        // Hooks get 60 s too: two PGlite databases opened in a beforeAll took over vitest's default
        // 10 s beside the type checker, the linters and the build on a slow 2-core machine.
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', setupFiles: ['tests/setup/console.ts'], testTimeout: 30_000, hookTimeout: 60_000, maxWorkers: NODE_SUITE_WORKERS },
      },
      {
        resolve: { alias },
        test: {
          name: 'api',
          include: ['tests/api/**/*.test.ts'],
          maxWorkers: NODE_SUITE_WORKERS,
          // A worker imports the backend (and compiles PGlite's WebAssembly) once, not once per
          // file: the whole suite took 178 s instead of about 600 s on PGlite, and 150 s instead of
          // 487 s on PostgreSQL with S3. Each file still makes its own database and backend; a file
          // that changes the environment puts it back (vi.stubEnv, then vi.unstubAllEnvs).
          isolate: false,
          environment: 'node',
          setupFiles: ['tests/setup/console.ts'],
          globalSetup: ['tests/setup/api-global.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'fuzz',
          include: ['tests/fuzz/**/*.test.ts'],
          maxWorkers: NODE_SUITE_WORKERS,
          environment: 'node',
          setupFiles: ['tests/setup/console.ts'],
          globalSetup: ['tests/setup/api-global.ts'],
          testTimeout: 60 * 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: { name: 'realtime', include: ['tests/realtime/**/*.test.ts'], environment: 'node', setupFiles: ['tests/setup/console.ts'], testTimeout: 30_000, hookTimeout: 60_000, maxWorkers: NODE_SUITE_WORKERS },
      },
      {
        resolve: { alias },
        // Two built server processes on PostgreSQL and Redis (.ci/run; needs npm run build first).
        test: {
          name: 'multi',
          include: ['tests/multi/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['tests/setup/console.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/global-setup.ts'],
          // A worker's files share the harness (isolate: false): its modules are imported once, and
          // the portal the next file needs starts while this one runs (harness.ts startPortal), and
          // its files share one Chromium (harness.ts launchBrowser). Each file still has its own
          // portal, port, data folder and browser contexts; the harness's per-file checks run from
          // file-hooks.ts, which runs before every file.
          isolate: false,
          setupFiles: ['tests/e2e/file-hooks.ts'],
          // Bounds for a stuck machine, scaled by the files sharing it (tests/e2e/harness.ts bound()).
          testTimeout: 60_000 * E2E_WORKERS,
          hookTimeout: 120_000 * E2E_WORKERS,
          // expect.poll's own 1 s is far tighter than Playwright's 30 s for a locator: a reload that
          // loads an island after hydration took longer beside two other files (CI, 2026-12-02).
          expect: { poll: { timeout: 10_000 * E2E_WORKERS } },
          // Three files at once on two cores: a file alone keeps 1.36 of them busy (a journey is a
          // chain of browser, portal and test runner, each waiting on the other); two kept 1.7
          // busy (735 s), three 1.8 (572 s; docs/performance.md, 2026-11-30). Each file has its own
          // portal, port, data folder and contexts (harness.ts); the accessibility marks are
          // shared, so a screen state is checked once between them.
          maxWorkers: E2E_WORKERS,
        },
      },
    ],
  },
})
