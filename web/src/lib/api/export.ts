// "Download my data" (docs/api.md, "Your data export").
import { ApiError, call } from '@/lib/api/client';

/**
 * GET /api/export, read as it arrives. The server streams the zip without a Content-Length,
 * so `onProgress` gets the bytes received so far, not a fraction. The answer is kept as a Blob
 * (browsers keep big ones on disk) for the caller to save; `fileName` is the server's, when its
 * header is readable here.
 */
export async function downloadExport(
  onProgress: (bytesReceived: number) => void,
  signal?: AbortSignal,
): Promise<{ zip: Blob; fileName: string | null }> {
  const res = await call('/api/export', { signal }, 'application/zip, application/json');
  if (!res.body) throw new ApiError(0, 'This browser cannot read the download.');
  const reader = res.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      onProgress(received);
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    // The server cuts the connection when the export fails part-way: what came is not a whole zip.
    throw new ApiError(0, 'The download broke off before the end. Please try again.');
  }
  const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
  return { zip: new Blob(chunks, { type: 'application/zip' }), fileName };
}
