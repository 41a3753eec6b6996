// A photo's way to the storage: presigned by the server, then PUT straight to the storage
// (docs/architecture.md, "Upload"). What the upload becomes (a post, an album, a profile picture)
// is the area's call: posts.ts and people.ts.
import { ApiError, request } from '@/lib/api/client';
import type * as answers from '@server/contract/answers';
import type { Static } from 'typebox';

/** Presigns and sends the file; answers the storage key that create-post names it by. */
export async function upload(file: File, isProfilePicture: boolean, onProgress?: (fraction: number) => void): Promise<string> {
  const { uploadUrl, s3Key } = await request<Static<typeof answers.PresignedUpload>>('/api/presign-upload', {
    method: 'POST',
    body: isProfilePicture
      ? { fileName: file.name, fileType: file.type, isProfilePicture: true }
      : { fileName: file.name, fileType: file.type },
  });
  await putFile(uploadUrl, file, onProgress);
  return s3Key;
}

/** PUT the file to the presigned address: no bearer token, the file's type as Content-Type. */
function putFile(url: string, file: File, onProgress?: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', file.type);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
    };
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new ApiError(xhr.status, `The storage refused the upload (${xhr.status}): ${xhr.responseText}`));
    // An S3 server's refusal (expired or tampered link) carries no CORS headers, so the browser
    // reports it as a network error: status 0, no body to read.
    xhr.onerror = () =>
      reject(new ApiError(0, 'Upload failed: the storage refused the upload link or could not be reached'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload aborted'));
    xhr.send(file);
  });
}
