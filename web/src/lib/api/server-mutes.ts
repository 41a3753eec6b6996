// A person's mutes of whole servers (docs/api.md, "Muting a server"): their own views only; nothing is sent anywhere.
import { request } from '@/lib/api/client';
import type * as answers from '@server/contract/answers';
import type { Static } from 'typebox';

export type ServerMute = Static<typeof answers.ServerMutes>['mutes'][number];
type Muted = Static<typeof answers.ServerMuted>;

export const getServerMutes = () => request<Static<typeof answers.ServerMutes>>('/api/server-mutes');
export const muteServer = (host: string) => request<Muted>('/api/server-mutes', { method: 'POST', body: { host } });
export const unmuteServer = (host: string) => request<Muted>(`/api/server-mutes/${encodeURIComponent(host)}`, { method: 'DELETE' });
