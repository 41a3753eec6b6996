import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Timestamps are integer milliseconds since the epoch (UTC).
// Counters (post_count, like_count, …) are maintained in the same transaction
// as the write that changes them, so reads never COUNT over big tables.

/** People known to the API, keyed by the identity provider's `sub`. */
export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sub: text('sub').notNull(),
    username: text('username').notNull(),
    email: text('email'),
    /** Media key of the current profile picture (see posts.media_key). */
    profilePictureKey: text('profile_picture_key'),
    /** Visible posts (profile pictures excluded), anonymous ones included. */
    postCount: integer('post_count').notNull().default(0),
    /** Visible posts that are not anonymous: what other people's view of the profile counts. */
    publicPostCount: integer('public_post_count').notNull().default(0),
    /** Likes and comments received on this user's visible posts. */
    likesReceived: integer('likes_received').notNull().default(0),
    commentsReceived: integer('comments_received').notNull().default(0),
    followerCount: integer('follower_count').notNull().default(0),
    followingCount: integer('following_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    /** Set when the account is removed; tokens of a deleted user are refused. */
    deletedAt: integer('deleted_at'),
    /**
     * Set while an operator has suspended the account (moderation/moderation-repository.ts):
     * its API calls are refused, its posts and comments are hidden, and the counters
     * its likes, comments and follows moved on other people are taken back until lifted.
     */
    suspendedAt: integer('suspended_at'),
    suspensionReason: text('suspension_reason'),
    /**
     * Blocks this user is part of, either way (moderation/blocks-repository.ts), and servers they muted
     * (server_mutes): 0 picks the feed plans without block checks.
     */
    blockCount: integer('block_count').notNull().default(0),
    /**
     * Moves with every change to a block this user is part of, either way (by trigger on blocks,
     * migration 0019), and to their server mutes (moderation/server-mutes-repository.ts): the read workers keep a viewer's block sets until it moves (posts/posts-repository.ts).
     */
    blocksVersion: integer('blocks_version').notNull().default(0),
    /**
     * Likes, comments and follows of others on what is theirs newer than notifications_seen_at:
     * the bell's count, one row by primary key. Kept by the write that makes or takes one back,
     * in the UPDATE of this row that write already makes (social/notifications-repository.ts).
     */
    unreadNotifications: integer('unread_notifications').notNull().default(0),
    /** The created_at (ms) of the newest notification the person has seen (opening the Notifications screen moves it). */
    notificationsSeenAt: integer('notifications_seen_at').notNull().default(0),
    /**
     * The created_at (ms) of the newest like, comment or follow anyone made towards this person,
     * moved by the same UPDATE as the bell; undoing one leaves it, so it is an upper bound of the
     * newest notification there is (marking read reads it: social/notifications-repository.ts).
     */
    notifiedAt: integer('notified_at').notNull().default(0),
    /**
     * A private account (docs/api.md, "Private accounts"): new follows become follow_requests and its
     * named posts are shown only to its followers and itself. Anonymous posts are not affected.
     */
    isPrivate: integer('is_private').notNull().default(0),
    /**
     * Null for a member. 'pending' while an account made in approval mode waits for an operator,
     * 'rejected' once one declined it (registration/registration-service.ts). Such an account also has
     * suspended_at set, so every read that hides suspended accounts hides it too.
     */
    joinState: text('join_state', { enum: ['pending', 'rejected'] }),
    /** What the person said when asking to join (approval mode), shown to operators. */
    joinReason: text('join_reason'),
    /** The invite this account joined with (invites.id), if any. */
    inviteId: integer('invite_id'),
    /** "Always show sensitive photos" on the account page: posts marked sensitive come unblurred to this person. */
    showSensitive: integer('show_sensitive').notNull().default(0),
    /**
     * Null for a person of this server. For a person of another server (federation, migration 0031):
     * their host (with a port when not 443), and `username` is `name@host`, a name no one here can
     * take (local names have no "@"). Such a row never signs in (its sub is "~remote:" and their
     * actor's id, never a provider's), is never served as one of our actors, and counts nowhere
     * this server's own people are counted. remote_actors holds the rest of what we know of them.
     */
    host: text('host'),
    /**
     * 1 for a person of a server the operator limited (federation_domain_blocks.severity 'limit',
     * Mastodon's "silence"; migration 0038): their posts are listed (Discover, tags, search) only to
     * their followers, and what they do notifies only people who follow them. Kept by
     * federation/domain-blocks.ts when blocks change, and set when their row is made (remote-actors.ts).
     */
    limited: integer('limited').notNull().default(0),
  },
  (t) => [
    uniqueIndex('users_sub_unique').on(t.sub),
    // Case-insensitive unique names; also serves prefix search as a NOCASE range.
    uniqueIndex('users_username_nocase_unique').on(sql`${t.username} COLLATE NOCASE`),
  ],
);

