// `npm run lint`: ESLint's and typescript-eslint's recommended rules everywhere, the rules of hooks
// in the web app, and import rules that hold the layers in place (docs/architecture.md):
//
//   server: contract  ←  config, errors, lru  ←  storage, images, auth  ←  db  ←  domain  ←  feeds, media, idp
//           ←  routes  ←  plugins  ←  app.ts / server.ts
//   web:    lib  ←  components  ←  features/<one feature>  ←  app  ←  main.tsx
//
// An arrow points from what may be imported to what imports it; nothing imports
// against an arrow, and nothing imports in a circle (import/no-cycle).
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import importPlugin from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';

const server = (dir) => `./server/src/${dir}`;
const web = (dir) => `./web/src/${dir}`;

/** `target` may not import any of `from`. */
const forbid = (target, from, message) => ({ target, from, message });

const serverZones = [
  // The API contract (the answers' schemas the web app takes as types) imports nothing of ours.
  { ...forbid(server('contract'), server(''), 'contract/ is what the web app may read: it imports nothing of ours.'), except: ['./contract'] },
  { ...forbid([server('config.ts'), server('errors.ts'), server('lru.ts'), server('compression.ts')], server(''), 'config, errors, lru and compression are the bottom layer: they import nothing of ours but the contract.'), except: ['./contract'] },
  forbid([server('storage'), server('images'), server('auth')], [server('db'), server('domain'), server('feeds'), server('media'), server('idp'), server('routes'), server('plugins')], 'storage, images and auth sit below the database.'),
  forbid(server('db'), [server('domain'), server('feeds'), server('media'), server('idp'), server('routes'), server('plugins')], 'db/ is the bottom of the data layers: it imports no domain, feed, media, route or plugin code.'),
  forbid(server('domain'), [server('feeds'), server('media'), server('idp'), server('routes'), server('plugins')], 'domain/ holds the rules and SQL of each thing; it does not reach up into feeds, media, routes or plugins.'),
  forbid([server('feeds'), server('media'), server('idp')], [server('routes'), server('plugins')], 'feeds, media and idp are used by routes and plugins, not the other way round.'),
  forbid(server('feeds'), [server('media'), server('idp')], 'feeds/ reads posts; it does not depend on uploads or sign-in.'),
  forbid(server('media'), [server('feeds'), server('idp')], 'media/ handles uploads; it does not depend on feed reading or sign-in.'),
  forbid(server('idp'), [server('feeds'), server('media')], 'the sign-in pages do not depend on feeds or uploads.'),
  forbid(server('routes'), [server('plugins'), server('app.ts'), server('server.ts')], 'routes get their dependencies from the instance (decorated by the plugins), never import plugins.'),
];

/** Every folder under web/src/features: a new feature is held to the rule without being listed. */
const features = readdirSync(new URL('./web/src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const webZones = [
  forbid(web('lib'), [web('components'), web('features'), web('app'), web('main.tsx')], 'lib/ is shared code: it imports no components, features or app code.'),
  forbid(web('components'), [web('features'), web('app'), web('main.tsx')], 'components/ are shared by features: they import no feature or app code.'),
  forbid(web('features'), [web('app'), web('main.tsx')], 'features import lib and components, never the app.'),
  ...features.map((f) => ({ ...forbid(web(`features/${f}`), web('features'), 'a feature never imports another feature.'), except: [`./${f}`] })),
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'test-results/**', 'playwright-report/**', 'bench-data/**', 'data/**', '.tap/**', 'migrations/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { import: importPlugin },
    settings: {
      // Parse TypeScript files when following imports, or no-cycle sees no further than one file.
      ...importPlugin.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ noWarnOnMultipleProjects: true, project: ['server/tsconfig.json', 'web/tsconfig.json', 'tests/tsconfig.json', 'scripts/tsconfig.json'] })],
    },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'import/no-cycle': ['error', { ignoreExternal: true }],
      'import/no-self-import': 'error',
      'import/no-useless-path-segments': 'error',
      'import/no-duplicates': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['server/src/**/*.ts'],
    rules: { 'import/no-restricted-paths': ['error', { zones: serverZones }] },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // The two classic rules of hooks. The React Compiler rules that v7's recommended set adds
      // (refs, set-state-in-effect) flag use-paged-list's ref-backed state, which is deliberate.
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      'import/no-restricted-paths': ['error', { zones: webZones }],
      // The server's API contract is shared as types only (web/tsconfig.json's @server/contract/*,
      // @server/api-shapes and @server/prerender); nothing of the server is bundled.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@server/*', '@server/**', '**/server/src/**'], allowTypeImports: true, message: 'The web app takes only types from the server (server/src/contract).' }] },
      ],
    },
  },
  {
    // The service worker runs in its own global scope, not a page's or Node's.
    files: ['web/public/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
);
