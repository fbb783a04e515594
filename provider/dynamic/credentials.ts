/**
 * Which kubeconfig an operation reaches the cluster with. Tokens expire (an `oc login` token lives a
 * day), so the copy stored with a waiter is a last resort: create and update use the one the program
 * gives now, read and delete the one of the process running them ($KUBECONFIG, else ~/.kube/config,
 * else in a pod its service account's), and only when that is missing or names another cluster, the
 * stored copy. Serialized with the providers (see common.ts): plain functions, packages required
 * inside them.
 */
import { currentContext } from "../waiting/kubeconfig";

/**
 * Where a pod's service account is mounted (client-go rest.InClusterConfig, its tokenFile and
 * rootCAFile; clientcmd inClusterClientConfig.Possible and Namespace).
 */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Names another directory than SERVICE_ACCOUNT_DIR to read the service account from: for tests, which
 * cannot write there. pulumi-kubernetes always reads SERVICE_ACCOUNT_DIR.
 */
export const SERVICE_ACCOUNT_DIR_ENV = "OPENSHIFT_TOPOLOGY_SERVICE_ACCOUNT_DIR";

/** What an ambient kubeconfig is: read from files, or made of the pod's service account. */
export interface AmbientKubeconfig {
  /** What was read, for messages: files, or `the pod's service account (<dir>)`. */
  file: string;
  /** Absent when nothing could be read. */
  text?: string;
  /** Made of the pod's service account (inClusterKubeconfig). */
  inCluster?: boolean;
}

/**
 * The kubeconfig of the pod's service account when the process runs in a pod, as client-go's in-cluster
 * configuration: possible when $KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT are set and the
 * token is a file (clientcmd inClusterClientConfig.Possible); the server
 * `https://<host>:<port>` (rest.InClusterConfig, net.JoinHostPort), the token named by its file so that
 * each connection reads it as the kubelet rotates it (BearerTokenFile), the CA file when it holds
 * certificates (else the system's, as certutil.NewPool failing leaves CAFile unset), and the namespace
 * of $POD_NAMESPACE, else the namespace file (inClusterClientConfig.Namespace). Undefined outside a pod.
 */
export function inClusterKubeconfig(env: NodeJS.ProcessEnv = process.env): AmbientKubeconfig | undefined {
  const path = require("node:path") as typeof import("node:path");
  const fs = require("node:fs") as typeof import("node:fs");
  const dir = env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR;
  const [host, port] = [env.KUBERNETES_SERVICE_HOST ?? "", env.KUBERNETES_SERVICE_PORT ?? ""];
  const token = path.join(dir, "token");
  const isFile = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  if (host === "" || port === "" || !isFile(token)) return undefined;
  const read = (name: string) => {
    try {
      return fs.readFileSync(path.join(dir, name), "utf8");
    } catch {
      return "";
    }
  };
  const ca = path.join(dir, "ca.crt");
  const namespace = env.POD_NAMESPACE || read("namespace").trim();
  const { stringify } = require("yaml") as typeof import("yaml");
  const text = stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "in-cluster",
        cluster: {
          server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
          ...(read("ca.crt").includes("-----BEGIN CERTIFICATE-----") ? { "certificate-authority": ca } : {}),
        },
      },
    ],
    users: [{ name: "in-cluster", user: { tokenFile: token } }],
    contexts: [
      {
        name: "in-cluster",
        context: { cluster: "in-cluster", user: "in-cluster", ...(namespace ? { namespace } : {}) },
      },
    ],
    "current-context": "in-cluster",
  });
  return { file: `the pod's service account (${dir})`, text, inCluster: true };
}

/**
 * Whether client-go finds nothing to connect with in a kubeconfig (clientcmd
 * DirectClientConfig.ConfirmUsable: ErrEmptyConfig when the only problem is a cluster without any
 * field), which makes DeferredLoadingClientConfig.ClientConfig turn to the in-cluster configuration:
 * the context (`overrides.context`, else current-context) is unset or exists, and the cluster it
 * names (`overrides.cluster`, else the context's) has no entry, or an empty one. A context named but
 * missing, a cluster without a server, or text that is no kubeconfig are errors instead.
 */
export function isEmptyKubeconfig(
  text: string,
  overrides: { context?: string; cluster?: string } = {},
): boolean {
  const { parse } = require("yaml") as typeof import("yaml");
  let config: Record<string, unknown>;
  try {
    config = (parse(text) ?? {}) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof config !== "object" || Array.isArray(config)) return false;
  type Entry = { name?: unknown } & Record<string, unknown>;
  const named = (list: unknown, name: string) =>
    Array.isArray(list) ? (list as Array<Entry | null>).find((e) => e?.name === name) : undefined;
  const contextName = overrides.context || String(config["current-context"] ?? "");
  const context = contextName === "" ? undefined : named(config.contexts, contextName);
  if (contextName !== "" && !context) return false;
  const clusterName = overrides.cluster || String((context?.context as Entry | undefined)?.cluster ?? "");
  const cluster = named(config.clusters, clusterName)?.cluster;
  return typeof cluster !== "object" || cluster === null || Object.keys(cluster).length === 0;
}

