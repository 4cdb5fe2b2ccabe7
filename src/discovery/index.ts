/**
 * Discovery for large catalogs: tools as TypeScript declarations, a BM25 ranking over them,
 * `searchTools` and `describeTools` for scripts, and the code-only run_js description.
 */
export { schemaToType, DEFAULT_MAX_COMMENT_CHARS, type SchemaTypeOptions } from './schema-type.js';
export { renderDeclaration, renderDeclarations, type DeclaredTool, type DeclarationOptions } from './declarations.js';
export { buildToolIndex, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type ToolIndex, type RankedTool, type RankedToolSource } from './ranking.js';
