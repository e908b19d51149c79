/**
 * The little of oidc-provider (v9, no bundled types) that tests/helpers/oidc-provider.ts uses.
 * See node_modules/oidc-provider/lib for the real thing.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export type InteractionResults = Record<string, unknown>
  export type InteractionDetails = { uid: string; prompt: { name: string }; params: Record<string, unknown>; session?: { accountId?: string } }

  export class Grant {
    constructor(init: { accountId: string; clientId: string })
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    Grant: typeof Grant
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<void>
    on(event: string, listener: (...args: unknown[]) => void): void
  }
}
