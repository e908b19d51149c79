import { type RouteConfig, index } from '@react-router/dev/routes'

// Explicit route config, in the order of spec §2.
export default [
  index('routes/home.tsx'),
] satisfies RouteConfig