/** Posts, including profile pictures (is_profile_picture = 1), as the spec stores them. */
export const posts = sqliteTable(
  'posts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    caption: text('caption').notNull().default(''),
    isAnonymous: integer('is_anonymous', { mode: 'boolean' }).notNull().default(false),
    isProfilePicture: integer('is_profile_picture', { mode: 'boolean' }).notNull().default(false),
    /** Key prefix of the processed images: `<mediaKey>/display.webp`, `<mediaKey>/thumb.webp`. */
    mediaKey: text('media_key').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /**
     * Width of the smaller `<mediaKey>/medium.webp` rendition a phone's screen gets through
     * srcset (media/images/pipeline.ts); 0 when there is none (a small photo, or one processed before it existed).
     */
    mediumWidth: integer('medium_width').notNull().default(0),
    likeCount: integer('like_count').notNull().default(0),
    commentCount: integer('comment_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    /** Bytes of its processed images in storage (display + thumb): what the owner's quota counts. */
    storedBytes: integer('stored_bytes').notNull().default(0),
    /** The author's description of the photo for people who cannot see it ('' when none): the image's alt text. */
    altText: text('alt_text').notNull().default(''),
    /** 1 while its author is suspended: listed nowhere, liked and commented by nobody. */
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    /** When its author last changed the caption or the photo's description; null: never (post_versions holds what it said before). */
    editedAt: integer('edited_at'),
    /**
     * Photos in the post: 1, or 2 to 10 for an album. The first photo is this row's own
     * (media_key, width, height, medium_width, alt_text); the others are its post_photos rows, read
     * only for posts whose count is above 1 (posts/posts-repository.ts, docs/api.md "Albums").
     */
    photoCount: integer('photo_count').notNull().default(1),
    /**
     * The local people its caption names (`@name`) who existed when it was written, as a JSON
     * array of their usernames; null: none. Read with the post so a page links them without a
     * read of its own (posts/page-json.ts); the mentions table is the same as rows.
     */
    mentions: text('mentions'),
    /**
     * Marked sensitive by its author or an operator (docs/api.md, "Content warnings"): everyone but
     * the author, and people who chose "Always show sensitive photos", get blur_key's image until they
     * ask for the photo. ActivityPub's `sensitive`.
     */
    sensitive: integer('sensitive').notNull().default(0),
    /** The author's warning shown over the blurred photo ('' when none, at most 100 characters): ActivityPub's `summary`. */
    contentWarning: text('content_warning').notNull().default(''),
    /**
     * Key prefix of `<blurKey>/blur.webp`, the first photo blurred by the server (media/images/blur.ts), a
     * key of its own so a blurred answer does not name the photo's. Set in the transaction that marks the
     * post sensitive, and kept if it is unmarked (marking it again needs no new image); null: never marked.
     */
    blurKey: text('blur_key'),
  },
  (t) => [
    // Discover: newest first over visible posts.
    index('posts_feed_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.isProfilePicture} = 0 AND ${t.hidden} = 0`),
    // Profiles and the following feed: one user's posts newest first (covering for the candidates).
    index('posts_user_feed_idx').on(t.userId, t.isProfilePicture, t.isAnonymous, t.hidden, t.createdAt, t.id),
    // The following feed's first try: the newest public posts with their author, probed
    // against the follow list without touching the table (posts-repository.ts).
    index('posts_public_feed_idx')
      .on(t.createdAt, t.id, t.userId)
      .where(sql`${t.isProfilePicture} = 0 AND ${t.isAnonymous} = 0 AND ${t.hidden} = 0`),
  ],
);

/**
 * What a post said before each edit (posts/post-edits-repository.ts): one row per edit, the
 * caption and descriptions it replaced and since when they had been shown (`written_at`: the
 * post's created_at or its previous edited_at). No author column: the post's is the author,
 * and an anonymous post's history names nobody. Goes with its post (cascade).
 */
export const postVersions = sqliteTable(
  'post_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    caption: text('caption').notNull(),
    altText: text('alt_text').notNull(),
    /**
     * An album's other photos' descriptions in this version, photos 2 to n in order, as a JSON
     * array of strings ('' for none); '[]' for a post of one photo. Read with the version,
     * never searched, so a column rather than a table of its own.
     */
    photoAlts: text('photo_alts').notNull().default('[]'),
    writtenAt: integer('written_at').notNull(),
  },
  (t) => [index('post_versions_post_idx').on(t.postId, t.id)],
);

/**
 * WITHOUT ROWID (migrations 0013 and 0015, which drizzle cannot declare): the rows live in
 * the primary key's b-tree, clustered by post and time, so a like or an unlike writes two
 * b-trees: that one and likes_user_post_idx (docs/performance.md, "Notifications and the
 * write rows").
 */
export const likes = sqliteTable(
  'likes',
  {
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    /**
     * Who is notified: the post's author, or null for a like of one's own post. No foreign
     * key: the post's cascade removes the row with the author's posts.
     */
    recipientId: integer('recipient_id'),
  },
  (t) => [
    // A post's likes by time: the Notifications screen finds a person's likes through their
    // posts (social/notifications-repository.ts), so no index by recipient is written.
    primaryKey({ columns: [t.postId, t.createdAt, t.userId] }),
    // One like per person and post; a person's likes (has this viewer liked it, the data
    // export, account removal, suspension). Being on a WITHOUT ROWID table, its entries
    // carry the rest of the key: created_at is read from the index.
    uniqueIndex('likes_user_post_idx').on(t.userId, t.postId),
  ],
);

