// The data export's data.json (GET /api/export, docs/api.md "Your data export"): the one
// place its fields are spelled. The export service types what it writes from these
// schemas, and the tests validate a real export against ExportData, so the documented
// format and the written one cannot drift apart silently. Imports nothing of ours.
import { Type, type Static, type TSchema } from 'typebox';

/** Says what the file is, for a program that finds it without the zip around it. */
export const EXPORT_FORMAT = 'shower-beer-export';
/** Raised when a field changes meaning or goes away; new fields alone do not raise it. */
export const EXPORT_VERSION = 1;

/** Where the photos sit in the zip (the largest stored rendition: WebP, longest side ≤ 1440 px). */
export const PROFILE_PICTURE_FILE = 'profile-picture.webp';
export const photoFile = (postId: number) => `photos/${postId}.webp`;
/** An album's photo after the first (position 1 is its second photo): `photos/<id>-2.webp`, `photos/<id>-3.webp`… */
export const albumPhotoFile = (postId: number, position: number) => `photos/${postId}-${position + 1}.webp`;
export const earlierPictureFile = (postId: number) => `profile-pictures/${postId}.webp`;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Id = Type.Integer({ minimum: 1 });
const Count = Type.Integer({ minimum: 0 });
/** ISO 8601 in UTC, as every API answer gives times. */
const Time = Type.String({ format: 'date-time' });
const closed = { additionalProperties: false } as const;

export const ExportProfile = Type.Object(
  {
    id: Id,
    username: Type.String(),
    email: Nullable(Type.String()),
    createdAt: Time,
    /** The zip entry of the current profile picture, or null when there is none. */
    profilePicture: Nullable(Type.Literal(PROFILE_PICTURE_FILE)),
    /** Set while an operator has suspended the account. */
    suspension: Nullable(Type.Object({ since: Time, reason: Type.String() }, closed)),
    /** A private account: its named posts are for its followers (docs/api.md, "Private accounts"). */
    isPrivate: Type.Boolean(),
  },
  closed,
);

export const ExportPost = Type.Object(
  {
    id: Id,
    createdAt: Time,
    caption: Type.String(),
    /** The description of the photo for people who cannot see it; null when the post has none. */
    altText: Nullable(Type.String()),
    /** Posted without the name: still the person's own, so it is in their export. */
    isAnonymous: Type.Boolean(),
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
    likeCount: Count,
    commentCount: Count,
    /** The author's last edit of the caption or a description; null when never edited. */
    editedAt: Nullable(Time),
    /**
     * What the post said before each edit, oldest first (empty when never edited): the caption
     * and every photo's description then, and since when it had said so (docs/api.md, "Editing a post").
     */
    earlierVersions: Type.Array(
      Type.Object(
        {
          createdAt: Time,
          caption: Type.String(),
          altText: Nullable(Type.String()),
          photos: Type.Array(Type.Object({ altText: Nullable(Type.String()) }, closed), { minItems: 1, maxItems: 10 }),
        },
        closed,
      ),
    ),
    /** The zip entry of its photo: `photos/<id>.webp` (an album's first). */
    photo: Type.String({ pattern: '^photos/[1-9][0-9]*\\.webp$' }),
    /**
     * Every photo of the post in order, the first being `photo` above; an album's others are
     * `photos/<id>-2.webp` to `photos/<id>-10.webp` (docs/api.md, "Albums").
     */
    photos: Type.Array(
      Type.Object(
        {
          photo: Type.String({ pattern: '^photos/[1-9][0-9]*(-([2-9]|10))?\\.webp$' }),
          altText: Nullable(Type.String()),
          width: Type.Integer({ minimum: 1 }),
          height: Type.Integer({ minimum: 1 }),
        },
        closed,
      ),
      { minItems: 1, maxItems: 10 },
    ),
  },
  closed,
);

export const ExportEarlierPicture = Type.Object(
  {
    id: Id,
    createdAt: Time,
    /** `profile-pictures/<id>.webp`. */
    photo: Type.String({ pattern: '^profile-pictures/[1-9][0-9]*\\.webp$' }),
  },
  closed,
);

/** Whose post a comment or like is on: null when that post is someone else's anonymous one. */
const PostAuthor = Nullable(Type.String());

export const ExportComment = Type.Object(
  { id: Id, postId: Id, postAuthor: PostAuthor, createdAt: Time, content: Type.String() },
  closed,
);

export const ExportLike = Type.Object({ postId: Id, postAuthor: PostAuthor, createdAt: Time }, closed);

export const ExportFollow = Type.Object({ username: Type.String(), createdAt: Time }, closed);

export const ExportData = Type.Object(
  {
    format: Type.Literal(EXPORT_FORMAT),
    version: Type.Literal(EXPORT_VERSION),
    exportedAt: Time,
    profile: ExportProfile,
    /** Oldest first, anonymous ones included. */
    posts: Type.Array(ExportPost),
    /** Profile pictures replaced by a newer one and still stored, oldest first. */
    earlierProfilePictures: Type.Array(ExportEarlierPicture),
    /** The comments the person wrote, on anyone's posts, oldest first. */
    comments: Type.Array(ExportComment),
    /** The posts the person liked, by post (oldest post first), each with when they liked it. */
    likes: Type.Array(ExportLike),
    /** The people the person follows, by account (oldest first). */
    following: Type.Array(ExportFollow),
    /** The people who follow the person, since when, oldest first. */
    followers: Type.Array(ExportFollow),
    /** Follow requests the person made to private accounts that have not answered yet, by account. */
    followRequestsSent: Type.Array(ExportFollow),
    /** Follow requests waiting for the person's answer (a private account), by account. */
    followRequestsReceived: Type.Array(ExportFollow),
  },
  closed,
);

export type ExportProfileView = Static<typeof ExportProfile>;
export type ExportPostView = Static<typeof ExportPost>;
export type ExportEarlierPictureView = Static<typeof ExportEarlierPicture>;
export type ExportCommentView = Static<typeof ExportComment>;
export type ExportLikeView = Static<typeof ExportLike>;
export type ExportFollowView = Static<typeof ExportFollow>;
export type ExportDataView = Static<typeof ExportData>;
