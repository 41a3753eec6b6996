// Every other answer of /api the web app reads, beside the post, profile and moderation shapes of
// api-shapes.ts: the routes serialize with these very schemas, and the web app takes their types
// (`@server/contract/answers`), so a field renamed here fails both typechecks. Like api-shapes.ts,
// this file imports nothing of ours but the contract.
import { Type, type Static } from 'typebox';
import {
  BlockedPerson,
  Comment,
  FollowRequest,
  InviteView,
  JoinRequestView,
  ModerationNotice,
  NotificationGroup,
  Nullable,
  Post,
  PostVersion,
  ProfileMatch,
  UnreadNotifications,
} from './api-shapes.js';

/**
 * The one error shape every route answers with: `{ error, message }`, declared once as the
 * schema the routes name for their error answers (the description is what the OpenAPI document
 * says of each). The web app reads `error` as its ApiError's code.
 */
export const ErrorBody = Type.Object({ error: Type.String(), message: Type.String() }, { description: 'An error: a code and a message for people.' });
export type ErrorBody = Static<typeof ErrorBody>;

// Lists of the shapes in api-shapes.ts, named so that both sides say the same thing.
export const Posts = Type.Array(Post);
export const Comments = Type.Array(Comment);
export const PostVersions = Type.Array(PostVersion);
export const ProfileMatches = Type.Array(ProfileMatch);
export const FollowRequests = Type.Array(FollowRequest);
export const NotificationGroups = Type.Array(NotificationGroup);

/** An operator's or a member's action that has nothing more to say (admin, join requests, invites). */
export const Done = Type.Object({ done: Type.Literal(true) });
/** An item's reports forwarded to its author's server (a Flag; federation/flags.ts): the host it went to. */
export const ReportForwarded = Type.Object({ forwardedTo: Type.String() });
/** A post, a comment or an account removed. */
export const Deleted = Type.Object({ deleted: Type.Literal(true) });

// Uploads and posting (media/).
export const PresignedUpload = Type.Object({ uploadUrl: Type.String(), s3Key: Type.String() });
export const ProfilePictureSet = Type.Object({ profilePictureUrl: Type.String() }, { additionalProperties: false });
/** A post as every feed shows it to its author, or a new profile picture's address. */
export const CreatedPost = Type.Union([Post, ProfilePictureSet]);
export const StorageUse = Type.Object({ usedBytes: Type.Integer(), quotaBytes: Type.Integer() });
/** The local driver's answer to a photo PUT to its signed address. */
export const UploadReceived = Type.Object({ ok: Type.Literal(true) });

// The account.
export const SyncedUser = Type.Object({
  username: Type.String(),
  email: Nullable(Type.String()),
  profilePictureUrl: Nullable(Type.String()),
});
export const SignedOut = Type.Object({ signedOut: Type.Boolean() });
export const PasswordChanged = Type.Object({
  accessToken: Type.String({ description: 'A new token for the session that made the change; every older token of the account is refused from now on.' }),
  expiresIn: Type.Integer({ description: 'Seconds until that token expires.' }),
});
export const ResetLink = Type.Object({
  url: Type.String({ description: 'The one-time link to hand to the person: it works once, for 24 hours.' }),
  expiresAt: Type.String({ format: 'date-time' }),
  emailed: Type.Boolean({ description: 'True when the link was also e-mailed to the account (SMTP_URL is set and the mail server took it).' }),
});

// Following.
export const FollowState = Type.Object({
  following: Type.Boolean(),
  /** The followee is private: the follow is a request waiting for their answer (docs/api.md, "Private accounts"). */
  requested: Type.Boolean(),
  followerCount: Type.Integer(),
});
export const Followers = Type.Array(Type.Object({ username: Type.String() }));
export const FollowApproved = Type.Object({ followerCount: Type.Integer() });
export const FollowDeclined = Type.Object({ declined: Type.Literal(true) });

// The bell: unread notifications, and the follow requests waiting for a private account.
export const UnreadCounts = Type.Object({ ...UnreadNotifications.properties, followRequests: Type.Integer() });

