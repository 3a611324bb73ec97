#!/usr/bin/env node
// A tiny static file server (node:http, no dependency) for the browser example: serves the repository root so
// that examples/browser/ can import the package's own bundle from dist/browser/. Loopback only.
//
//   npm run build && node scripts/serve-examples.mjs [--port 8080]
//   → open http://localhost:8080/examples/browser/
//
// With --port 0 it picks a free port; the first line on stdout is always the page's URL (the browser test reads it).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const i = process.argv.indexOf('--port');
const port = i > 0 ? Number(process.argv[i + 1]) : 8080;

const server = createServer(async (req, res) => {
  try {
    let path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = normalize(join(root, path));
    // Never serve outside the repository (../ in the path).
    if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep))
      throw Object.assign(new Error(), { code: 'ENOENT' });
    const info = await stat(file);
    if (info.isDirectory()) {
      res.writeHead(302, { location: `${path}/` }).end();
      return;
    }
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (e) {
    const missing = e && (e.code === 'ENOENT' || e.code === 'ENOTDIR');
    res.writeHead(missing ? 404 : 500, { 'content-type': 'text/plain' }).end(missing ? 'not found\n' : 'error\n');
  }
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`http://localhost:${address.port}/examples/browser/`);
});
