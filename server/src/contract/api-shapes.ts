// The shapes of a post and a comment as every client sees them: the one place they are
// spelled out. The routes validate and serialize with these schemas (and document them),
// the comment view (views.ts) and the Post writer (posts/page-json.ts) are typed from them, and
// the web app imports their types (web/src/lib/api.ts), so renaming a field here fails
// the typecheck on both sides. This file imports nothing of ours, so both can use it.
import { Type, type Static, type TSchema } from 'typebox';

/** `type: [T, 'null']` rather than anyOf, so responses serialize without a validation pass. */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

/** A post or comment id in a path or query: a numeric string (kernel/route-schemas.ts and posts/post-write-routes.ts). */
export const IdParam = Type.String({ pattern: '^[1-9][0-9]{0,14}$' });

export const Comment = Type.Object({
  comment_id: Type.Integer(),
  username: Nullable(Type.String()),
  content: Type.String(),
  created_at: Type.String(),
  userid: Nullable(Type.Integer()),
  isOwner: Type.Boolean(),
  cursor: Type.String(),
  /** The people it names (`@name`) who exist here, by username: the web app links those (issue 47). */
  mentions: Type.Array(Type.String()),
});

/**
 * A post marked sensitive (docs/api.md, "Content warnings"): its warning ('' when none), and
 * `blurred`: the photo fields are the server's blurred image (no medium rendition, no description,
 * no `photos`) until the viewer asks GET /api/post-photo; false for its author and for people who
 * always show them. The Post's and PostEdit's.
 */
const Sensitive = Type.Object({ warning: Type.String(), blurred: Type.Boolean() });

/** One photo of a post, with its own renditions, size and description (docs/api.md, "Albums"). */
export const Photo = Type.Object({
  s3Url: Type.String(),
  thumbnailUrl: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  mediumUrl: Nullable(Type.String()),
  mediumWidth: Type.Integer(),
  /** '' when the author gave none. */
  altText: Type.String(),
});

export const Post = Type.Object({
  postid: Type.Integer(),
  s3Url: Type.String(),
  thumbnailUrl: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  /** The same photo at mediumWidth wide, for srcset on phones; null (and mediumWidth 0) when the photo is not much wider. */
  mediumUrl: Nullable(Type.String()),
  mediumWidth: Type.Integer(),
  caption: Type.String(),
  /** The author's description of the photo, '' when they gave none (the web app then derives one from the caption). */
  altText: Type.String(),
  isAnonymous: Type.Boolean(),
  created_at: Type.String(),
  /** When its author last changed the caption or a photo's description; null: never edited (GET /api/post-versions lists what it said before). */
  editedAt: Nullable(Type.String()),
  username: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
  isOwner: Type.Boolean(),
  likeCount: Type.Integer(),
  likedByUser: Type.Boolean(),
  commentCount: Type.Integer(),
  comments: Type.Array(Comment),
  cursor: Type.String(),
  /**
   * An album's photos in order, 2 to 10; the first is the one the fields above describe (s3Url,
   * width, altText…), which every post has. Absent on a post of one photo: those fields are all of
   * it, and a feed page of single photos stays the size it was (docs/api.md, "Albums").
   */
  photos: Type.Optional(Type.Array(Photo, { minItems: 2, maxItems: 10 })),
  /** The people its caption names (`@name`) who existed when it was written, by username: the web app links those (issue 47). */
  mentions: Type.Array(Type.String()),
  /** Present only on a post marked sensitive (docs/api.md, "Content warnings"). */
  sensitive: Type.Optional(Sensitive),
});

/** GET /api/post-photo: a sensitive post's photo itself, asked for by "Show photo"; the Post's photo fields (and an album's `photos`). */
export const PostPhoto = Type.Object({
  s3Url: Type.String(),
  thumbnailUrl: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  mediumUrl: Nullable(Type.String()),
  mediumWidth: Type.Integer(),
  altText: Type.String(),
  photos: Type.Optional(Type.Array(Photo, { minItems: 2, maxItems: 10 })),
});

