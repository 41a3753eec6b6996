// How sizes are printed, the same on both sides: the server's quota messages
// (media/media-service.ts) and the web app's storage and export lines. The one value
// of the contract the web app may import (eslint.config.js lets it, web/vite.config.ts
// resolves @server/contract/*): a pure function, importing nothing.

/** A size as people read it: 512 KB, 3.4 MB, 1 GB. */
export function readableBytes(bytes: number): string {
  const units: [number, string][] = [[1024 ** 3, 'GB'], [1024 ** 2, 'MB'], [1024, 'KB']];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}
