/**
 * Which kubeconfig an operation reaches the cluster with. Tokens expire (an `oc login` token lives a
 * day), so the copy stored with a waiter is a last resort: create and update use the one the program
 * gives now, read and delete the one of the process running them ($KUBECONFIG, else ~/.kube/config),
 * and only when that is missing or names another cluster, the stored copy. Serialized with the
 * providers (see common.ts): plain functions, packages required inside them.
 */
import { currentContext } from "../waiting/kubeconfig";

/**
 * The kubeconfig the Kubernetes provider and kubectl would use: every $KUBECONFIG entry merged as
 * client-go's loading rules do (clientcmd/loader.go, ClientConfigLoadingRules.Load: missing files
 * skipped, the first file to set a value wins), else ~/.kube/config. `file` names what was read;
 * `text` is absent when nothing could be. `env` is the environment of the process that connects.
 */
export function ambientKubeconfig(env: NodeJS.ProcessEnv = process.env): { file: string; text?: string } {
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
): { file: string; text?: string } {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const given = settings.kubeconfig;
  let found: { file: string; text?: string };
  if (given === undefined || given === "") {
    found = ambientKubeconfig(env);
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
  const { file, text } = ambientKubeconfig();
  const where = `$KUBECONFIG (${file})`;
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
