import type { FastifyReply, FastifyRequest } from 'fastify';
import { gzipSync } from 'node:zlib';

/** Whether a request's Accept-Encoding takes this coding (any q above 0). Also picks the pages' coding (web/plugin.ts). */
export function accepts(header: string | undefined, coding: 'br' | 'gzip'): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name!.trim().toLowerCase() !== coding) return false;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  });
}

/** Adds Accept-Encoding to the answer's Vary (after Origin, Authorization…): its body depends on that header. */
export function varyOnAcceptEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
}

/** JSON answers smaller than this go as they are: the headers are most of what they cost. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * gzip at level 1. Measured on the bench's data (docs/performance.md, "API answers"): a
 * Discover page of 10 posts, 6,534 → 1,454 bytes in 69 µs; a profile's 30 posts,
 * 20,317 → 3,053 bytes in 75 µs. Brotli at quality 1–3 gave the same sizes (1,387–1,517 and
 * 2,893–3,102 bytes) in 56–161 µs, and higher levels of either cost more than they save here,
 * so one coding, the one every client takes.
 */
const GZIP_LEVEL = 1;

/**
 * onSend hook for the API (api.ts): its JSON answers of COMPRESS_MIN_BYTES or more go
 * gzip-compressed to a client that takes gzip. A phone on mobile data waits for every byte
 * of a feed page before the first photo can show. Streams (the export's zip) and answers that
 * already carry a Content-Encoding pass as they are. Every JSON answer says it varies with
 * Accept-Encoding, so no cache hands a compressed copy to a client that did not ask for it.
 */
export async function compressJson(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.startsWith('application/json') || reply.hasHeader('content-encoding')) return payload;
  varyOnAcceptEncoding(reply);
  if (Buffer.byteLength(payload) < COMPRESS_MIN_BYTES || !accepts(request.headers['accept-encoding'], 'gzip')) return payload;
  reply.removeHeader('content-length');
  reply.header('content-encoding', 'gzip');
  return gzipSync(payload, { level: GZIP_LEVEL });
}
