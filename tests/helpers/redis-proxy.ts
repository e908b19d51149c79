import { tcpProxy } from './tcp-proxy'

/**
 * A cuttable proxy in front of this machine's Redis (tests/helpers/tcp-proxy.ts): a Redis outage
 * without touching the real server. The caller closes it with `cut` when the test ends.
 */
export async function redisProxy(target = { host: '127.0.0.1', port: 6379 }) {
  const proxy = await tcpProxy(target)
  return { ...proxy, url: () => `redis://127.0.0.1:${proxy.port()}` }
}
