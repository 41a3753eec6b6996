// tap's loader for the server tests (package.json "tap"."node-arg"): Node 22 strips the types
// itself (process.features.typescript), so a test process loads no TypeScript compiler.
// Imports name the emitted file ('./x.js', as tsc wants); this hook finds './x.ts' beside it.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (err) {
      if (err?.code === 'ERR_MODULE_NOT_FOUND' && specifier.startsWith('.') && specifier.endsWith('.js')) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw err;
    }
  },
});
