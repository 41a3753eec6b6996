import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/kernel/kernel/db/schema.ts',
  out: '../migrations',
});
