/**
 * A per-example fixtures file answers what a program asks of the outside world when it is evaluated
 * without Pulumi's engine: cloud lookups (invokes) always, and reads of cluster objects when there is no
 * cluster (render). A question without an answer is an error that says what to add, never a guess.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import type { ClusterSnapshot } from "../components/cluster/cluster-snapshot";
import { MACHINE_API_NAMESPACE, ROLE_LABEL } from "../primitives/openshift";
import { KINDS, type KubeObject, type ResourceKind } from "../provider/waiting/kinds";
import { MACHINESET_LABEL } from "../provider/waiting/machineset";
import { commandLine } from "./cli";
import { programDir, type Project } from "./project";

export interface InvokeAnswer {
  /** A deep-partial pattern of the invoke's inputs; absent matches any call of the token. */
  match?: unknown;
  result: Record<string, unknown>;
}

export interface Fixtures {
  /** Where the answers came from, for messages. */
  file: string;
  objects: Array<Record<string, unknown>>;
  invokes: Record<string, InvokeAnswer[]>;
  /**
   * Resource Manager's answers to the requests no azure-native function wraps (components/platforms/azure/
   * lookups.ts), by path and query as sent after the endpoint (decoded): each a response body.
   */
  arm?: Record<string, unknown>;
  /** The file does not exist: an answer asked for says to write it. */
  missing?: boolean;
}

/** What to do when `fixtures` lack an answer: add it there, or write the file. */
function remedy(fixtures: Fixtures, add: string): string {
  return fixtures.missing
    ? `there is no ${fixtures.file}: write it from your cluster with ${commandLine("fixtures")} capture <project dir>, or by hand with this answer ${add}`
    : `add it to ${fixtures.file} ${add} (${commandLine("fixtures")} capture <project dir> writes what the program reads from your cluster)`;
}

export function loadFixtures(file: string): Fixtures {
  const raw = (parse(fs.readFileSync(file, "utf8")) ?? {}) as Partial<Omit<Fixtures, "file">>;
  if (raw.objects !== undefined && !Array.isArray(raw.objects))
    throw new Error(`${file}: objects must be a list`);
  const invokes = raw.invokes ?? {};
  for (const [token, answers] of Object.entries(invokes)) {
    if (!Array.isArray(answers) || answers.some((a) => typeof a?.result !== "object" || a.result === null)) {
      throw new Error(`${file}: invokes.${token} must be a list of { match?, result } with an object result`);
    }
  }
  if (raw.arm !== undefined && (typeof raw.arm !== "object" || raw.arm === null || Array.isArray(raw.arm)))
    throw new Error(`${file}: arm must map a request's path and query to its response body`);
  return { file, objects: raw.objects ?? [], invokes, ...(raw.arm ? { arm: raw.arm } : {}) };
}

/** Fixtures that answer nothing: every lookup is then an error naming the fixtures file to write. */
export function noFixtures(file: string): Fixtures {
  return { file, objects: [], invokes: {}, missing: true };
}

/** Fixtures beside the program, or none (every lookup then fails saying where to write them). */
export function fixturesFor(project: Project): Fixtures {
  const file = path.join(programDir(project), "fixtures.yaml");
  return fs.existsSync(file) ? loadFixtures(file) : noFixtures(file);
}

/** True when every field of `pattern` is found in `value` (lists: same length, element by element). */
export function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    return (
      Array.isArray(value) && value.length === pattern.length && pattern.every((p, i) => matches(p, value[i]))
    );
  }
  if (pattern !== null && typeof pattern === "object") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    return Object.entries(pattern).every(([k, p]) => matches(p, (value as Record<string, unknown>)[k]));
  }
  return pattern === value;
}

export function answerInvoke(
  fixtures: Fixtures,
  token: string,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  const answer = (fixtures.invokes[token] ?? []).find(
    (a) => a.match === undefined || matches(a.match, inputs),
  );
  if (!answer) {
    throw new Error(
      `no answer for the cloud lookup ${token} with inputs ${JSON.stringify(inputs)}: ${remedy(fixtures, `under invokes.${token} (a { match, result } entry)`)}`,
    );
  }
  return answer.result;
}

/** The fixture object a `.get` of `apiVersion`/`kind` with id `namespace/name` (or `name`) reads. */
export function answerRead(
  fixtures: Fixtures,
  apiVersion: string,
  kind: string,
  id: string,
): Record<string, unknown> {
  const [namespace, name] = id.includes("/") ? id.split("/", 2) : [undefined, id];
  const found = fixtures.objects.find((o) => {
    const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
    return (
      o.apiVersion === apiVersion && o.kind === kind && meta.name === name && meta.namespace === namespace
    );
  });
  if (!found) {
    throw new Error(
      `the program reads ${kind} ${id} (${apiVersion}) from the cluster, and without a cluster it has no answer: ${remedy(fixtures, "under objects")}, or give the component the values it reads (for the cluster facts: infrastructureId, platform, region)`,
    );
  }
  return found;
}

