/**
 * Sizes of what goes over the wire: o200k_base tokens from the real tokenizer, and UTF-8 bytes.
 * Nothing is estimated from characters.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

/** The o200k_base tokens of `text`. */
export function countTokens(text: string): number {
  return encode(text).length;
}

/** The UTF-8 bytes of `text`. */
export function countBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