export const comments = sqliteTable(
  'comments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    content: text('content').notNull(),
    createdAt: integer('created_at').notNull(),
    /** 1 while its author is suspended: shown nowhere and not counted in comment_count. */
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    /** Who is notified: the post's author, or null for a comment on one's own post (as likes.recipient_id). */
    recipientId: integer('recipient_id'),
    /** The local people it names (`@name`), as posts.mentions. */
    mentions: text('mentions'),
  },
  (t) => [
    // A post's comments in order; also a person's notifications of comments, through their posts
    // (social/notifications-repository.ts): no index by recipient, one b-tree page less per comment.
    index('comments_post_idx').on(t.postId, t.createdAt, t.id),
    index('comments_user_idx').on(t.userId),
  ],
);

/**
 * WITHOUT ROWID (migration 0016, which drizzle cannot declare): the rows live in the primary
 * key's b-tree, so a follow or an unfollow writes two b-trees, that one and
 * follows_followee_time_idx (docs/performance.md, "Notifications and the write rows").
 */
export const follows = sqliteTable(
  'follows',
  {
    followerId: integer('follower_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    followeeId: integer('followee_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    /**
     * 1: the followee approved this follow as a follow request (or made their account public
     * with it waiting). The follower is told "X accepted your follow request"; the followee,
     * who did it, is told nothing (social/notifications-repository.ts, migration 0029).
     */
    accepted: integer('accepted').notNull().default(0),
    /**
     * 0: this follow notifies nobody: its follower is a person of a server the operator limited
     * whom the followee did not follow when it came (kernel/notification-rules.ts, SILENCED), as a
     * like's or comment's null recipient_id. Decided once, so no bell moves when a limit changes.
     */
    notifies: integer('notifies').notNull().default(1),
  },
  (t) => [
    // Whom a person follows (the Following feed, "is following"), one follow per pair.
    primaryKey({ columns: [t.followerId, t.followeeId] }),
    // A follower's accepted requests by time, for their Notifications screen: partial, so the
    // ordinary follow writes no entry here (kernel/notification-rules.ts, acceptedFor).
    index('follows_accepted_idx').on(t.followerId, t.createdAt).where(sql`accepted = 1`),
    // A person's followers by time: the followers list, the data export and the
    // Notifications screen's new followers (social/notifications-repository.ts). Its entries
    // carry follower_id, the rest of the primary key.
    index('follows_followee_time_idx').on(t.followeeId, t.createdAt),
  ],
);

/**
 * A follow waiting for a private account's approval (social/follows-repository.ts). Approving
 * moves it into follows; declining, cancelling or a block between the two deletes it.
 */
export const followRequests = sqliteTable(
  'follow_requests',
  {
    requesterId: integer('requester_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    targetId: integer('target_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // A private account's waiting requests by time (the Notifications screen), one per pair.
    primaryKey({ columns: [t.targetId, t.requesterId] }),
    // Whether the caller asked to follow someone ("Requested" on their profile).
    index('follow_requests_requester_idx').on(t.requesterId, t.targetId),
  ],
);

/**
 * Presigned raw uploads. A key belongs to the user it was presigned for and
 * becomes a post at most once; raw bytes live in private storage only.
 */
export const uploads = sqliteTable(
  'uploads',
  {
    key: text('key').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    contentType: text('content_type').notNull(),
    isProfilePicture: integer('is_profile_picture', { mode: 'boolean' }).notNull().default(false),
    /** pending (presigned) → uploaded (bytes stored) → used (turned into a post). */
    status: text('status', { enum: ['pending', 'uploaded', 'used'] }).notNull().default('pending'),
    size: integer('size'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('uploads_created_idx').on(t.status, t.createdAt)],
);

/** Accounts of the embedded identity provider (unused with an external provider). */
export const idpAccounts = sqliteTable(
  'idp_accounts',
  {
    /** Becomes the token's `sub`. */
    id: text('id').primaryKey(),
    username: text('username').notNull(),
    email: text('email').notNull(),
    /** scrypt$N$r$p$salt$hash (base64url parts). */
    passwordHash: text('password_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The username's confusable skeleton (kernel/text.ts): no two names may look alike. Null until backfilled. */
    usernameSkeleton: text('username_skeleton'),
    /** The first account made on an empty server: an operator (its tokens carry the operator role). */
    isFirst: integer('is_first', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    uniqueIndex('idp_accounts_username_unique').on(sql`${t.username} COLLATE NOCASE`),
    uniqueIndex('idp_accounts_email_unique').on(sql`${t.email} COLLATE NOCASE`),
    uniqueIndex('idp_accounts_skeleton_unique').on(t.usernameSkeleton),
  ],
);

export type User = typeof users.$inferSelect;
export type Post = typeof posts.$inferSelect;
export type Comment = typeof comments.$inferSelect;
export type Upload = typeof uploads.$inferSelect;
export type IdpAccount = typeof idpAccounts.$inferSelect;

/**
 * Sign-in attempts of the embedded provider, one row per attempt reserved for a
 * typed name or e-mail from one address (idp/login-throttle.ts). Kept in the
 * database so a restart does not forget them and every process shares them.
 */
export const loginAttempts = sqliteTable(
  'login_attempts',
  {
    /** `<typed identifier, lower case>\n<client address>`. */
    key: text('key').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('login_attempts_key_at_idx').on(t.key, t.at), index('login_attempts_at_idx').on(t.at)],
);

/** The per-identifier ceiling over every address: a leaky bucket of failed attempts. */
export const loginBuckets = sqliteTable('login_buckets', {
  /** The typed identifier, lower case. */
  key: text('key').primaryKey(),
  /** Attempts held, drained at the configured rate per hour since updated_at. */
  level: real('level').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Access tokens ended before their expiry (logout), by `jti`; a row is kept
 * until the token would have expired anyway (kernel/auth/revocations.ts).
 */
export const revokedTokens = sqliteTable(
  'revoked_tokens',
  {
    jti: text('jti').primaryKey(),
    /** The token's `exp`, in milliseconds. */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('revoked_tokens_expires_idx').on(t.expiresAt)],
);

/**
 * Every token of one account issued up to `before` is refused (kernel/auth/revocations.ts): a
 * password change or reset ends all sessions at once. `keepJti` names the one token the
 * changing session got in that same second, which stays valid.
 */
export const sessionCutoffs = sqliteTable('session_cutoffs', {
  /** The token's `sub`. */
  sub: text('sub').primaryKey(),
  /** Milliseconds; compared with the token's `iat` (seconds, so the whole second counts). */
  before: integer('before').notNull(),
  keepJti: text('keep_jti'),
});

/**
 * One-time password-reset links of the embedded provider (idp/password-resets.ts). Only the
 * SHA-256 of the link's secret is kept; a new link for an account replaces its unused ones.
 */
export const passwordResets = sqliteTable(
  'password_resets',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => idpAccounts.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** Who asked for it: an operator's username, or null for "Forgot password?" by e-mail. */
    createdBy: text('created_by'),
  },
  (t) => [index('password_resets_account_idx').on(t.accountId)],
);

/**
 * One person blocking another (moderation/blocks-repository.ts; the rule is in docs/api.md,
 * "Blocks and anonymity"). A block by name (post_id null) hides each one's named posts,
 * comments and profile from the other; a block of an anonymous post's author (post_id set)
 * hides that one post from the blocker and nothing else, so it never names or links its author.
 */
export const blocks = sqliteTable(
  'blocks',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    blockerId: integer('blocker_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    blockedId: integer('blocked_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Made as "block the author of this post" on an anonymous post: the blocker is never shown who. */
    viaAnonymousPost: integer('via_anonymous_post', { mode: 'boolean' }).notNull().default(false),
    /**
     * The anonymous post it was made on (blocks made since migration 0017): it hides that post
     * only. No foreign key: the block outlives the post, so its author stays unable to reach
     * the blocker. Null for a block by name, and for anonymous-post blocks made before 0017,
     * which keep acting as a block by name that never shows the name.
     */
    postId: integer('post_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // One block by name per pair; any number of anonymous-post blocks (one per post).
    uniqueIndex('blocks_named_pair_unique').on(t.blockerId, t.blockedId).where(sql`${t.postId} IS NULL`),
    // One block per post and blocker; NULLs differ, so it is also the blocker's list of blocks.
    uniqueIndex('blocks_blocker_post_unique').on(t.blockerId, t.postId),
    index('blocks_blocked_idx').on(t.blockedId, t.blockerId),
  ],
);

/**
 * A person's mute of a whole server (issue 50, item 2; moderation/server-mutes-repository.ts): its
 * people's posts, comments and notifications leave that person's own views. Nothing is sent to that
 * server and nobody else's views change. `host` as users.host spells it (host, or host:port). Each
 * mute also counts in the person's users.block_count and moves blocks_version, so the reads that
 * skip block checks for people with none skip these too, and the read workers' kept sets are renewed.
 */
export const serverMutes = sqliteTable(
  'server_mutes',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    host: text('host').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.host] })],
);

/**
 * A person's report of a post or a comment; open until an operator acts on the item. A report
 * another server sent (a `Flag`, federation/flags.ts) has no reporter here: only the server it
 * came from (`reporter_host`), as Mastodon names it, "a person on <host>" (migration 0041).
 */
export const reports = sqliteTable(
  'reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** Our person who reported it; null for a report another server sent. */
    reporterId: integer('reporter_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The server a report came from (host[:port]); null for our people's reports. */
    reporterHost: text('reporter_host'),
    /** The post reported, or the post of the comment reported. */
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    commentId: integer('comment_id').references(() => comments.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: ['spam', 'nudity', 'harassment', 'other'] }).notNull(),
    note: text('note').notNull().default(''),
    createdAt: integer('created_at').notNull(),
    /** Set when an operator dismissed the report or acted on its item. */
    resolvedAt: integer('resolved_at'),
    /**
     * The item's author's server this report was forwarded to (a `Flag` from our instance actor,
     * federation/flags.ts), and when: set on every open report of the item at once, so it is
     * forwarded once. Null when not forwarded.
     */
    forwardedTo: text('forwarded_to'),
    forwardedAt: integer('forwarded_at'),
  },
  (t) => [
    // At most one open report per person per item (a comment report's item is the comment).
    uniqueIndex('reports_open_unique')
      .on(t.reporterId, t.postId, sql`coalesce(${t.commentId}, 0)`)
      .where(sql`${t.resolvedAt} IS NULL`),
    // And one per other server per item: a flood of Flags from one server fills no page.
    uniqueIndex('reports_open_remote_unique')
      .on(t.reporterHost, t.postId, sql`coalesce(${t.commentId}, 0)`)
      .where(sql`${t.resolvedAt} IS NULL AND ${t.reporterHost} IS NOT NULL`),
    index('reports_open_idx').on(t.resolvedAt, t.createdAt),
    index('reports_comment_idx').on(t.commentId),
  ],
);

/** Every operator action, kept: who, when, what, why. */
export const moderationActions = sqliteTable(
  'moderation_actions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    operatorId: integer('operator_id').references(() => users.id, { onDelete: 'set null' }),
    /** The operator's name when acting (kept if the account goes). */
    operatorName: text('operator_name').notNull(),
    action: text('action', {
      enum: ['dismiss', 'remove_post', 'remove_comment', 'suspend', 'unsuspend', 'approve_join', 'reject_join', 'mark_sensitive',
        'change_registration', 'change_server_page', 'make_invite', 'withdraw_invite', 'make_reset_link', 'change_federation', 'change_remote_media', 'block_server',
        'unblock_server', 'allow_server', 'disallow_server', 'change_allow_list', 'forward_report'],
    }).notNull(),
    /** What it was done to, in words. */
    target: text('target').notNull(),
    /** Whose content or account it was: they see removals of their content with the reason. */
    targetUserId: integer('target_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** The caption or comment as it was, for the author's notice. */
    excerpt: text('excerpt').notNull().default(''),
    reason: text('reason').notNull().default(''),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('moderation_actions_target_idx').on(t.targetUserId, t.createdAt)],
);

/**
 * Operator rights of the embedded provider, held by an account (moderation/operators-repository.ts):
 * the server's first account, and the account that held a name in ADMIN_USERNAMES when it was
 * first seen listed. A name is granted once: the row stays when its account is removed (the users
 * row stays too, as a tombstone), so a newcomer who takes a freed operator name gets nothing.
 * Unused with an external provider, where the realm role decides.
 */
export const operatorGrants = sqliteTable(
  'operator_grants',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id),
    /** The name it was granted to, lower case: for a listed grant, the ADMIN_USERNAMES entry that must stay listed. */
    name: text('name').notNull(),
    reason: text('reason', { enum: ['first_account', 'admin_usernames'] }).notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // Each name is granted once, ever.
    uniqueIndex('operator_grants_name_unique').on(sql`${t.name} COLLATE NOCASE`),
    // And there is one first account.
    uniqueIndex('operator_grants_first_unique').on(t.reason).where(sql`${t.reason} = 'first_account'`),
  ],
);

