// `pnpm run view`'s server: read-only, loopback only, answering from the view site (nothing outside the run directories).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ViewSite } from './view-site.js';

/** A running viewer. */
export interface ViewServer {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `site` on 127.0.0.1 (`port` 0: any free port). GET and HEAD only; a path the site does not know is 404, so
 * no file outside the run directories is ever read (the site maps a fixed set of URL shapes to its runs).
 *
 * @example const server = await startViewServer(createViewSite(['runs/sim_8e9e3bd3']), 0); console.log(server.url);
 */
export async function startViewServer(site: ViewSite, port: number): Promise<ViewServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let path: string;
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      path = url.pathname + url.search;
    } catch {
      response.writeHead(400).end();
      return;
    }
    site.get(path).then(
      (page) => {
        response
          .writeHead(page.status, {
            'content-type': page.type,
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          })
          .end(request.method === 'HEAD' ? undefined : page.body);
      },
      (error: unknown) => {
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(error instanceof Error ? error.message : String(error));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
