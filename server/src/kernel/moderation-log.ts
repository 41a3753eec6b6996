import type Database from 'better-sqlite3';

// Shared by moderation/ (reports, removals, suspensions) and registration/ (answers to join
// requests): the operators' actions are one log, so its writer sits below both.
export type ActionName = 'dismiss' | 'remove_post' | 'remove_comment' | 'suspend' | 'unsuspend' | 'approve_join' | 'reject_join' | 'mark_sensitive';

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
