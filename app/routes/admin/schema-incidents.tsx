// Placeholder until its issue-15 page lands.
export { default, loader, meta } from './coming-later'
