// Remote media's cap and retention on the operator settings page (server/src/federation/remote-media.ts).
import { request } from '@/lib/api/client';
import type * as answers from '@server/contract/answers';
import type { Static } from 'typebox';

export type RemoteMediaUse = Static<typeof answers.RemoteMediaUse>;
export type RemoteMediaChange = Static<typeof answers.RemoteMediaChange>;

export const getRemoteMedia = () => request<RemoteMediaUse>('/api/admin/federation/media');
export const setRemoteMedia = (change: RemoteMediaChange) =>
  request<RemoteMediaUse>('/api/admin/federation/media', { method: 'PUT', body: change });
