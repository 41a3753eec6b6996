import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/kernel/db/schema.ts',
  out: '../migrations',
});
