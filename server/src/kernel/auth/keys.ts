import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

export const SIGNING_ALG = 'RS256';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public half, as published in the JWKS. */
  publicJwk: JWK;
}

/**
 * The embedded provider's signing key: generated on first start and kept in
 * DATA_DIR/keys (mode 0600) so tokens stay valid across restarts.
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'signing-key.json');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true, modulusLength: 2048 });
    const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: SIGNING_ALG, use: 'sig' };
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(jwk), { mode: 0o600 });
    renameSync(tmp, file); // atomic: two servers starting at once agree on one key
  }
  chmodSync(file, 0o600);
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK & { kid: string };
  const privateKey = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
  const { kty, n, e, kid } = jwk;
  return { kid, privateKey, publicJwk: { kty, n, e, kid, alg: SIGNING_ALG, use: 'sig' } };
}
