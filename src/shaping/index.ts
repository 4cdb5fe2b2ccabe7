/**
 * Output shaping: grouping path and match lists, and measuring text in lines and UTF-8 bytes.
 */
export {
  compressPathList,
  expandPathList,
  shapePathList,
  type CompressedPathList,
  type ShapedPathList,
} from './path-list.js';
export { GROUPED_MARKER, type GroupedUnit } from './path-list-grammar.js';
export { looksLikePathList } from './looks-like-path-list.js';
export { splitLines } from './text-lines.js';
export { cutUtf8, utf8ByteLength } from './utf8.js';
export { readerOf, forReader, RESULT_READER_KEY, type ResultReader } from './result-reader.js';
export { presentResult, outputText, PresentedError, type PresentedResult } from './present-result.js';