// Blocks and notices.
export const Blocked = Type.Object({ blocked: Type.Boolean() });
export const Blocks = Type.Object({ blocks: Type.Array(BlockedPerson) });
/** A person's mutes of whole servers (moderation/server-mute-routes.ts), newest first. */
export const ServerMutes = Type.Object({ mutes: Type.Array(Type.Object({ host: Type.String(), created_at: Type.String() })) });
export const ServerMuted = Type.Object({ host: Type.String(), muted: Type.Boolean() });
export const Notices = Type.Object({ notices: Type.Array(ModerationNotice) });

// Registration.
export const JoinRequests = Type.Object({ requests: Type.Array(JoinRequestView) });
export const Invites = Type.Object({ invites: Type.Array(InviteView) });
/** What an operator may change of the instance (PUT /api/admin/instance); the exact limits and their messages are the repository's. */
export const InstanceChange = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    /** Plain text, one rule a line. */
    rules: Type.Optional(Type.String({ maxLength: 20_000 })),
    /** Checked by the repository, so an unknown mode answers a message naming the modes. */
    registrationMode: Type.Optional(Type.String({ maxLength: 50 })),
    membersCanInvite: Type.Optional(Type.Boolean()),
    /** How to reach the operators ('' removes it); checked by the repository (at most 200 characters). */
    contact: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export type PostsView = Static<typeof Posts>;
export type CommentsView = Static<typeof Comments>;
export type PostVersionsView = Static<typeof PostVersions>;
export type ProfileMatchesView = Static<typeof ProfileMatches>;
export type FollowRequestsView = Static<typeof FollowRequests>;
export type NotificationGroupsView = Static<typeof NotificationGroups>;
export type DoneView = Static<typeof Done>;
export type DeletedView = Static<typeof Deleted>;
export type PresignedUploadView = Static<typeof PresignedUpload>;
export type ProfilePictureSetView = Static<typeof ProfilePictureSet>;
export type CreatedPostView = Static<typeof CreatedPost>;
export type StorageUseView = Static<typeof StorageUse>;
export type SyncedUserView = Static<typeof SyncedUser>;
export type SignedOutView = Static<typeof SignedOut>;
export type PasswordChangedView = Static<typeof PasswordChanged>;
export type ResetLinkView = Static<typeof ResetLink>;
export type FollowStateView = Static<typeof FollowState>;
export type FollowersView = Static<typeof Followers>;
export type FollowApprovedView = Static<typeof FollowApproved>;
export type FollowDeclinedView = Static<typeof FollowDeclined>;
export type UnreadCountsView = Static<typeof UnreadCounts>;
export type BlockedView = Static<typeof Blocked>;
export type BlocksView = Static<typeof Blocks>;
export type NoticesView = Static<typeof Notices>;
export type JoinRequestsView = Static<typeof JoinRequests>;
export type InvitesView = Static<typeof Invites>;
export type InstanceChangeView = Static<typeof InstanceChange>;

/** A hashtag a search found (GET /api/search-tags): the tag as stored (no `#`) and how many posts carry it. */
export const TagMatch = Type.Object({ tag: Type.String(), postCount: Type.Integer() });
export const TagMatches = Type.Array(TagMatch);
export type TagMatchView = Static<typeof TagMatch>;

/**
 * GET /api/admin/federation (and PUT's answer): federation on the operator page (issue 49, item 6):
 * whether it is on and who decided, the other servers known here, and the delivery queue with the
 * attempts that failed. Host names, counts and error lines only.
 */
export const FederationStatus = Type.Object({
  enabled: Type.Boolean(),
  /** environment: FEDERATION=on or off fixes it, and the switch here is locked. */
  setBy: Type.Union([Type.Literal('environment'), Type.Literal('operator')]),
  /** Why it cannot be turned on with this server's public address ('' when it can). */
  unavailable: Type.String(),
  /** People's objects are served only to signed requests from servers not suspended. */
  authorizedFetch: Type.Boolean(),
  /** How people here are found from other servers: @name@<this>. */
  handleHost: Type.String(),
  servers: Type.Array(
    Type.Object({ host: Type.String(), people: Type.Integer(), followers: Type.Integer(), following: Type.Integer() }),
  ),
  totals: Type.Object({ servers: Type.Integer(), people: Type.Integer(), followers: Type.Integer(), following: Type.Integer() }),
  queue: Type.Object({
    waiting: Type.Integer(),
    servers: Type.Array(Type.Object({ host: Type.String(), waiting: Type.Integer(), retrying: Type.Integer(), nextAttemptAt: Type.String() })),
  }),
  failures: Type.Array(
    Type.Object({
      host: Type.String(),
      activity: Type.String(),
      status: Nullable(Type.Integer()),
      error: Type.String(),
      /** Which attempt failed, from 1. */
      attempt: Type.Integer(),
      /** No more retries for this delivery. */
      gaveUp: Type.Boolean(),
      created_at: Type.String(),
    }),
  ),
  /** Deliveries given up on in the last 7 days. */
  gaveUpLastWeek: Type.Integer(),
});
export const FederationChange = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

