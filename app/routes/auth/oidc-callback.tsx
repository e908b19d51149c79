// Issue 16: the identity provider's redirect back (GET /auth/oidc/callback); not built yet.
export { default, meta } from '~/routes/coming-later'
