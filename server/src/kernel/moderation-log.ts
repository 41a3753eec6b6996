import type Database from 'better-sqlite3';

// Shared by moderation/ (reports, removals, suspensions), people/ (answers to join requests),
// registration/ (the server's settings and invite links) and idp/ (reset links): the operators'
// actions are one log, so its writer sits below them all. It never holds a link or a token.
export type ActionName =
  | 'dismiss'
  | 'remove_post'
  | 'remove_comment'
  | 'suspend'
  | 'unsuspend'
  | 'approve_join'
  | 'reject_join'
  | 'mark_sensitive'
  // The server's settings (issue 48): every operator act is in the log, not only moderation.
  | 'change_registration'
  | 'change_server_page'
  | 'make_invite'
  | 'withdraw_invite'
  | 'make_reset_link'
  // Federation's switch (federation/federation-settings.ts).
  | 'change_federation'
  // Remote media's cap and retention (federation/remote-media.ts).
  | 'change_remote_media'
  // Blocks of other servers (federation/domain-blocks.ts).
  | 'block_server'
  | 'unblock_server'
  // Allow-list mode and its list (federation/domain-blocks.ts).
  | 'allow_server'
  | 'disallow_server'
  | 'change_allow_list'
  // A report forwarded to the reported person's server as a Flag (federation/flags.ts).
  | 'forward_report';

/** Who acts: an operator, as the verified token says (kernel/auth/operators.ts). */
export interface Operator {
  id: number;
  username: string;
}

/**
 * The moderation log's one writer: an operator's action, written inside the caller's
 * transaction (moderation/moderation-repository.ts's actions, and the answers to join requests in
 * people/join-requests-repository.ts).
 */
export function createModerationLog(sqlite: Database.Database) {
  const insertAction = sqlite.prepare<{
    operator: number;
    operatorName: string;
    action: ActionName;
    target: string;
    targetUser: number | null;
    excerpt: string;
    reason: string;
    now: number;
  }>(`
    INSERT INTO moderation_actions (operator_id, operator_name, action, target, target_user_id, excerpt, reason, created_at)
    VALUES (@operator, @operatorName, @action, @target, @targetUser, @excerpt, @reason, @now)`);
  return (op: Operator, action: ActionName, target: string, targetUser: number | null, reason: string, excerpt = '') =>
    insertAction.run({ operator: op.id, operatorName: op.username, action, target, targetUser, excerpt, reason, now: Date.now() });
}
