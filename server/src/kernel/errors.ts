import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** The one error shape every route answers with, `{ error, message }`: the API contract's. */
export { ErrorBody } from '../contract/answers.js';

/** An error a client caused; thrown anywhere, answered with its status and code. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(statusCode: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new HttpError(400, 'invalid_request', message);
export const unauthorized = (message = 'A valid bearer token is required.') =>
  new HttpError(401, 'unauthorized', message, { 'www-authenticate': 'Bearer' });
export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);
export const notFound = (message: string) => new HttpError(404, 'not_found', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
export const payloadTooLarge = (message: string) => new HttpError(413, 'payload_too_large', message);
export const unsupportedMediaType = (message: string) => new HttpError(415, 'unsupported_media_type', message);
export const unprocessable = (message: string) => new HttpError(422, 'unprocessable_image', message);

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  408: 'request_timeout',
  409: 'conflict',
  411: 'length_required',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
};

/**
 * Maps every error to `{ error, message }`. Client errors keep their message
 * (Fastify's validation messages say which field is wrong); anything else is
 * logged and answered with a generic 500 that leaks nothing.
 */
export function errorHandler(err: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) {
  if (err instanceof HttpError) {
    return reply.code(err.statusCode).headers(err.headers).send({ error: err.code, message: err.message });
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  if (err.validation) {
    const context = err.validationContext ?? 'request';
    return reply.code(400).send({ error: 'invalid_request', message: `${context}${err.message.startsWith('/') ? '' : ' '}${err.message.replace(/^(body|querystring|params|headers)\s*/, '')}` });
  }
  if (status < 500) {
    return reply.code(status).send({ error: CODES[status] ?? 'client_error', message: err.message });
  }
  request.log.error({ err }, 'unhandled error');
  return reply.code(500).send({ error: 'internal_error', message: 'Something went wrong on our side. Please try again.' });
}
