// Output shaping: grouping path and match lists, and presenting results outside toolweave.
// A plain comment: a doc comment here would be read as the first export's.
export {
  compressPathList,
  expandPathList,
  type CompressedPathList,
} from './path-list.js';
export { GROUPED_MARKER } from './path-list-grammar.js';
export { readerOf, forReader, RESULT_READER_KEY, type ResultReader } from './result-reader.js';
export { presentResult, outputText, PresentedError, type PresentedResult } from './present-result.js';
