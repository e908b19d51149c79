import type { Session } from './session'

/** Spec §4 "Auth status". */
export type AuthStatus = 'anonymous' | 'redirecting' | 'error' | 'authenticated'

export type AuthError = { message: string; correlationId?: string | undefined }

/** An identity-provider sign-in under way: where to come back to once it returns. */
export type PendingOidc = { correlationId: string; redirectTo?: string | undefined }

/** Spec §3 "Auth state". */
export type AuthState = {
  status: AuthStatus
  session: Session | null
  redirectCorrelationId: string | null
  lastError: AuthError | null
  lastGuardRedirect: string | null
  pendingOidc: PendingOidc | null
  lastOidcError: AuthError | null
}

export type AuthEvent =
  | { type: 'startRedirect'; correlationId: string; redirectTo?: string | undefined }
  | { type: 'redirectFailed'; error: AuthError }
  | { type: 'hydrate'; session: Session }
  | { type: 'setAdminSession'; session: Session }
  | { type: 'setUserSession'; session: Session }
  | { type: 'clearSession' }
  | { type: 'dismissError' }
  | { type: 'adminRefresh'; session: Session }
  | { type: 'userRefresh'; session: Session }
  | { type: 'guardRedirect'; path: string }

export const initialAuthState: AuthState = {
  status: 'anonymous',
  session: null,
  redirectCorrelationId: null,
  lastError: null,
  lastGuardRedirect: null,
  pendingOidc: null,
  lastOidcError: null,
}

/** The auth status machine of spec §4 as a pure reducer; an event that does not apply changes nothing. */
export function authReducer(state: AuthState, event: AuthEvent): AuthState {
  switch (event.type) {
    case 'startRedirect':
      return {
        ...state,
        status: 'redirecting',
        redirectCorrelationId: event.correlationId,
        lastError: null,
        lastOidcError: null,
        pendingOidc: { correlationId: event.correlationId, redirectTo: event.redirectTo },
      }
    case 'redirectFailed':
      // The identity-provider redirect is the OIDC flow: its failure is both errors.
      return { ...state, status: 'error', session: null, lastError: event.error, lastOidcError: event.error, pendingOidc: null }
    case 'hydrate':
    case 'setAdminSession':
    case 'setUserSession':
      return {
        ...state,
        status: 'authenticated',
        session: event.session,
        lastError: null,
        lastOidcError: null,
        lastGuardRedirect: null,
        pendingOidc: null,
      }
    case 'clearSession':
      return { ...state, status: 'anonymous', session: null, redirectCorrelationId: null, pendingOidc: null }
    case 'dismissError':
      if (state.status !== 'error') return state
      return { ...state, status: 'anonymous', lastError: null, lastOidcError: null }
    case 'adminRefresh':
    case 'userRefresh':
      // A refresh answering after a sign-out must not bring the session back.
      if (state.status !== 'authenticated') return state
      return { ...state, session: event.session }
    case 'guardRedirect':
      return { ...state, lastGuardRedirect: event.path }
  }
}