/**
 * The kubeconfig the Kubernetes provider and kubectl would use: every $KUBECONFIG entry merged as
 * client-go's loading rules do (clientcmd/loader.go, ClientConfigLoadingRules.Load: missing files
 * skipped, the first file to set a value wins), else ~/.kube/config; and when that gives nothing to
 * connect with (no file, or an empty configuration for `overrides`: isEmptyKubeconfig), the pod's
 * service account's, as clientcmd's DeferredLoadingClientConfig.ClientConfig turns to the in-cluster
 * configuration. `env` is the environment of the process that connects.
 */
export function ambientKubeconfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: { context?: string; cluster?: string } = {},
): AmbientKubeconfig {
  const found = kubeconfigFiles(env);
  // No file loads as an empty configuration: a context named in the overrides is then still missing.
  if (!isEmptyKubeconfig(found.text ?? "", overrides)) return found;
  return inClusterKubeconfig(env) ?? found;
}

/** $KUBECONFIG's files merged, else ~/.kube/config (see ambientKubeconfig). */
function kubeconfigFiles(env: NodeJS.ProcessEnv): AmbientKubeconfig {
  const path = require("node:path") as typeof import("node:path");
  const fs = require("node:fs") as typeof import("node:fs");
  const listed = [...new Set((env.KUBECONFIG ?? "").split(path.delimiter).filter((f) => f !== ""))];
  const files =
    listed.length > 0
      ? listed
      : [path.join((require("node:os") as typeof import("node:os")).homedir(), ".kube", "config")];
  const read = files.flatMap((file) => {
    try {
      return [{ file, text: fs.readFileSync(file, "utf8") }];
    } catch {
      return [];
    }
  });
  if (read.length === 0) return { file: files.join(path.delimiter) };
  if (read.length === 1) return read[0];
  return { file: read.map((r) => r.file).join(path.delimiter), text: mergeKubeconfigs(read) };
}

/** A Kubernetes provider's connection settings: its inputs, or the stack's `kubernetes:` config. */
export interface ProviderSettings {
  /** The content of a kubeconfig or a file's path. */
  kubeconfig?: string;
  context?: string;
  cluster?: string;
}

/**
 * The kubeconfig pulumi-kubernetes connects with for `settings` (provider.go, Configure, and util.go,
 * parseKubeconfigString): `kubeconfig` read as a file when one exists at that path (a leading ~
 * expanded), else taken as content; without it, the ambient kubeconfig. `context` and `cluster`
 * override the current context and its cluster, as clientcmd.ConfigOverrides do. `file` names what was
 * read; `text` is absent when nothing could be. `env` is the environment of the provider's process.
 */
export function providerKubeconfig(
  settings: ProviderSettings,
  env: NodeJS.ProcessEnv = process.env,
): AmbientKubeconfig {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const given = settings.kubeconfig;
  let found: AmbientKubeconfig;
  if (given === undefined || given === "") {
    found = ambientKubeconfig(env, settings);
    // The in-cluster configuration takes no context or cluster (inClusterClientConfig.ClientConfig).
    if (found.inCluster) return found;
  } else {
    const home = (require("node:os") as typeof import("node:os")).homedir();
    const file = given === "~" ? home : given.startsWith("~/") ? path.join(home, given.slice(2)) : given;
    found = fs.existsSync(file)
      ? { file, text: fs.readFileSync(file, "utf8") }
      : { file: "its kubeconfig", text: given };
  }
  if (found.text === undefined || (!settings.context && !settings.cluster)) return found;
  const { parse, stringify } = require("yaml") as typeof import("yaml");
  const config = parse(found.text) as KubeconfigFile | null;
  if (typeof config !== "object" || config === null) return found;
  if (settings.context) config["current-context"] = settings.context;
  const current = (config.contexts ?? []).find((c) => c?.name === config["current-context"]);
  if (settings.cluster && current) current.context = { ...current.context, cluster: settings.cluster };
  return { file: found.file, text: stringify(config) };
}

/** What providerKubeconfig changes in a kubeconfig: its current context and that context's cluster. */
interface KubeconfigFile {
  "current-context"?: string;
  contexts?: Array<{ name?: string; context?: { cluster?: string } } | null>;
}

/** The fields of a kubeconfig that name files, which client-go resolves against the file that sets them. */
const FILE_FIELDS: Record<string, string[]> = {
  clusters: ["certificate-authority"],
  users: ["client-certificate", "client-key", "tokenFile"],
};