/**
 * The second to tenth photos of an album (posts.photo_count > 1), in order: position 1 is the
 * album's second photo (the first is the posts row's own). Each has its own processed images
 * under `media/<media_key>/` and its own description; the post's stored_bytes counts them all.
 * Deleted with their post (ON DELETE CASCADE); their files are removed by whoever deletes it
 * (posts/post-writes-service.ts, people/account-removal-service.ts). WITHOUT ROWID (migration 0022, which
 * drizzle cannot declare).
 */
export const postPhotos = sqliteTable(
  'post_photos',
  {
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    mediaKey: text('media_key').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    mediumWidth: integer('medium_width').notNull().default(0),
    altText: text('alt_text').notNull().default(''),
  },
  // A page's albums are read by post id in one range each, in order (the primary key).
  (t) => [primaryKey({ columns: [t.postId, t.position] })],
);

/**
 * The server's own settings, one row (id 1), changed on the operator page
 * (registration/instance-repository.ts): who may join, and the name, description and rules
 * the landing page, sign-up, GET /api/instance, the title and the manifest show.
 * Created on the first start from REGISTRATION_MODE; the row wins after that.
 */
export const instanceSettings = sqliteTable('instance_settings', {
  id: integer('id').primaryKey(),
  registrationMode: text('registration_mode', { enum: ['open', 'approval', 'invite', 'closed'] }).notNull(),
  /** Members (not only operators) may make invite links. */
  membersCanInvite: integer('members_can_invite').notNull().default(0),
  name: text('name').notNull().default('Shower Beer'),
  description: text('description').notNull().default(''),
  /** One rule a line. */
  rules: text('rules').notNull().default(''),
  /** How to reach the operators (an e-mail address or a line of text), shown on "Forgot password?" and the landing page; '' when none. */
  contact: text('contact').notNull().default(''),
  /**
   * The operator's switch for federation (server/src/federation/plugin.ts): 1 on, 0 off. FEDERATION=on
   * or off in the environment overrides it; unset, this decides.
   */
  federationEnabled: integer('federation_enabled').notNull().default(0),
  /**
   * Allow-list mode (federation/domain-blocks.ts, migration 0038): 1 when only the servers in
   * federation_domain_allows federate, in and out.
   */
  federationAllowList: integer('federation_allow_list').notNull().default(0),
  /**
   * Authorized fetch (server/src/federation/fetch-access.ts): 1 serves people's objects only to
   * signed requests from servers not suspended, as Mastodon's secure mode does.
   */
  federationAuthorizedFetch: integer('federation_authorized_fetch').notNull().default(0),
  /** The most remote media's renditions may take, in bytes (0: no cap); federation/remote-media.ts. 5 GiB by default. */
  remoteMediaCapBytes: integer('remote_media_cap_bytes').notNull().default(5 * 1024 ** 3),
  /** Days a remote photo's renditions are kept before they are dropped, to be fetched again on view (0: kept). */
  remoteMediaRetentionDays: integer('remote_media_retention_days').notNull().default(30),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Invite links (registration/invites-repository.ts). Only the SHA-256 of the code is kept: the code
 * is shown once, to the person who made it. `uses` counts the accounts made with it, moved in
 * the same transaction that makes the account, so a one-use invite makes one account.
 */
export const invites = sqliteTable(
  'invites',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    codeHash: text('code_hash').notNull(),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    maxUses: integer('max_uses').notNull(),
    uses: integer('uses').notNull().default(0),
    revokedAt: integer('revoked_at'),
    /**
     * Why it was withdrawn (migration 0026): 'by_hand' (its maker or an operator), 'maker_suspended',
     * 'maker_removed', or 'members_off' (an operator turned "Members can invite" off).
     */
    revokedReason: text('revoked_reason'),
    /** Whether its maker was an operator when they made it: turning "Members can invite" off withdraws the others. */
    byOperator: integer('by_operator').notNull().default(0),
  },
  (t) => [uniqueIndex('invites_code_hash_unique').on(t.codeHash), index('invites_created_by_idx').on(t.createdBy, t.createdAt)],
);

/**
 * A post's hashtags (hashtags/hashtags-repository.ts), normalised (contract/entities.ts), one
 * row per tag and post: ActivityPub's `Hashtag` objects of a Note. The tag page reads one range
 * of the primary key, newest first, as Discover reads posts_feed_idx. created_at is the post's.
 * WITHOUT ROWID (migration 0027, which drizzle cannot declare). Goes with its post (cascade),
 * whoever deletes it.
 */
export const postHashtags = sqliteTable(
  'post_hashtags',
  {
    tag: text('tag').notNull(),
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tag, t.createdAt, t.postId] }),
    // An edit's or a removal's tags of one post.
    index('post_hashtags_post_idx').on(t.postId),
  ],
);