/** GET and PUT /api/account/sensitive-photos: "Always show sensitive photos". */
export const SensitivePhotos = Type.Object({ alwaysShow: Type.Boolean() });

/** An album's every description in order, the first included ('' when none): the edit's answer and each version. */
const AlbumAlts = Type.Optional(Type.Array(Type.Object({ altText: Type.String() }), { minItems: 2, maxItems: 10 }));

/** One version of a post's text (GET /api/post-versions): what it said from `created_at` until the next edit. Names nobody. */
export const PostVersion = Type.Object({
  caption: Type.String(),
  /** The (first) photo's description in this version ('' when none). */
  altText: Type.String(),
  /** An album's: every photo's description in this version, in order; absent for a post of one photo. */
  photos: AlbumAlts,
  /** When this text was written: the post's creation, or the edit that made it. */
  created_at: Type.String(),
  /** The text the post shows now (the first of the list). */
  current: Type.Boolean(),
});

/** PATCH /api/post's answer: the post's text as it stands after the edit. */
export const PostEdit = Type.Object({
  postid: Type.Integer(),
  caption: Type.String(),
  altText: Type.String(),
  editedAt: Nullable(Type.String()),
  /** An album's: every photo's description after the edit, in order; absent for a post of one photo. */
  photos: AlbumAlts,
  /** When the caption changed: the people it names now (as Post.mentions); absent: as they were. */
  mentions: Type.Optional(Type.Array(Type.String())),
  /** As the Post's: present while the post is marked sensitive (for its author never blurred). */
  sensitive: Type.Optional(Sensitive),
});

/** GET /api/user-posts: the signed-in person's own profile and a page of their posts. */
export const OwnProfile = Type.Object({
  username: Type.String(),
  email: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
  postCount: Type.Integer(),
  totalLikes: Type.Integer(),
  totalComments: Type.Integer(),
  followerCount: Type.Integer(),
  followingCount: Type.Integer(),
  /** The account is private: new follows are requests, named posts are for followers (docs/api.md, "Private accounts"). */
  isPrivate: Type.Boolean(),
  posts: Type.Array(Post),
});

/** GET /api/view-user-posts: someone else's profile and a page of their public posts. */
export const UserProfile = Type.Object({
  username: Type.String(),
  profilePictureUrl: Nullable(Type.String()),
  postCount: Type.Integer(),
  followerCount: Type.Integer(),
  followingCount: Type.Integer(),
  isFollowing: Type.Boolean(),
  /** The caller has blocked this person: no posts are listed until they unblock. */
  isBlocked: Type.Boolean(),
  /** A private account: unless the caller follows it, no posts are listed (docs/api.md, "Private accounts"). */
  isPrivate: Type.Boolean(),
  /** The caller's follow request waits for this private account's answer. */
  isRequested: Type.Boolean(),
  posts: Type.Array(Post),
});

/** GET /api/follow-requests: someone waiting for the caller's answer to follow them. */
export const FollowRequest = Type.Object({
  username: Type.String(),
  profilePictureUrl: Nullable(Type.String()),
  created_at: Type.String(),
});

/** PUT /api/account/privacy: the account's privacy after the change. */
export const Privacy = Type.Object({
  isPrivate: Type.Boolean(),
  /** Follow requests approved by making the account public again. */
  approved: Type.Integer(),
});

export type FollowRequestView = Static<typeof FollowRequest>;
export type PrivacyView = Static<typeof Privacy>;

export const LikeState = Type.Object({ likeCount: Type.Integer(), likedByUser: Type.Boolean() });
export const ProfileMatch = Type.Object({ username: Type.String(), profilePictureUrl: Nullable(Type.String()) });

