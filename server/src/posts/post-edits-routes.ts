import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParam, PostEdit } from '../contract/api-shapes.js';
import { PostVersions } from '../contract/answers.js';
import { parseId } from '../kernel/paging.js';
import type { PostChanges } from './post-edits-repository.js';
import { cleanAltText, cleanCaption } from './post-text.js';
import { sensitivityOf } from './content-warnings-service.js';
import { badRequest } from '../kernel/errors.js';
import { errors, writeErrors } from '../kernel/route-schemas.js';

const RawText = Type.String({ maxLength: 20_000 });

/**
 * The author's edit, checked and cleaned exactly as when posting (posts/post-text.ts): the
 * caption, and the photos' descriptions either as `altText` (the first photo) or as `photos`, a
 * description per photo by its place in the post. Whether the post has that photo is checked
 * with the post, in the edit's transaction (posts/post-edits-repository.ts).
 */
function changesOf(body: { caption?: string; altText?: string; photos?: Array<{ index: number; altText: string }> }): PostChanges | undefined {
  const changes: PostChanges = {};
  if (body.caption !== undefined) changes.caption = cleanCaption(body.caption);
  if (body.altText !== undefined && body.photos !== undefined) throw badRequest('Give the description either as altText or in photos, not both.');
  if (body.altText !== undefined) changes.altTexts = new Map([[0, cleanAltText(body.altText)]]);
  if (body.photos !== undefined) {
    const altTexts = new Map<number, string>();
    for (const photo of body.photos) {
      if (altTexts.has(photo.index)) throw badRequest(`photos[].index ${photo.index} is given twice.`);
      altTexts.set(photo.index, cleanAltText(photo.altText));
    }
    changes.altTexts = altTexts;
  }
  return changes.caption === undefined && changes.altTexts === undefined ? undefined : changes;
}

/** Editing a post (its author) and its earlier versions (anyone who sees it): docs/api.md, "Editing a post". */
const postEditRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { postEdits, contentWarnings } = fastify;

  fastify.patch(
    '/post',
    {
      schema: {
        querystring: Type.Object({ postId: IdParam }),
        body: Type.Object(
          {
            caption: Type.Optional(RawText),
            /** The first photo's description (a post of one photo: its only one). */
            altText: Type.Optional(RawText),
            /** Each photo's description by its place in the post (0 the first). */
            photos: Type.Optional(
              Type.Array(Type.Object({ index: Type.Integer({ minimum: 0, maximum: 9 }), altText: RawText }, { additionalProperties: false }), {
                minItems: 1,
                maxItems: 10,
              }),
            ),
            /** Marks the post sensitive, or not (docs/api.md, "Content warnings"); its warning goes with it. */
            sensitive: Type.Optional(Type.Boolean()),
            contentWarning: Type.Optional(RawText),
          },
          { additionalProperties: false },
        ),
        response: { 200: PostEdit, ...writeErrors },
      },
    },
    async (request) => {
      const text = changesOf(request.body);
      const sensitivity = sensitivityOf(request.body);
      if (text === undefined && sensitivity === undefined) throw badRequest('Say what to change: caption, altText, photos or sensitive.');
      return contentWarnings.edit(parseId(request.query.postId, 'postId'), request.user.id, text, sensitivity);
    },
  );

  fastify.get(
    '/post-versions',
    {
      schema: {
        querystring: Type.Object({ postId: IdParam }),
        response: { 200: PostVersions, ...errors },
      },
    },
    async (request) =>
      postEdits.versions(parseId(request.query.postId, 'postId'), request.user.id).map((v, i) => ({
        caption: v.caption,
        altText: v.altText,
        ...(v.photoAlts.length > 0 && { photos: [v.altText, ...v.photoAlts].map((altText) => ({ altText })) }),
        created_at: new Date(v.writtenAt).toISOString(),
        current: i === 0,
      })),
  );
};

export default postEditRoutes;
