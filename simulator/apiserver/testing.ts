/** Helpers for the API server's tests: a started server and raw HTTPS requests against it. */
import * as fs from "node:fs";
import * as https from "node:https";
import { CrdSchemas, defaultCrdDir } from "../schema";
import { MemoryStore, MemoryStoreOptions } from "../store/memory-store";
import { ApiServer, ApiServerOptions } from "./server";

/** The upstream CRDs, when they are there. */
export function testSchemas(): CrdSchemas | undefined {
  return fs.existsSync(defaultCrdDir()) ? CrdSchemas.load() : undefined;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

export interface TestServer {
  server: ApiServer;
  store: MemoryStore;
  request(
    method: string,
    path: string,
    options?: {
      body?: string | Buffer | object;
      contentType?: string;
      token?: string | null;
      accept?: string;
    },
  ): Promise<RawResponse>;
  stop(): Promise<void>;
}

/** Starts a server on an ephemeral port with the namespaces most tests need. */
export async function startTestServer(
  options: Partial<ApiServerOptions> & { storeOptions?: MemoryStoreOptions; namespaces?: string[] } = {},
): Promise<TestServer> {
  const store = options.store ?? new MemoryStore(options.storeOptions);
  for (const name of options.namespaces ?? ["default", "openshift-machine-api"]) {
    store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name }, status: { phase: "Active" } });
  }
  const server = await ApiServer.start({ schemas: testSchemas(), ...options, store });
  const request: TestServer["request"] = (method, path, opts = {}) =>
    new Promise((resolve, reject) => {
      const body =
        opts.body === undefined
          ? undefined
          : typeof opts.body === "string" || Buffer.isBuffer(opts.body)
            ? opts.body
            : JSON.stringify(opts.body);
      const headers: Record<string, string | number> = { Accept: opts.accept ?? "application/json" };
      if (opts.token !== null) headers.Authorization = `Bearer ${opts.token ?? server.token}`;
      if (body !== undefined) {
        headers["Content-Type"] = opts.contentType ?? "application/json";
        headers["Content-Length"] = Buffer.byteLength(body);
      }
      const req = https.request(
        { host: "127.0.0.1", port: server.port, path, method, headers, ca: server.caCert, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              json: () => JSON.parse(text),
            });
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return { server, store, request, stop: () => server.stop() };
}

/** A CRD as an operator's bundle ships one: a namespaced kind with a schema and a printer column. */
export const WIDGET_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: {
      kind: "Widget",
      listKind: "WidgetList",
      plural: "widgets",
      singular: "widget",
      shortNames: ["wg"],
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        additionalPrinterColumns: [{ name: "Value", type: "string", jsonPath: ".spec.value" }],
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { value: { type: "string" } } } },
          },
        },
      },
    ],
  },
};