/**
 * Every tag in use and how many posts carry it, for search by prefix (`#sho` → showerbeer, 12).
 * Kept by triggers on post_hashtags (migration 0027): its rows also go by cascade from
 * deletes made elsewhere (a post's, an account's removal), which no repository sees. A tag
 * whose last post goes is deleted. WITHOUT ROWID.
 */
export const hashtags = sqliteTable('hashtags', {
  tag: text('tag').primaryKey(),
  postCount: integer('post_count').notNull().default(0),
});

/**
 * `@name` in a caption or a comment (social/mentions-repository.ts): ActivityPub's `Mention`
 * objects (`name` is its name, `@friend` or `@friend@host`; `mentioned_id` its href once local
 * people have one), and the "mentioned you" notifications, read by recipient and time as
 * follows are (social/notifications-repository.ts). Goes with its post or comment (cascade).
 */
export const mentions = sqliteTable(
  'mentions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    /** The comment that names them; null: the post's caption. */
    commentId: integer('comment_id').references(() => comments.id, { onDelete: 'cascade' }),
    /** Who wrote it (the post's or the comment's author). */
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The local person named; null: someone on another server (`@name@host`). */
    mentionedId: integer('mentioned_id').references(() => users.id, { onDelete: 'cascade' }),
    /** `@friend` or `@friend@host` as ActivityPub's Mention.name (the username's own case). */
    name: text('name').notNull(),
    /** Who is notified: mentioned_id, or null (oneself, or someone on another server). */
    recipientId: integer('recipient_id'),
    /** 1: written as an anonymous post's author (the caption, or their comment on it): the notification names nobody. */
    anonymous: integer('anonymous', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('mentions_recipient_idx').on(t.recipientId, t.createdAt).where(sql`${t.recipientId} IS NOT NULL`),
    index('mentions_post_idx').on(t.postId, t.commentId),
    index('mentions_comment_idx').on(t.commentId).where(sql`${t.commentId} IS NOT NULL`),
    index('mentions_user_idx').on(t.userId),
  ],
);

