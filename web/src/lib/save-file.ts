/** Hands a Blob to the browser's download, as a link click would; the URL is let go once the save has started. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked at once, some browsers cancel the save they were about to start.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
