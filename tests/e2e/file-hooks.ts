import { afterAll } from 'vitest'
import { fileEnded } from './harness'

// Runs before every e2e file (vitest.config.ts setupFiles): the harness's checks when the file ends.
afterAll(fileEnded)
