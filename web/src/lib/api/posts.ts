// A post: made from uploaded photos, edited, removed, and its versions (docs/api.md, "Albums" and
// "Editing a post"). Feeds and profiles, which list posts, are feeds.ts.
import { request } from '@/lib/api/client';
import { upload } from '@/lib/api/uploads';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type Photo = Static<typeof shapes.Photo>;
export type Post = Static<typeof shapes.Post>;
export type PostEdit = Static<typeof shapes.PostEdit>;
export type PostVersion = Static<typeof shapes.PostVersion>;

export async function createPost(
  file: File,
  caption: string,
  isAnonymous: boolean,
  onProgress?: (fraction: number) => void,
  altText = '',
  sensitivity: Sensitivity = {},
): Promise<Post> {
  const s3Key = await upload(file, false, onProgress);
  return request<Post>('/api/create-post', { method: 'POST', body: { s3Key, caption, isAnonymous, altText, ...sensitivity } });
}

/**
 * An album (docs/api.md, "Albums"): every photo presigned and sent at once, then one
 * create-post with them in order. `onProgress` gets the share of all bytes sent and how many
 * photos have arrived. A refused create-post rejects with the server's message (ApiError).
 */
export async function createAlbum(
  photos: { file: File; altText: string }[],
  caption: string,
  isAnonymous: boolean,
  onProgress?: (fraction: number, done: number) => void,
  sensitivity: Sensitivity = {},
): Promise<Post> {
  const sent = photos.map(() => 0);
  let done = 0;
  const total = photos.reduce((sum, p) => sum + (p.file.size || 1), 0);
  const report = () => onProgress?.(photos.reduce((sum, p, i) => sum + sent[i]! * (p.file.size || 1), 0) / total, done);
  const keys = await Promise.all(
    photos.map(async ({ file }, i) => {
      const s3Key = await upload(file, false, (fraction) => {
        sent[i] = fraction;
        report();
      });
      sent[i] = 1;
      done++;
      report();
      return s3Key;
    }),
  );
  return request<Post>('/api/create-post', {
    method: 'POST',
    body: { caption, isAnonymous, photos: photos.map((p, i) => ({ s3Key: keys[i]!, altText: p.altText })), ...sensitivity },
  });
}

export const deletePost = (postId: number) =>
  request<Static<typeof answers.Deleted>>(`/api/post?postId=${postId}`, { method: 'DELETE' });

/** The author describes a photo anew, by its place (0 the first; '' takes the description away): an edit, as editPost's. */
export const updateAltText = (postId: number, altText: string, index = 0) =>
  request<PostEdit>(`/api/post?postId=${postId}`, { method: 'PATCH', body: { photos: [{ index, altText }] } });

/** The author changes the caption and the photos' descriptions (docs/api.md, "Editing a post"). */
export const editPost = (
  postId: number,
  changes: ({ caption: string; altText: string } | { caption: string; photos: Array<{ index: number; altText: string }> }) & Sensitivity,
) =>
  request<PostEdit>(`/api/post?postId=${postId}`, { method: 'PATCH', body: changes });

/** A post's text now and before each edit, newest first. */
export const getPostVersions = (postId: number) => request<Static<typeof answers.PostVersions>>(`/api/post-versions?postId=${postId}`);

// ---- Content warnings (docs/api.md, "Content warnings") ----

export type PostPhoto = Static<typeof shapes.PostPhoto>;
export type SensitivePhotos = Static<typeof shapes.SensitivePhotos>;
/** What create-post and an edit send to mark a post sensitive ({} leaves it as it is). */
export type Sensitivity = { sensitive?: boolean; contentWarning?: string };

/** "Show photo": a sensitive post's photo itself, which its blurred answer does not name. */
export const getPostPhoto = (postId: number) => request<PostPhoto>(`/api/post-photo?postId=${postId}`);

/** The author marks their post sensitive, with a warning, or not (an edit, as editPost's). */
export const setSensitive = (postId: number, sensitive: boolean, contentWarning: string) =>
  request<PostEdit>(`/api/post?postId=${postId}`, { method: 'PATCH', body: sensitive ? { sensitive, contentWarning } : { sensitive } });

export const getSensitivePhotos = () => request<SensitivePhotos>('/api/account/sensitive-photos');
export const setSensitivePhotos = (alwaysShow: boolean) =>
  request<SensitivePhotos>('/api/account/sensitive-photos', { method: 'PUT', body: { alwaysShow } });
