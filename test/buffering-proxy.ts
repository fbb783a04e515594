/**
 * A reverse proxy in front of an API server that holds each answer until it has ended, as proxies and
 * load balancers that buffer streamed responses do: a list passes whole, a watch says nothing until
 * the server ends it. Clients reach it over plain HTTP with their own bearer token (`kubeconfig`).
 */
import * as http from "node:http";
import * as https from "node:https";
import { AddressInfo } from "node:net";
import { stringify } from "yaml";

export interface BufferingProxy {
  /** A kubeconfig that reaches the API server through the proxy with `token`. */
  kubeconfig(token: string): string;
  /** Answers the proxy holds now: requests sent on, whose answer has not ended. */
  held(): number;
  stop(): Promise<void>;
}

export async function startBufferingProxy(upstream: string, ca?: string): Promise<BufferingProxy> {
  const target = new URL(upstream);
  const send = target.protocol === "https:" ? https.request : http.request;
  let holding = 0;
  const server = http.createServer((req, res) => {
    const forwarded = send(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
        ...(ca ? { ca } : {}),
      },
      (answer) => {
        holding++;
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("end", () => {
          const body = Buffer.concat(chunks);
          const headers = { ...answer.headers, "content-length": String(body.length) };
          delete headers["transfer-encoding"];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
        answer.on("close", () => holding--);
      },
    );
    forwarded.on("error", () => res.destroy());
    // A client that gives up on a held answer ends its request upstream too.
    res.on("close", () => forwarded.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    kubeconfig: (token) =>
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "proxied", cluster: { server: url } }],
        users: [{ name: "user", user: { token } }],
        contexts: [{ name: "proxied", context: { cluster: "proxied", user: "user" } }],
        "current-context": "proxied",
      }),
    held: () => holding,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