/**
 * Federation (server/src/federation/, off unless FEDERATION=on): the key pairs of each actor this
 * server speaks for, made once and kept (federation/federation-repository.ts). `actor` is Fedify's
 * actor identifier: a person's users.id as text, or 'instance' for the server's own actor. An RSA
 * pair signs HTTP requests, an Ed25519 pair Object Integrity Proofs. Kept when a person is removed:
 * the next slice signs the Delete of their actor with it. WITHOUT ROWID (migration 0030).
 */
export const federationKeys = sqliteTable(
  'federation_keys',
  {
    actor: text('actor').notNull(),
    /** 'RSASSA-PKCS1-v1_5' or 'Ed25519'. */
    algorithm: text('algorithm', { enum: ['RSASSA-PKCS1-v1_5', 'Ed25519'] }).notNull(),
    publicKeyJwk: text('public_key_jwk').notNull(),
    privateKeyJwk: text('private_key_jwk').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.actor, t.algorithm] })],
);

/**
 * Fedify's key-value store (federation/sqlite-kv-store.ts): its caches of remote documents and keys,
 * inbox idempotence, delivery bookkeeping. `key` is the JSON of Fedify's key array, so a prefix
 * lists as a range; `expires_at` null: kept until deleted.
 */
export const federationKv = sqliteTable(
  'federation_kv',
  {
    key: text('key').primaryKey(),
    value: text('value').notNull(),
    expiresAt: integer('expires_at'),
  },
  (t) => [index('federation_kv_expires_idx').on(t.expiresAt).where(sql`${t.expiresAt} IS NOT NULL`)],
);