export type CommentView = Static<typeof Comment>;
export type PostView = Static<typeof Post>;
export type PostVersionView = Static<typeof PostVersion>;
export type PostEditView = Static<typeof PostEdit>;
export type PostPhotoView = Static<typeof PostPhoto>;
export type SensitivePhotosView = Static<typeof SensitivePhotos>;
export type PhotoView = Static<typeof Photo>;
export type OwnProfileView = Static<typeof OwnProfile>;
export type UserProfileView = Static<typeof UserProfile>;
export type LikeStateView = Static<typeof LikeState>;
export type ProfileMatchView = Static<typeof ProfileMatch>;

// ---- Moderation (docs/api.md, "Moderation"): reports, operators, blocking ----

/** What a person may give as the reason of a report. */
export const ReportReason = Type.Union([
  Type.Literal('spam'),
  Type.Literal('nudity'),
  Type.Literal('harassment'),
  Type.Literal('other'),
]);

/** GET /api/me: who the signed-in person is to this server. */
export const Me = Type.Object({
  username: Type.String(),
  /** Decided by the server from the verified token (ADMIN_USERNAMES, first account, or the provider's role). */
  isOperator: Type.Boolean(),
  /** Set while an operator has suspended the account: every other API call answers 403 account_suspended. */
  suspension: Nullable(Type.Object({ reason: Type.String(), created_at: Type.String() })),
});

/** POST /api/reports answer. */
export const ReportReceipt = Type.Object({ reported: Type.Literal(true), message: Type.String() });

/** One reason given by one reporter. */
export const ReportReasonView = Type.Object({
  reason: ReportReason,
  note: Type.String(),
  created_at: Type.String(),
  /** The server a report came from ("a person on <host>": a Flag, federation/flags.ts); null for this server's people. */
  fromHost: Nullable(Type.String()),
});

/** An open report as an operator sees it: the item, its author (even when anonymous), every reason. */
export const AdminReport = Type.Object({
  kind: Type.Union([Type.Literal('post'), Type.Literal('comment')]),
  /** The post's or the comment's id. */
  itemId: Type.Integer(),
  /** The post the item is (or belongs to). */
  postId: Type.Integer(),
  /** The caption or the comment's text. */
  text: Type.String(),
  thumbnailUrl: Nullable(Type.String()),
  isAnonymous: Type.Boolean(),
  created_at: Type.String(),
  author: Type.String(),
  authorSuspended: Type.Boolean(),
  reporterCount: Type.Integer(),
  reasons: Type.Array(ReportReasonView),
  lastReportedAt: Type.String(),
  /** A reported post's last edit by its author; null when never edited (and for comments). */
  editedAt: Nullable(Type.String()),
  /** What a reported post said before each edit, newest first (empty for comments and unedited posts). */
  history: Type.Array(Type.Object({ caption: Type.String(), altText: Type.String(), photos: AlbumAlts, created_at: Type.String() })),
  /** A reported album's photos after the first (`thumbnailUrl`'s), in order, with their descriptions; empty otherwise. */
  albumPhotos: Type.Array(Type.Object({ thumbnailUrl: Type.String(), altText: Type.String() })),
  /** A reported post marked sensitive, with its warning ('' when none); absent otherwise. Operators always see the photo itself. */
  sensitive: Type.Optional(Type.Object({ warning: Type.String() })),
  /** The author's server when they are of another one: where "Forward" sends the reports; null for this server's people. */
  authorHost: Nullable(Type.String()),
  /** Where and when an operator forwarded these reports (a Flag); null when not forwarded. */
  forwarded: Nullable(Type.Object({ host: Type.String(), created_at: Type.String() })),
});

