/**
 * Whether this instance is shutting down (docs/operations.md "Metrics, health and tracing"). From
 * SIGTERM on, readiness (GET /api/health/ready) answers 503, so the load balancer stops sending new
 * requests while the ones in flight finish; liveness stays 200, so the orchestrator does not kill
 * the process before its deadline. One process is one instance: the flag is the process's.
 */

let draining = false

export function markDraining(): void {
  draining = true
}

/** Back to serving: for tests, which drain an instance and go on in the same process. */
export function markServing(): void {
  draining = false
}

export function isDraining(): boolean {
  return draining
}