/**
 * Fedify's message queue (federation/sqlite-message-queue.ts): deliveries and incoming activities
 * waiting to be processed. A row stays until its handler has finished, so one accepted before a
 * crash runs after the restart; `claimed_at` marks it taken by the running process.
 */
export const federationQueue = sqliteTable(
  'federation_queue',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The message as JSON. */
    message: text('message').notNull(),
    /** Messages with the same key run one at a time, in order (Fedify's orderingKey). */
    orderingKey: text('ordering_key'),
    /** Not before this time (ms): now plus the enqueue's delay. */
    runAt: integer('run_at').notNull(),
    createdAt: integer('created_at').notNull(),
    claimedAt: integer('claimed_at'),
  },
  (t) => [index('federation_queue_ready_idx').on(t.runAt, t.id).where(sql`${t.claimedAt} IS NULL`)],
);

/**
 * What this server knows of a person on another server (federation/remote-actors.ts), one row per
 * users row whose host is set: their actor's id and where to deliver to them. Refreshed when they
 * are looked up again or send us an activity and the copy is a day old.
 */
export const remoteActors = sqliteTable(
  'remote_actors',
  {
    userId: integer('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The actor's id (an https URL, or http on a loopback test server). */
    uri: text('uri').notNull(),
    inbox: text('inbox').notNull(),
    sharedInbox: text('shared_inbox'),
    /** Their profile page on their server. */
    url: text('url'),
    /** They approve their followers by hand (a locked account). */
    manuallyApprovesFollowers: integer('manually_approves_followers').notNull().default(0),
    fetchedAt: integer('fetched_at').notNull(),
  },
  (t) => [uniqueIndex('remote_actors_uri_unique').on(t.uri)],
);

/**
 * The Follow activity behind a follow or a follow request that crosses servers, either way
 * (federation/federation-follows.ts): its id, which Accept, Reject and Undo name. Ours are
 * `<actor>#follows/<followee>/<time>`; theirs are whatever their server gave. Removed with the
 * follow or the request. WITHOUT ROWID (migration 0031).
 */
export const federationFollows = sqliteTable(
  'federation_follows',
  {
    followerId: integer('follower_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    followeeId: integer('followee_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    activityUri: text('activity_uri').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.followerId, t.followeeId] }),
    // Whether one of our people has followers on other servers: the post triggers' test (migration 0032).
    index('federation_follows_followee_idx').on(t.followeeId),
  ],
);

/**
 * Posts of ours to tell other servers about (federation/post-activities.ts), written by triggers
 * on posts and post_photos in the transaction of the write itself (migration 0032), so that
 * every path that makes, edits or removes a post (the author, an operator, account removal, a
 * script) is told, and nothing acknowledged is lost in a crash. The federation worker reads them
 * in order, sends Create, Update or Delete, and removes them. Only posts of people with followers
 * on other servers are written: with federation off there are none.
 */