/**
 * GET /api/admin/federation/media (and PUT's answer): remote media's cap and retention, and what it
 * takes now (issue 50, item 5; federation/remote-media.ts).
 */
export const RemoteMediaUse = Type.Object({
  /** Bytes the renditions of other servers' photos and pictures may take; 0: no cap. */
  capBytes: Type.Integer(),
  /** Days they are kept before they are dropped, to be fetched again when viewed; 0: kept. */
  retentionDays: Type.Integer(),
  storedBytes: Type.Integer(),
  /** Photos stored. */
  stored: Type.Integer(),
  /** Photos dropped, fetched again when someone views them. */
  dropped: Type.Integer(),
});
export const RemoteMediaChange = Type.Object(
  {
    capBytes: Type.Integer({ minimum: 0, maximum: 2 ** 50 }),
    retentionDays: Type.Integer({ minimum: 0, maximum: 3650 }),
  },
  { additionalProperties: false },
);

/** A block of another server, as the operator page lists it (docs/api.md, "Blocking servers"). */
export const DomainBlockView = Type.Object({
  domain: Type.String(),
  severity: Type.Union([Type.Literal('suspend'), Type.Literal('limit'), Type.Literal('noop')]),
  rejectMedia: Type.Boolean(),
  rejectReports: Type.Boolean(),
  publicComment: Type.String(),
  privateComment: Type.String(),
  obfuscate: Type.Boolean(),
});
export const DomainBlocks = Type.Object({ blocks: Type.Array(DomainBlockView) });
/** PUT /api/admin/federation/blocks: a block, new or changed (severity and texts checked by the repository). */
export const DomainBlockChange = Type.Object(
  {
    domain: Type.String({ maxLength: 300 }),
    severity: Type.Union([Type.Literal('suspend'), Type.Literal('limit'), Type.Literal('noop')]),
    rejectMedia: Type.Optional(Type.Boolean()),
    rejectReports: Type.Optional(Type.Boolean()),
    publicComment: Type.Optional(Type.String({ maxLength: 5000 })),
    privateComment: Type.Optional(Type.String({ maxLength: 5000 })),
    obfuscate: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const DomainBlockSaved = Type.Object({ block: DomainBlockView, removedPeople: Type.Integer() });
/** Allow-list mode and the servers on its list (docs/api.md, "Allow-list mode"). */
export const DomainAllowView = Type.Object({ domain: Type.String(), comment: Type.String() });
export const DomainAllows = Type.Object({ enabled: Type.Boolean(), allows: Type.Array(DomainAllowView) });
/** PUT /api/admin/federation/allows: a server put on the allow list (or its reason changed). */
export const DomainAllowChange = Type.Object(
  { domain: Type.String({ maxLength: 300 }), comment: Type.Optional(Type.String({ maxLength: 5000 })) },
  { additionalProperties: false },
);
/** PUT /api/admin/federation/allow-list: allow-list mode on or off. */
export const AllowListChange = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
/** POST /api/admin/federation/blocks/import: Mastodon's CSV as text. */
export const DomainBlockImport = Type.Object({ csv: Type.String({ maxLength: 2_000_000 }) }, { additionalProperties: false });
export const DomainBlockImported = Type.Object({
  imported: Type.Integer(),
  skipped: Type.Array(Type.Object({ line: Type.Integer(), reason: Type.String() })),
  removedPeople: Type.Integer(),
});
