/**
 * Observation ids: `obs_` and 20 base32 characters (100 bits). Random by default, so an id can
 * be neither guessed nor enumerated: a store that serves many users relies on it, alongside
 * scopes. A seeded source gives reproducible ids of the same length, for tests and benchmarks.
 */
import { createHash, randomBytes } from 'node:crypto';

/**
 * What every observation id starts with.
 *
 * @category Observations
 */
export const OBSERVATION_ID_PREFIX = 'obs_';
/** The characters after the prefix: lowercase base32 (RFC 4648), easy to read and to copy. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** How many characters follow the prefix: 20 of 5 bits each. */
const ID_CHARACTERS = 20;

/** What every id this library issues looks like. */
const ID_SHAPE = /^obs_[a-z2-7]{20}$/u;

/**
 * Whether `id` has the shape of an id this library issues (random or seeded).
 *
 * @category Observations
 */
export function isObservationId(id: string): boolean {
  return ID_SHAPE.test(id);
}

/** The id whose characters are the low 5 bits of the first 20 bytes (uniform for random bytes). */
function idFromBytes(bytes: Uint8Array): string {
  let id = OBSERVATION_ID_PREFIX;
  for (let index = 0; index < ID_CHARACTERS; index++) id += ALPHABET[bytes[index] & 31];
  return id;
}

/**
 * A fresh random observation id (`obs_` and 20 base32 characters, 100 bits from the system's CSPRNG).
 *
 * @category Observations
 */
export function newObservationId(): string {
  return idFromBytes(randomBytes(ID_CHARACTERS));
}

/**
 * A source of reproducible ids: the same `seed` gives the same ids in the same order, each as
 * long as a random one.
 *
 * Anyone who knows the seed can compute them: for tests and benchmarks only.
 *
 * @category Observations
 */
export function seededObservationIds(seed: string): () => string {
  let counter = 0;
  return () => idFromBytes(createHash('sha256').update(`${seed}:${++counter}`).digest());
}