export const federationPostEvents = sqliteTable('federation_post_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  postId: integer('post_id').notNull(),
  userId: integer('user_id').notNull(),
  kind: text('kind', { enum: ['create', 'update', 'delete'] }).notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Our posts other servers were sent (a Create): what an edit updates and a removal deletes
 * there, and, once deleted, what our object URL answers 410 Gone for.
 */
export const federatedPosts = sqliteTable('federated_posts', {
  postId: integer('post_id').primaryKey(),
  userId: integer('user_id').notNull(),
  deliveredAt: integer('delivered_at').notNull(),
  deletedAt: integer('deleted_at'),
});

/**
 * Posts of people on other servers that came to us (federation/remote-posts.ts): the Note's id
 * each was made from, so a repeat is taken once and their server's Delete finds it. Goes with
 * the post.
 */
export const remotePosts = sqliteTable(
  'remote_posts',
  {
    postId: integer('post_id')
      .primaryKey()
      .references(() => posts.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
    /** 1: addressed to the Public collection; 0: to its author's followers only (a reply from here then goes to its author alone). */
    isPublic: integer('is_public').notNull().default(1),
  },
  (t) => [uniqueIndex('remote_posts_uri_unique').on(t.uri)],
);

/** Comments of people on other servers on our posts (federation/interactions.ts): the reply's Note id, for their Delete. */
export const remoteComments = sqliteTable(
  'remote_comments',
  {
    commentId: integer('comment_id')
      .primaryKey()
      .references(() => comments.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
  },
  (t) => [uniqueIndex('remote_comments_uri_unique').on(t.uri)],
);

/**
 * Likes and comments of our people on posts of other servers, to tell their authors' servers
 * (federation/interactions.ts): written by triggers on likes and comments in the write's own
 * transaction (migration 0034), drained in order by the federation worker.
 */
export const federationInteractionEvents = sqliteTable('federation_interaction_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind', { enum: ['like', 'unlike', 'comment', 'uncomment'] }).notNull(),
  postId: integer('post_id').notNull(),
  userId: integer('user_id').notNull(),
  /** The comment, for 'comment' and 'uncomment'. */
  commentId: integer('comment_id'),
  /** When the like or comment was made or taken back (ms). */
  createdAt: integer('created_at').notNull(),
});

/**
 * People of ours removed while followed by, or following, people of other servers
 * (federation/person-steps.ts): where to send the Delete of their actor. Written by account
 * removal's transaction, before their follows go, and removed once the Delete is queued.
 */
export const federationActorDeletions = sqliteTable('federation_actor_deletions', {
  userId: integer('user_id').primaryKey(),
  /** JSON array of { uri, inbox, sharedInbox } of the servers' people to tell. */
  recipients: text('recipients').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Deliveries to other servers that failed (federation/delivery-failures.ts), for the operator page:
 * each failed attempt, with whether it was the last one (a permanent status, or retries used up).
 * Kept for FAILURE_RETENTION_MS and at most FAILURE_ROWS_KEPT rows.
 */
export const federationDeliveryFailures = sqliteTable(
  'federation_delivery_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    host: text('host').notNull(),
    inbox: text('inbox').notNull(),
    activityType: text('activity_type').notNull(),
    /** The inbox's HTTP status; null when the server could not be reached at all. */
    status: integer('status'),
    error: text('error').notNull(),
    /** The attempt that failed, from 0. */
    attempt: integer('attempt').notNull(),
    /** 1: no more retries for this delivery. */
    gaveUp: integer('gave_up').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('federation_delivery_failures_created').on(t.createdAt)],
);

/**
 * The operator's blocks of other servers (federation/domain-blocks.ts; issue 50, item 1), in
 * Mastodon's terms so that its block lists import and export as they are: `suspend` (nothing in or
 * out, their people and all they left here removed), `limit` (Mastodon's "silence") or `noop`
 * (only the flags below). A domain covers its subdomains; an entry with a port is that host only.
 */
export const federationDomainBlocks = sqliteTable('federation_domain_blocks', {
  domain: text('domain').primaryKey(),
  severity: text('severity', { enum: ['suspend', 'limit', 'noop'] }).notNull(),
  rejectMedia: integer('reject_media').notNull().default(0),
  rejectReports: integer('reject_reports').notNull().default(0),
  /** Shown to anyone who asks why (the export); '' when none. */
  publicComment: text('public_comment').notNull().default(''),
  /** For operators only. */
  privateComment: text('private_comment').notNull().default(''),
  /** Mastodon's "obfuscate": the domain partly hidden where it is shown in public. */
  obfuscate: integer('obfuscate').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * The servers that federate while allow-list mode is on (instance_settings.federation_allow_list;
 * federation/domain-blocks.ts), named as blocks name them: a domain covers its subdomains, a
 * host:port is that server only.
 */
export const federationDomainAllows = sqliteTable('federation_domain_allows', {
  domain: text('domain').primaryKey(),
  /** For operators only: why it is listed; '' when none. */
  comment: text('comment').notNull().default(''),
  createdAt: integer('created_at').notNull(),
});

/**
 * Each photo of a post from another server, and each remote profile picture (federation/remote-media.ts):
 * the address it was fetched from, kept so that it can be fetched again once its renditions were
 * dropped (the cap, or the retention period), and the size they take while stored. Goes with the post.
 */
export const remoteMedia = sqliteTable(
  'remote_media',
  {
    mediaKey: text('media_key').primaryKey(),
    postId: integer('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** The stored renditions' bytes; 0 while dropped. */
    bytes: integer('bytes').notNull(),
    /** When its renditions were stored; null while dropped. */
    storedAt: integer('stored_at'),
  },
  (t) => [index('remote_media_post').on(t.postId), index('remote_media_stored').on(t.storedAt)],
);
