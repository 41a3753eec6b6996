// `npm run lint`: ESLint's and typescript-eslint's recommended rules everywhere, the rules of hooks
// in the web app, and import rules that hold the layers in place (docs/architecture.md):
//
//   server: contract  ←  kernel  ←  <capability>/ (each may use the capabilities capabilityUses lists)
//           ←  app.ts, api.ts (the wiring)  ←  server.ts
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

/** The folders directly under `dir`: a new one is held to the rules without being listed. */
const foldersOf = (dir) =>
  readdirSync(new URL(dir, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/**
 * The server's capabilities: every folder of server/src but the contract and the kernel. Each may
 * import the kernel and the contract, and of the other capabilities only those listed here (the
 * direction docs/architecture.md states, "The rooms"); a capability not listed imports none. So a
 * new folder (hashtags/, federation/) is covered at once, and may use another capability only once
 * this says so.
 */
const capabilityUses = {
  media: ['people'],
  posts: ['media', 'people'],
  feeds: ['posts', 'hashtags'],
  hashtags: ['posts'],
  social: ['posts'],
  people: ['registration'],
  moderation: ['posts', 'social', 'people'],
  idp: ['registration'],
  web: ['registration'],
  federation: ['social', 'posts'],
};
const capabilities = foldersOf('./server/src').filter((f) => f !== 'contract' && f !== 'kernel');
const wiring = [server('app.ts'), server('api.ts'), server('server.ts'), server('person-steps.ts')];

const serverZones = [
  // The API contract (the answers' schemas the web app takes as types) imports nothing of ours.
  { ...forbid(server('contract'), server(''), 'contract/ is what the web app may read: it imports nothing of ours.'), except: ['./contract'] },
  forbid(
    server('kernel'),
    [...capabilities.map(server), ...wiring],
    'kernel/ is what every capability stands on: it imports the contract and nothing above it (hand a capability\'s part in, as people/suspension.ts is handed the invites).',
  ),
  ...capabilities.map((c) =>
    forbid(
      server(c),
      [...capabilities.filter((o) => o !== c && !(capabilityUses[c] ?? []).includes(o)).map(server), ...wiring],
      `${c}/ imports the kernel, the contract${(capabilityUses[c] ?? []).length ? ` and ${capabilityUses[c].join(', ')}` : ''}: another capability's services reach it as the instance's decorations, declared in its plugin's dependencies (eslint.config.js, capabilityUses).`,
    ),
  ),
];

/** Every folder under web/src/features: a new feature is held to the rule without being listed. */
const features = foldersOf('./web/src/features');
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
      // The server's API contract is shared as types only (web/tsconfig.json's @server/contract/* and
      // @server/prerender); of its values only contract/format.ts's pure
      // readableBytes, so sizes read the same on both sides, and contract/entities.ts's parser, so
      // a #tag or @name is a link exactly where the server found one.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^@server/(?!contract/(format|entities)$)', allowTypeImports: true, message: 'The web app takes only types from the server (server/src/contract), and contract/format.ts and contract/entities.ts.' },
            { group: ['**/server/src/**'], allowTypeImports: true, message: 'The web app takes only types from the server, through @server/contract/*.' },
          ],
        },
      ],
    },
  },
  {
    // The service worker runs in its own global scope, not a page's or Node's.
    files: ['web/public/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
);
