import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Passwords are hashed with scrypt (memory-hard, in Node's standard library). The parameters are
 * stored with each hash, so the cost can be raised later without breaking existing accounts: a
 * sign-in whose hash was made at a lower cost than the configured one stores it again at that cost.
 */
const PARAMS = { r: 8, p: 1, keyLength: 32 } as const

/**
 * The cost as log2 of scrypt's N (PASSWORD_HASH_COST, docs/operations.md): 15 costs about 32 MB and
 * 150 ms of one core per hash on CI's machine. The test suites set the lowest, 10 (about 5 ms), as
 * frameworks' test set-ups do with their hash cost: they sign in hundreds of times and check what
 * is done with a hash, not its strength.
 */
export const PASSWORD_HASH_COST = { default: 15, min: 10, max: 16 } as const
/** Enough for the highest cost: scrypt needs 128 · N · r bytes. */
const MAX_MEMORY = 2 * 128 * 2 ** PASSWORD_HASH_COST.max * PARAMS.r

let cost: number = PASSWORD_HASH_COST.default
/** A hash to verify against when the account does not exist, so timing does not reveal it (dummyPasswordHash). */
let dummyHash: Promise<string> | undefined

/** Set once at start from the configuration (createBackend): the cost of every hash made after it. */
export function setPasswordHashCost(value: number): void {
  if (value === cost) return
  cost = value
  // The stand-in for a missing account must cost what a real one does.
  dummyHash = undefined
}

export const PASSWORD_MIN_LENGTH = 8
/** Long passphrases are welcome; the cap only stops absurd inputs from costing hashing time. */
export const PASSWORD_MAX_LENGTH = 1024

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFKC'), salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    )
  })
}

/** A new hash of `password` at the configured cost (or at `options.cost`). */
export async function hashPassword(password: string, options: { cost?: number } = {}): Promise<string> {
  const salt = randomBytes(16)
  const N = 2 ** (options.cost ?? cost)
  const key = await scrypt(password, salt, PARAMS.keyLength, { N, r: PARAMS.r, p: PARAMS.p, maxmem: MAX_MEMORY })
  return `scrypt$${N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Whether a stored hash was made at a lower cost than the configured one (or with other parameters). */
export function needsRehash(stored: string): boolean {
  const [scheme, n, r, p] = stored.split('$')
  return scheme !== 'scrypt' || Number(n) < 2 ** cost || Number(r) !== PARAMS.r || Number(p) !== PARAMS.p
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false
  const expected = Buffer.from(key, 'base64url')
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  })
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/** The hash of no account's password, at the current cost. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'))
  return dummyHash
}
