// Discovery for large catalogs: tools as TypeScript declarations, a BM25 ranking over them,
// `searchTools` and `describeTools` for scripts, and the code-only run_js description.
// A plain comment: a doc comment here would be read as the first export's.
export { schemaToType, DEFAULT_MAX_COMMENT_CHARS, type SchemaTypeOptions } from './schema-type.js';
export { renderDeclaration, renderDeclarations, type DeclaredTool, type DeclarationOptions } from './declarations.js';
export { buildToolIndex, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type ToolIndex, type RankedTool, type RankedToolSource } from './ranking.js';
export {
  searchTools,
  describeTools,
  createToolCatalog,
  groupOfTool,
  groupsOf,
  type CatalogEntry,
  type ToolDescription,
  type UnknownTool,
  type DescribedTools,
  type ToolGroup,
  type ToolCatalog,
  type ToolCatalogOptions,
} from './catalog.js';
export { renderCodeOnlyDescription, DEFAULT_LIST_UP_TO_CHARS, type CodeOnlyDescriptionOptions } from './script-description.js';
export { createScriptDiscovery, type ScriptDiscovery, type ScriptDiscoveryOptions, type ScriptReach } from './script-discovery.js';
