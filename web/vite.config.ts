import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
    // react-router is hoisted to the root node_modules, where an older React lives (for tap's ink):
    // always use this workspace's React.
    dedupe: ['react', 'react-dom'],
  },
  css: { modules: { localsConvention: 'camelCaseOnly' } },
  build: { target: 'es2022', sourcemap: false, assetsInlineLimit: 0 },
  server: {
    // `npm run dev -w web` proxies the API and provider to a server on :3000.
    proxy: Object.fromEntries(
      ['/api', '/oauth2', '/config.json', '/media', '/uploads', '/.well-known', '/healthz'].map((p) => [p, 'http://localhost:3000']),
    ),
  },
});