/** `apiVersion` of a kind (`group/version`, or the version alone for the core group). */
export function apiVersionOf(kind: ResourceKind): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/**
 * The cluster as the fixtures hold it, for the reads a preview makes itself (rollout impact, machine
 * specs, boot images, the catalog check, adoption): what the fixtures lack, the cluster lacks, as a
 * real cluster answers 404 or an empty list. Reads by the engine (`.get`) go through answerRead.
 */
export function fixtureCluster(fixtures: Fixtures): ClusterSnapshot {
  const objects = fixtures.objects as unknown as KubeObject[];
  const ofKind = (kind: ResourceKind) =>
    objects.filter((o) => o.apiVersion === apiVersionOf(kind) && o.kind === kind.kind);
  const named = (kind: ResourceKind, name: string, namespace?: string) =>
    ofKind(kind).find((o) => o.metadata?.name === name && o.metadata?.namespace === namespace);
  const inNamespace = (kind: ResourceKind, namespace: string) =>
    ofKind(kind).filter((o) => o.metadata?.namespace === namespace);
  return {
    unreachableBecause: () => Promise.resolve(undefined),
    machineConfiguration: () => Promise.resolve(named(KINDS.machineConfiguration, "cluster")),
    pool: (name) => Promise.resolve(named(KINDS.pool, name)),
    // As the snapshot lists MachineConfigs: those a pool can render, with a role label.
    objects: (kind) =>
      Promise.resolve(
        ofKind(kind).filter(
          (o) => kind !== KINDS.machineConfig || o.metadata?.labels?.[ROLE_LABEL] !== undefined,
        ),
      ),
    machineConfig: (name) => Promise.resolve(named(KINDS.machineConfig, name)),
    machineSets: () => Promise.resolve(inNamespace(KINDS.machineSet, MACHINE_API_NAMESPACE)),
    machines: (machineSets) =>
      Promise.resolve(
        inNamespace(KINDS.machine, MACHINE_API_NAMESPACE).filter((m) =>
          machineSets.includes(m.metadata?.labels?.[MACHINESET_LABEL] ?? ""),
        ),
      ),
    objectsIn: (kind, namespace) => Promise.resolve(inNamespace(kind, namespace)),
    object: (kind, name, namespace) => Promise.resolve(named(kind, name, namespace)),
  };
}

/** What a program's process needs to answer Resource Manager requests from the fixtures. */
export interface ArmAnswers {
  /** Resource Manager's endpoints in the azure-native provider's clouds. */
  origins: string[];
  answers: Record<string, unknown>;
  /** The token the fixtures' authorization.getClientToken gives: requests without it are refused, as ARM does. */
  token: string | undefined;
  remedy: string;
}

export function armAnswers(fixtures: Fixtures): ArmAnswers {
  const token = fixtures.invokes["azure-native:authorization:getClientToken"]?.[0]?.result.token;
  return {
    origins: [
      "https://management.azure.com",
      "https://management.usgovcloudapi.net",
      "https://management.chinacloudapi.cn",
    ],
    answers: fixtures.arm ?? {},
    token: typeof token === "string" ? token : undefined,
    remedy: remedy(fixtures, "under arm (the request's path and query: its response body)"),
  };
}

/**
 * Answers the program's fetches to Resource Manager from `arm` (any other request goes out) until the
 * returned function restores fetch; a request without an answer fails saying what to add. It uses
 * nothing from outside itself, so a program's own process loads its source (armImport).
 */
export function interceptArm(arm: ArmAnswers): () => void {
  const real = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (!arm.origins.includes(url.origin)) return real(input, init);
    const key = decodeURIComponent(url.pathname + url.search);
    if (!(key in arm.answers))
      throw new Error(`no answer for the Resource Manager request GET ${key}: ${arm.remedy}`);
    const authorized = new Headers(init?.headers).get("authorization") === `Bearer ${arm.token}`;
    return new Response(
      JSON.stringify(authorized ? arm.answers[key] : { error: { code: "AuthenticationFailed" } }),
      { status: authorized ? 200 : 401, headers: { "content-type": "application/json" } },
    );
  };
  return () => {
    globalThis.fetch = real;
  };
}

/** `--import` arguments for a program's process that answer its Resource Manager requests from the fixtures. */
export function armImport(fixtures: Fixtures): string[] {
  if (!fixtures.arm) return [];
  const source = `(${interceptArm.toString()})(${JSON.stringify(armAnswers(fixtures))});`;
  return ["--import", `data:text/javascript,${encodeURIComponent(source)}`];
}