/** One recorded operator action. */
export const ModerationAction = Type.Object({
  id: Type.Integer(),
  operator: Type.String(),
  action: Type.Union([
    Type.Literal('dismiss'),
    Type.Literal('remove_post'),
    Type.Literal('remove_comment'),
    Type.Literal('suspend'),
    Type.Literal('unsuspend'),
    /** An answer to someone asking to join (approval mode; registration/registration-admin-routes.ts). */
    Type.Literal('approve_join'),
    Type.Literal('reject_join'),
    /** A reported post marked sensitive by an operator (docs/api.md, "Content warnings"). */
    Type.Literal('mark_sensitive'),
    /** The server's settings (issue 48): who may join, the server page, invite links, reset links (never the link itself). */
    Type.Literal('change_registration'),
    Type.Literal('change_server_page'),
    Type.Literal('make_invite'),
    Type.Literal('withdraw_invite'),
    Type.Literal('make_reset_link'),
    Type.Literal('change_federation'),
    Type.Literal('change_remote_media'),
    Type.Literal('block_server'),
    Type.Literal('unblock_server'),
    Type.Literal('allow_server'),
    Type.Literal('disallow_server'),
    Type.Literal('change_allow_list'),
    /** Reports of another server's post or comment forwarded there as a Flag (federation/flags.ts). */
    Type.Literal('forward_report'),
  ]),
  /** What it was done to, in words ("post 12 by alice", "alice"). */
  target: Type.String(),
  reason: Type.String(),
  created_at: Type.String(),
});

export const SuspendedUser = Type.Object({
  username: Type.String(),
  reason: Type.String(),
  created_at: Type.String(),
});

/** An operator of the embedded provider: the account and why it holds the role. */
export const Operator = Type.Object({
  username: Type.String(),
  grantedAs: Type.Union([Type.Literal('first_account'), Type.Literal('admin_usernames')]),
  since: Type.String(),
});

/** GET /api/admin/overview: everything the operator page shows, in one request. */
export const AdminOverview = Type.Object({
  figures: Type.Object({
    users: Type.Integer(),
    posts: Type.Integer(),
    storageBytes: Type.Integer(),
    suspendedUsers: Type.Integer(),
    openReports: Type.Integer(),
  }),
  reports: Type.Array(AdminReport),
  suspended: Type.Array(SuspendedUser),
  actions: Type.Array(ModerationAction),
  /**
   * Who is an operator. `accounts` (embedded provider): the accounts holding an operator grant in
   * effect, oldest first. `provider_role` (oidc): the provider's realm role decides; nobody is listed.
   */
  operators: Type.Object({
    source: Type.Union([Type.Literal('accounts'), Type.Literal('provider_role')]),
    accounts: Type.Array(Operator),
  }),
});

/** One person the caller blocked; `username` is null when blocked as "the author of this post" on an anonymous post. */
export const BlockedPerson = Type.Object({
  blockId: Type.Integer(),
  username: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
  created_at: Type.String(),
});

/** What an operator did to the caller's content, with the reason they gave. */
export const ModerationNotice = Type.Object({
  action: Type.Union([Type.Literal('remove_post'), Type.Literal('remove_comment'), Type.Literal('mark_sensitive')]),
  /** The caption or comment text as it was. */
  excerpt: Type.String(),
  reason: Type.String(),
  created_at: Type.String(),
});

export type MeView = Static<typeof Me>;
export type AdminReportView = Static<typeof AdminReport>;
export type AdminOverviewView = Static<typeof AdminOverview>;
export type ModerationActionView = Static<typeof ModerationAction>;
export type BlockedPersonView = Static<typeof BlockedPerson>;
export type ModerationNoticeView = Static<typeof ModerationNotice>;
export type ReportReasonName = Static<typeof ReportReason>;

// ---- Notifications (docs/api.md, "Notifications") ----

export const NotificationKind = Type.Union([
  Type.Literal('like'),
  Type.Literal('comment'),
  Type.Literal('follow'),
  /** "X mentioned you in a post" (issue 47); no actors when the post is anonymous: "Someone mentioned you". */
  Type.Literal('mention'),
  /** "X mentioned you in a comment". */
  Type.Literal('commentMention'),
  /** "X accepted your follow request": a private account approved yours (the actors are who approved). */
  Type.Literal('followAccepted'),
]);

