/**
 * Sizes in UTF-8 bytes, the unit limits are stated in. A cut must land between characters:
 * half a multibyte character decodes to U+FFFD and wastes the bytes it was meant to save.
 */

/** The UTF-8 size of `text` (a lone surrogate counts 3 bytes, as it encodes to U+FFFD). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes without splitting a
 * character (a surrogate pair is kept whole or dropped whole).
 */
export function cutUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const codePoint = text.codePointAt(index) as number;
    const size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += codePoint > 0xffff ? 2 : 1;
  }
  return text.slice(0, index);
}

/**
 * The length of the longest prefix of UTF-8 `bytes` that ends between characters: a character
 * whose last bytes are missing (the bytes were cut by position) is dropped whole.
 */
export function wholeCharacterLength(bytes: Uint8Array): number {
  let lead = bytes.length - 1;
  // At most three continuation bytes (10xxxxxx) precede the end of a cut character.
  while (lead >= 0 && bytes.length - lead < 4 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead < 0) return 0;
  const first = bytes[lead];
  const size = first < 0x80 ? 1 : first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : 2;
  return lead + size <= bytes.length ? bytes.length : lead;
}
