import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { and, eq, isNull, lt } from 'drizzle-orm'
import * as client from 'openid-client'
import type { Database } from '#server/db/client'
import { oidcFlows } from '#server/db/schema-oidc'
import { flowExpired, flowUsed } from './errors'

/**
 * Authorization requests in progress (server/db/schema-oidc.ts `oidc_flows`). A flow carries the
 * state, nonce and PKCE verifier of one redirect, is bound to the browser that started it (an
 * HttpOnly cookie whose hash the row keeps), lives 10 minutes and is used once.
 */

export const OIDC_FLOW_TTL_MS = 10 * 60_000
/** Expired rows are kept this long, so a late callback hears "took too long" rather than "unknown". */
const FLOW_KEEP_MS = 24 * 60 * 60_000

export type NewFlow = { state: string; nonce: string; codeVerifier: string; browserToken: string; expiresAt: Date }

export type Flow = typeof oidcFlows.$inferSelect

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url')

export async function startFlow(
  db: Database,
  input: { tenantId: string; issuer: string; redirectTo: string; correlationId: string; browserToken?: string | undefined },
  now: Date,
): Promise<NewFlow> {
  const state = client.randomState()
  const nonce = client.randomNonce()
  const codeVerifier = client.randomPKCECodeVerifier()
  // One browser token per browser: two sign-ins started in two tabs both stay finishable.
  const browserToken = input.browserToken ?? randomBytes(32).toString('base64url')
  const expiresAt = new Date(now.getTime() + OIDC_FLOW_TTL_MS)
  await db.delete(oidcFlows).where(lt(oidcFlows.expiresAt, new Date(now.getTime() - FLOW_KEEP_MS)))
  await db.insert(oidcFlows).values({
    stateHash: sha256(state),
    browserHash: sha256(browserToken),
    nonce,
    codeVerifier,
    tenantId: input.tenantId,
    issuer: input.issuer,
    redirectTo: input.redirectTo,
    correlationId: input.correlationId,
    createdAt: now,
    expiresAt,
  })
  return { state, nonce, codeVerifier, browserToken, expiresAt }
}

/** The flow a provider's answer names by its state, if any (used or not, expired or not). */
export async function findFlow(db: Database, state: string | undefined): Promise<Flow | undefined> {
  if (!state) return undefined
  const [flow] = await db.select().from(oidcFlows).where(eq(oidcFlows.stateHash, sha256(state))).limit(1)
  return flow
}

/**
 * Takes the flow, once: no flow, another browser's flow and an expired one are all "took too long
 * or another window" (nothing tells an attacker which); a used one is "already completed". The
 * row is marked used before the code is exchanged, so a replayed answer never reaches the
 * provider twice.
 */
export async function claimFlow(db: Database, flow: Flow | undefined, browserToken: string | undefined, now: Date): Promise<Flow> {
  if (!flow || !startedHere(flow, browserToken)) throw flowExpired()
  if (flow.usedAt) throw flowUsed()
  if (flow.expiresAt.getTime() <= now.getTime()) throw flowExpired()
  const claimed = await db
    .update(oidcFlows)
    .set({ usedAt: now })
    .where(and(eq(oidcFlows.id, flow.id), isNull(oidcFlows.usedAt)))
    .returning({ id: oidcFlows.id })
  if (claimed.length !== 1) throw flowUsed()
  return flow
}

/** Whether this browser (its flow cookie) started the flow. */
export function startedHere(flow: Flow, browserToken: string | undefined): boolean {
  return browserToken !== undefined && sameHash(flow.browserHash, sha256(browserToken))
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