/**
 * Several kubeconfig files as one, as client-go merges them: clusters, contexts and users by name, the
 * first file to define a name wins; `current-context` and the other top-level values from the first
 * file that sets them. Relative file references are made absolute first (ResolveLocalPaths).
 */
export function mergeKubeconfigs(files: Array<{ file: string; text: string }>): string {
  const path = require("node:path") as typeof import("node:path");
  const { parse, stringify } = require("yaml") as typeof import("yaml");
  const merged: Record<string, unknown> = { apiVersion: "v1", kind: "Config" };
  for (const { file, text } of files) {
    const config = (parse(text) ?? {}) as Record<string, unknown>;
    if (typeof config !== "object" || Array.isArray(config)) continue;
    for (const [key, value] of Object.entries(config)) {
      if (["clusters", "contexts", "users"].includes(key) && Array.isArray(value)) {
        const have = (merged[key] ??= []) as Array<{ name?: unknown }>;
        for (const entry of value as Array<Record<string, unknown> | null>) {
          if (!entry || have.some((h) => h.name === entry.name)) continue;
          const inner = key === "contexts" ? undefined : (entry[key.slice(0, -1)] as Record<string, unknown>);
          for (const field of FILE_FIELDS[key] ?? []) {
            const ref = inner?.[field];
            if (typeof ref === "string" && ref !== "" && !path.isAbsolute(ref))
              inner![field] = path.resolve(path.dirname(file), ref);
          }
          have.push(entry);
        }
      } else if (!(key in merged) || (key === "current-context" && !merged[key])) {
        merged[key] = value;
      }
    }
  }
  return stringify(merged);
}

/**
 * The API server of a kubeconfig's current context, as the Kubernetes client resolves it (context,
 * then its cluster by name); undefined when there is none. `check` and `diff` need only this, for every
 * waiter at every preview: read without the client (see kubeconfig.ts). Throws when the text is not YAML.
 */
export function currentServer(kubeconfig: string): string | undefined {
  const server = currentContext(kubeconfig).cluster?.server;
  return typeof server === "string" && server !== "" ? server : undefined;
}

/** The API server URL of a kubeconfig's current context, normalised; undefined when it has none. */
export function clusterServer(kubeconfig: string): string | undefined {
  try {
    const server = currentServer(kubeconfig);
    return server ? new URL(server).toString() : undefined;
  } catch {
    return undefined;
  }
}

export interface Credentials {
  kubeconfig: string;
  /** Where it came from, for messages: `$KUBECONFIG (<file>)` or `the copy stored in the stack's state`. */
  source: string;
  /** Why the stored copy is used, when it is. */
  note?: string;
}

export const STORED_SOURCE = "the copy stored in the stack's state";

/**
 * The credentials for an operation on what `stored` (the kubeconfig saved with the resource) points
 * at: the ambient kubeconfig when its current context reaches the same API server, else the stored
 * copy, with a note saying why. Another cluster's credentials are never used: a delete must not run
 * against whatever cluster the shell happens to point at.
 */
export function currentCredentials(stored: string): Credentials {
  const { file, text, inCluster } = ambientKubeconfig();
  const where = inCluster ? file : `$KUBECONFIG (${file})`;
  if (text === undefined) {
    return {
      kubeconfig: stored,
      source: STORED_SOURCE,
      note: `no kubeconfig could be read at ${file}: using ${STORED_SOURCE}, whose token may have expired`,
    };
  }
  const storedServer = clusterServer(stored);
  const ambientServer = clusterServer(text);
  if (storedServer !== undefined && storedServer === ambientServer)
    return { kubeconfig: text, source: where };
  return {
    kubeconfig: stored,
    source: STORED_SOURCE,
    note:
      ambientServer === undefined
        ? `${file} has no current context with a cluster: using ${STORED_SOURCE}, whose token may have expired`
        : `${file} points at ${ambientServer}, not at ${storedServer ?? "the stored cluster"}: using ${STORED_SOURCE} rather than another cluster's credentials; its token may have expired`,
  };
}

/** Whether a waiting-core message reports a 401 (as `describeApiError` words it). */
export function rejectsCredentials(message: string): boolean {
  return /\bHTTP 401\b/.test(message);
}

/**
 * An error whose cause is a 401 from the API server, restated so that it says what happened and what
 * to do; any other error unchanged.
 */
export function explainRejectedCredentials(error: unknown, source: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!rejectsCredentials(message)) return error;
  return new Error(
    `${message}\nThe cluster rejected the credentials of ${source} (401 Unauthorized): the token has ` +
      "expired or was revoked. Log in again (`oc login`) and point $KUBECONFIG at the kubeconfig " +
      "with the new token (or pass it as the component's kubeconfig), then run the operation again.",
    { cause: error },
  );
}
