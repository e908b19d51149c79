/**
 * A test-only hook: when SP_TEST_CRASH_AT names a step, the process kills itself there (SIGKILL,
 * no clean-up), so a test can prove that a crash between two steps leaves nothing orphaned once
 * the sweep has run (tests/api/photos-crash.test.ts). Inert unless that variable is set; read once.
 */
const crashAt = process.env.SP_TEST_CRASH_AT

export type CrashStep = 'photo-complete:after-move'

export function crashPoint(step: CrashStep): void {
  if (crashAt === step) process.kill(process.pid, 'SIGKILL')
}