/** Likes, comments or follows of one kind on one post (or of you) on one UTC day: "ale and 3 others liked your post". */
export const NotificationGroup = Type.Object({
  /** `<kind>.<postid or 0>.<day>`: the same group on every page and every poll. */
  groupId: Type.String(),
  kind: NotificationKind,
  /** The post liked or commented on (yours; anonymous ones too, seen only by you); null for follows. */
  post: Nullable(Type.Object({ postid: Type.Integer(), thumbnailUrl: Type.String() })),
  /** The UTC day, YYYY-MM-DD. */
  day: Type.String(),
  /** The newest people first, at most 3. */
  actors: Type.Array(Type.Object({ username: Type.String(), profilePictureUrl: Nullable(Type.String()) })),
  /** How many different people. */
  actorCount: Type.Integer(),
  /** How many likes, comments or follows (a person may comment more than once). */
  count: Type.Integer(),
  /** The newest comment's text, for comments. */
  excerpt: Nullable(Type.String()),
  latestAt: Type.String(),
  /** latestAt in ms since the epoch: `upTo` when marking read. */
  latestTime: Type.Integer(),
  /** Newer than what the person has seen. */
  unread: Type.Boolean(),
  /** `?cursor=` for the groups after this one. */
  cursor: Type.String(),
});

export const UnreadNotifications = Type.Object({ unread: Type.Integer() });

export type NotificationGroupView = Static<typeof NotificationGroup>;
export type NotificationKindName = Static<typeof NotificationKind>;

// --- the server's own page and who may join (docs/registration.md) ---

export const RegistrationModeName = Type.Union([Type.Literal('open'), Type.Literal('approval'), Type.Literal('invite'), Type.Literal('closed')]);

/** GET /api/instance, without a token: what the landing page, sign-up, the title and the manifest show. */
export const Instance = Type.Object({
  name: Type.String(),
  description: Type.String(),
  /** One rule per entry, in order. */
  rules: Type.Array(Type.String()),
  registrationMode: RegistrationModeName,
  /** Members (not only operators) may make invite links. */
  membersCanInvite: Type.Boolean(),
  /** How to reach the operators, as they wrote it (an e-mail address or a line of text); '' when none is set. */
  contact: Type.String(),
  /**
   * The operators' usernames (the embedded provider's accounts holding the role; empty when an
   * outside provider's realm role decides): whom to ask when no contact is set ("Forgot password?").
   */
  operators: Type.Array(Type.String()),
  /** The app's version (CHANGELOG.md), e.g. 0.4.0: what a self-hoster runs. */
  version: Type.String(),
});

/** An invite link as its maker (or an operator) sees it; the code itself is shown once, when it is made. */
export const InviteView = Type.Object({
  id: Type.Integer(),
  createdBy: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
  maxUses: Type.Integer(),
  uses: Type.Integer(),
  usesLeft: Type.Integer(),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('used_up'), Type.Literal('revoked')]),
  /**
   * Why a withdrawn link (state 'revoked') was withdrawn, else null: by its maker or an operator,
   * its maker suspended or removed, "Members can invite" turned off, or its maker otherwise unable
   * to act (waiting for approval or turned down).
   */
  withdrawnBecause: Type.Union([
    Type.Literal('by_hand'),
    Type.Literal('maker_suspended'),
    Type.Literal('maker_removed'),
    Type.Literal('members_off'),
    Type.Literal('maker_inactive'),
    Type.Null(),
  ]),
});

/** POST /api/invites: the new invite with its code and the link to hand over. */
export const NewInvite = Type.Object({ invite: InviteView, code: Type.String(), url: Type.String() });

/** An account waiting for an operator (approval mode). */
export const JoinRequestView = Type.Object({ username: Type.String(), reason: Type.String(), created_at: Type.String() });

export type InstanceView = Static<typeof Instance>;
export type InviteViewShape = Static<typeof InviteView>;
export type NewInviteView = Static<typeof NewInvite>;
export type JoinRequestShape = Static<typeof JoinRequestView>;
export type RegistrationModeValue = Static<typeof RegistrationModeName>;
