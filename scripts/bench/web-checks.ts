import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface FirstScreenJs {
  files: { file: string; bytes: number; gzip: number }[];
  gzipTotal: number;
  builtAt: Date;
}

/**
 * The JavaScript a browser must load for the first screen: index.html's
 * module entry scripts (and modulepreloads) plus everything they import
 * statically, transitively. Dynamic `import()` chunks are left out.
 */
export function firstScreenJs(distDir: string): FirstScreenJs | null {
  const indexFile = join(distDir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const html = readFileSync(indexFile, 'utf8');
  const entries = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"[^>]*>/g)) entries.add(m[1]!);
  for (const m of html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"[^>]*>/g)) entries.add(m[1]!);
  for (const m of html.matchAll(/<link\b[^>]*href="([^"]+)"[^>]*rel="modulepreload"[^>]*>/g)) entries.add(m[1]!);

  const seen = new Set<string>();
  const queue = [...entries].filter((src) => !/^[a-z]+:\/\//i.test(src)).map((src) => normalize(join(distDir, src.replace(/^\//, ''))));
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    // Static imports in minified ES modules: `import"./x.js"`, `from"./x.js"`, `export*from"./x.js"`.
    const statics = code.matchAll(/(?:\bimport|\bfrom)\s*["']([^"']+\.m?js)["']/g);
    for (const m of statics) {
      const spec = m[1]!;
      const target = spec.startsWith('/') ? join(distDir, spec) : join(dirname(file), spec);
      queue.push(normalize(target));
    }
  }
  const files = [...seen].map((file) => {
    const bytes = readFileSync(file);
    return { file: file.slice(distDir.length + 1), bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  return { files, gzipTotal: files.reduce((s, f) => s + f.gzip, 0), builtAt: statSync(indexFile).mtime };
}
