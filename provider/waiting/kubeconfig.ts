/**
 * A kubeconfig read with `yaml` instead of @kubernetes/client-node, whose ES module costs about 0.4 s of
 * CPU to load: every preview reads the cluster from the program's process (rollout impact, boot images,
 * machine specs), and every waiter's check and diff reads the server. Plain functions that require
 * their packages inside, as the serialized providers that call them need (provider/dynamic/common.ts).
 */

/** The current context's cluster and user entries, as client-go resolves them. */
export interface CurrentContext {
  cluster?: Record<string, unknown>;
  user?: Record<string, unknown>;
}

type Named = { name?: unknown } & Record<string, unknown>;

/**
 * The cluster and user of the context `current-context` names, each found by name in its list
 * (client-go's clientcmd, DirectClientConfig.getContext/getCluster/getAuthInfo). Throws when the text
 * is not a YAML mapping.
 */
export function currentContext(kubeconfig: string): CurrentContext {
  const { parse } = require("yaml") as typeof import("yaml");
  const config = (parse(kubeconfig) ?? {}) as Record<string, unknown>;
  if (typeof config !== "object" || Array.isArray(config))
    throw new Error("not a kubeconfig: a YAML mapping is expected");
  const entry = (list: unknown, name: unknown, field: string) => {
    const found = Array.isArray(list)
      ? (list as Array<Named | null>).find((e) => e?.name === name && name !== undefined)
      : undefined;
    const value = found?.[field];
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  };
  const context = entry(config.contexts, config["current-context"], "context");
  return {
    cluster: entry(config.clusters, context?.cluster, "cluster"),
    user: entry(config.users, context?.user, "user"),
  };
}

/** How requests reach the API server when the kubeconfig holds its credentials itself. */
export interface StaticConnection {
  server: URL;
  /**
   * TLS options and headers: certificate files read on each call, a token file at most once per
   * TOKEN_FILE_REREAD_MS (a rotated certificate or token is picked up).
   */
  options(): import("node:https").RequestOptions & { headers: Record<string, string> };
  /**
   * After a 401 to a request sent with the `Authorization` header `sent`: reads the token file again
   * at once, and says whether it now holds another token, which the request may be sent again with.
   * False without a token file.
   */
  renewed(sent: string | undefined): boolean;
}

/**
 * How long a token read from a file is used before the file is read again: client-go's cached file
 * token source (transport.NewCachedFileTokenSource: a token valid for a minute, read again 10 s before,
 * its `leeway`), which the kubelet's rotation of a projected service-account token is paced for.
 */
export const TOKEN_FILE_REREAD_MS = 50_000;

/**
 * The connection of a kubeconfig whose current user carries its credentials (a token or token file,
 * a client certificate, basic auth) and whose cluster needs no proxy: the fields the Kubernetes client
 * applies to a request for such a kubeconfig (client-node's KubeConfig.applyHTTPSOptions and
 * applyAuthorizationHeader; the same fields as client-go's rest.Config in clientcmd's
 * DirectClientConfig.ClientConfig). Undefined when the client must compute them: an exec plugin or an
 * auth provider fetches the token, and a proxy needs its agent. Throws without a current cluster.
 */
export function staticConnection(
  kubeconfig: string,
  now: () => number = Date.now,
): StaticConnection | undefined {
  const { cluster, user = {} } = currentContext(kubeconfig);
  if (typeof cluster?.server !== "string" || cluster.server === "")
    throw new Error("the kubeconfig has no current cluster");
  if (user.exec || user["auth-provider"] || cluster["proxy-url"]) return undefined;
  const fs = require("node:fs") as typeof import("node:fs");
  const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const bytes = (file: unknown, data: unknown) => {
    if (text(file)) return fs.readFileSync(text(file)!);
    return text(data) ? Buffer.from(text(data)!, "base64") : undefined;
  };
  const server = new URL(cluster.server);
  // client-go reads `tokenFile`, client-node `token-file`: either, after an inline token.
  const tokenFile = text(user.token) ? undefined : (text(user.tokenFile) ?? text(user["token-file"]));
  const cached: { token?: string; readAt: number } = { readAt: -Infinity };
  const fromFile = () => {
    if (now() - cached.readAt < TOKEN_FILE_REREAD_MS) return cached.token;
    try {
      cached.token = fs.readFileSync(tokenFile!, "utf8").trim();
      cached.readAt = now();
    } catch (e) {
      // The last token read stays in use while the file cannot be read (cachingTokenSource.Token).
      if (cached.token === undefined) throw e;
    }
    return cached.token;
  };
  return {
    server,
    renewed: (sent) => {
      if (!tokenFile) return false;
      cached.readAt = -Infinity;
      return `Bearer ${fromFile()}` !== sent;
    },
    options: () => {
      const headers: Record<string, string> = {};
      const token = text(user.token) ?? (tokenFile ? fromFile() : undefined);
      if (token) headers.Authorization = `Bearer ${token}`;
      if (text(user.as)) headers["Impersonate-User"] = text(user.as)!;
      const options: ReturnType<StaticConnection["options"]> = { headers };
      if (text(user.username)) options.auth = `${text(user.username)}:${text(user.password) ?? ""}`;
      // Over plain HTTP (a `kubectl proxy` kubeconfig) there is no TLS to configure.
      if (server.protocol !== "https:") return options;
      const ca = bytes(cluster["certificate-authority"], cluster["certificate-authority-data"]);
      const cert = bytes(user["client-certificate"], user["client-certificate-data"]);
      const key = bytes(user["client-key"], user["client-key-data"]);
      if (ca) options.ca = ca;
      if (cert) options.cert = cert;
      if (key) options.key = key;
      if (cluster["insecure-skip-tls-verify"] === true) options.rejectUnauthorized = false;
      if (text(cluster["tls-server-name"])) options.servername = text(cluster["tls-server-name"]);
      return options;
    },
  };
}
