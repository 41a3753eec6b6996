import { useSyncExternalStore } from 'react';
import { onInstanceChanged, serverName } from '@/lib/config';

/**
 * The server's name in a component, following a rename on the operator page at once
 * (instanceChanged). Apart from lib/config.ts, which the early requests' inline script
 * (src/early-requests.ts) bundles: React stays out of that script.
 */
export function useServerName(): string {
  return useSyncExternalStore(onInstanceChanged, serverName, serverName);
}
