// Issue 16: not built yet; the screen says so (routes/coming-later.tsx) until it is.
export { default, meta } from '~/routes/coming-later'
