import type { CompileSite, CompiledMapping } from './scope.js';

/**
 * Compile a mapping (any JSON value: strings, objects, arrays, nested) into an accessor.
 * Placeholder signature; the implementation lands with the reference compiler.
 */
export declare function compileMapping(value: unknown, site: CompileSite): CompiledMapping;
