/**
 * What every waiter provider shares: input checks, the diff, timeouts, progress, and the provider
 * object itself. Everything a provider object reaches is serialized by Pulumi's closure serializer and
 * run in the dynamic-provider host, so it is built from plain functions and object literals (no class
 * instances, no captured Maps or Sets), and packages are required inside the functions that use them.
 */
import { CustomResourceOptions, dynamic, Input, secret } from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import { isDnsSubdomain } from "../../primitives/names";
import { stableJson } from "../../primitives/stable-json";
import type { Evaluation, ProgressEvent, ProgressListener } from "../waiting";
import { checkCreatedObjects, CreatedObject } from "../waiting/identity";
import {
  clusterServer,
  currentCredentials,
  currentServer,
  explainRejectedCredentials,
  rejectsCredentials,
} from "./credentials";

/** Pulumi's marker for a value not known during preview. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export interface WaiterInputs {
  /** Kubeconfig YAML; always a secret. */
  kubeconfig: string;
  /** Hash of the configuration the wait depends on: a change makes the waiter update and wait again. */
  contentHash?: string;
  /** Deadline of create and update, from `customTimeouts` when not given. */
  timeoutSeconds?: number;
  /** The awaited objects as the provider created them: a wait first checks that its cluster holds them. */
  created?: CreatedObject[];
}

export interface WaiterOutputs {
  /** Seconds the last create or update waited. */
  durationSeconds: number;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

const isUnknown = (value: unknown) => value === UNKNOWN;

/** A Kubernetes object name (DNS subdomain, at most 253 characters). */
export function checkName(
  inputs: Record<string, unknown>,
  property: string,
  required = true,
): CheckFailure[] {
  const value = inputs[property];
  if (isUnknown(value)) return [];
  if (value === undefined || value === null || value === "") {
    return required ? [{ property, reason: `${property} is required` }] : [];
  }
  if (!isDnsSubdomain(value)) {
    return [
      {
        property,
        reason: `${property} must be a Kubernetes object name (lowercase DNS subdomain), got ${JSON.stringify(value)}`,
      },
    ];
  }
  return [];
}

/** A list of object names; `required` demands at least one. */
export function checkNames(
  inputs: Record<string, unknown>,
  property: string,
  required = false,
): CheckFailure[] {
  const value = inputs[property];
  if (isUnknown(value)) return [];
  if (value === undefined || value === null)
    return required ? [{ property, reason: `${property} needs at least one name` }] : [];
  if (!Array.isArray(value)) return [{ property, reason: `${property} must be a list of names` }];
  if (required && value.length === 0) return [{ property, reason: `${property} needs at least one name` }];
  return value.flatMap((item, i) => checkName({ [`${property}[${i}]`]: item }, `${property}[${i}]`));
}

/** `deleteTimeoutSeconds`, when given, is a positive number of seconds. */
export function checkDeleteTimeout(inputs: Record<string, unknown>): CheckFailure[] {
  const t = inputs.deleteTimeoutSeconds;
  if (t === undefined || isUnknown(t) || (typeof t === "number" && Number.isFinite(t) && t > 0)) return [];
  return [
    {
      property: "deleteTimeoutSeconds",
      reason: `deleteTimeoutSeconds must be a positive number of seconds, got ${JSON.stringify(t)}`,
    },
  ];
}

export function checkCommon(inputs: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const kubeconfig = inputs.kubeconfig;
  if (!isUnknown(kubeconfig)) {
    if (typeof kubeconfig !== "string" || kubeconfig.trim() === "") {
      failures.push({
        property: "kubeconfig",
        reason: "kubeconfig is required: the YAML text of a kubeconfig for the cluster",
      });
    } else {
      try {
        if (currentServer(kubeconfig) === undefined)
          failures.push({
            property: "kubeconfig",
            reason: "kubeconfig has no current context with a cluster",
          });
      } catch (e) {
        failures.push({
          property: "kubeconfig",
          reason: `kubeconfig cannot be parsed: ${(e as Error).message}`,
        });
      }
    }
  }
  const timeout = inputs.timeoutSeconds;
  if (
    timeout !== undefined &&
    !isUnknown(timeout) &&
    (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0)
  ) {
    failures.push({
      property: "timeoutSeconds",
      reason: `timeoutSeconds must be a positive number of seconds, got ${JSON.stringify(timeout)}`,
    });
  }
  const hash = inputs.contentHash;
  if (hash !== undefined && !isUnknown(hash) && typeof hash !== "string") {
    failures.push({ property: "contentHash", reason: "contentHash must be a string" });
  }
  const created = inputs.created;
  const text = (v: unknown) => typeof v === "string" && v !== "";
  const isCreated = (o: unknown) => {
    const c = (o ?? {}) as Record<string, unknown>;
    return (
      text(c.apiVersion) &&
      text(c.kind) &&
      text(c.name) &&
      text(c.uid) &&
      (c.namespace === undefined || text(c.namespace))
    );
  };
  if (created !== undefined && !isUnknown(created) && !(Array.isArray(created) && created.every(isCreated))) {
    failures.push({
      property: "created",
      reason: "created must list objects as { apiVersion, kind, name, namespace?, uid }",
    });
  }
  return failures;
}

/** A stable SHA-256 of any JSON value (key order does not matter): the `contentHash` of a configuration. */
export function contentHash(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("hex");
}

/** The inputs among `keys` whose values differ; a missing list equals an empty one. */
export function changedInputs(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  keys: string[],
): string[] {
  const normal = (v: unknown) =>
    v === undefined || v === null || (Array.isArray(v) && v.length === 0) ? undefined : v;
  return keys.filter((k) => stableJson(normal(olds[k])) !== stableJson(normal(news[k])));
}

/** Go-style durations as `customTimeouts` takes them: "90s", "30m", "1h30m". */
export function durationSeconds(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text.trim()) {
    throw new Error(
      `cannot read the duration ${JSON.stringify(text)}: use forms like "90s", "30m" or "1h30m"`,
    );
  }
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2]], 0);
}

/**
 * The dynamic-provider host does not pass Pulumi's timeouts to a dynamic provider, so the resource
 * turns `customTimeouts` into inputs: create and update share `timeoutSeconds` (the longer of the two),
 * delete gets `deleteTimeoutSeconds`. An explicit input wins.
 */
export function timeoutsFrom(
  explicit: Input<number> | undefined,
  opts: CustomResourceOptions | undefined,
): { timeoutSeconds?: Input<number>; deleteTimeoutSeconds?: number } {
  const t = opts?.customTimeouts;
  const create = durationSeconds(t?.create);
  const update = durationSeconds(t?.update);
  const fromOptions =
    create === undefined && update === undefined ? undefined : Math.max(create ?? 0, update ?? 0);
  return { timeoutSeconds: explicit ?? fromOptions, deleteTimeoutSeconds: durationSeconds(t?.delete) };
}

/**
 * Progress of a provider's wait: published on the waiting core's in-process channel (by the core),
 * logged through Pulumi's log (the engine shows it under the resource; without an engine it goes to
 * stdout, which the CLI shows for a dynamic provider), and, when OPENSHIFT_TOPOLOGY_PROGRESS_FILE
 * names a file, appended to it as JSON lines so a process that runs `pulumi up` can draw bars.
 * OPENSHIFT_TOPOLOGY_PROGRESS_LOG=0 turns the log lines off.
 */
export function providerProgress(resource: string): ProgressListener {
  return (event: ProgressEvent) => {
    const file = process.env.OPENSHIFT_TOPOLOGY_PROGRESS_FILE;
    if (file) {
      const { appendFileSync } = require("node:fs") as typeof import("node:fs");
      appendFileSync(file, `${JSON.stringify({ resource, ...event })}\n`);
    }
    if (process.env.OPENSHIFT_TOPOLOGY_PROGRESS_LOG !== "0") {
      const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
      void log.info(event.message);
    }
  };
}

export interface WaiterDefinition<I extends WaiterInputs, O, R> {
  /** The resource type, for messages. */
  kind: string;
  /** Every input, in the order diffs list them. */
  inputKeys: string[];
  check(inputs: Record<string, unknown>): CheckFailure[];
  /** A stable id naming what is awaited. */
  id(inputs: I): string;
  /**
   * The waiting core's wait (create and update): called with the inputs (which carry the core's option
   * names), the deadline and the progress listener. Call the core function inside an arrow: a function
   * value is serialized whole, a call through its module becomes a `require` of the installed package.
   */
  wait(options: I & { timeoutMs: number; onProgress: ProgressListener }): Promise<{ result: R }>;
  /** The waiting core's evaluation without waiting or changing anything, for `read` (with its deadline). */
  observe(options: I & { timeoutMs: number }): Promise<Evaluation<R>>;
  /** The resource's outputs from a result. */
  outputs(result: R): O;
  /** What deleting the waiter waits for; absent: nothing. */
  remove?(props: I & O): Promise<void>;
}

export const DEFAULT_TIMEOUT_SECONDS = 1800;

/** How long `read` may take to list what it reports. */
const OBSERVE_TIMEOUT_MS = 60_000;

/** A waiter's deadline in milliseconds. */
export function deadlineMs(seconds: number | undefined): number {
  return (seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
}

/** What every waiter resource takes. */
export interface WaiterArgs {
  /** Kubeconfig YAML; stored as a secret whatever is passed. */
  kubeconfig: Input<string>;
  /** Hash of the configuration the wait depends on: a change makes the waiter update and wait again. */
  contentHash?: Input<string>;
  /** Deadline of create and update in seconds; defaults to the longer of customTimeouts create/update, else 30 minutes. */
  timeoutSeconds?: Input<number>;
  /**
   * The awaited objects as their provider created them (`metadata.uid` included): the wait fails at
   * once when the cluster of `kubeconfig` does not hold them, instead of waiting on another cluster.
   */
  created?: Input<Input<CreatedObject>[] | undefined>;
}

/**
 * The props a waiter registers: the kubeconfig as a secret, the content hash and deadline, its own
 * inputs that are set, and its outputs (unknown until it has run). Unset optional inputs are left out
 * because the SDK pays for every prop at registration (a handful of promises, each capturing a stack
 * trace), which dominates the evaluation of large topologies.
 */
export function waiterProps(
  args: WaiterArgs,
  opts: CustomResourceOptions | undefined,
  inputs: Record<string, Input<unknown> | undefined>,
  outputs: readonly string[],
): Record<string, Input<unknown> | undefined> {
  const props: Record<string, Input<unknown> | undefined> = {};
  const all = {
    kubeconfig: secret(args.kubeconfig),
    ...inputs,
    contentHash: args.contentHash,
    timeoutSeconds: timeoutsFrom(args.timeoutSeconds, opts).timeoutSeconds,
    created: args.created,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) props[key] = value;
  for (const key of outputs) props[key] = undefined;
  return props;
}

/** What every removal guard takes: it waits on delete only. */
export interface RemovalArgs {
  /** Kubeconfig YAML; stored as a secret whatever is passed. */
  kubeconfig: Input<string>;
  /** Deadline of the delete in seconds; defaults to customTimeouts.delete, else 30 minutes. */
  deleteTimeoutSeconds?: Input<number>;
  /**
   * What the guard holds the deletion of, as its provider created it (`metadata.uid` included): the
   * guard's create fails at once when the cluster of `kubeconfig` does not hold it, so that its delete
   * never waits on another cluster.
   */
  created?: Input<Input<CreatedObject>[] | undefined>;
}

/** The props of a removal guard: the kubeconfig as a secret, its own inputs and the delete's deadline. */
export function removalProps(
  args: RemovalArgs,
  opts: CustomResourceOptions | undefined,
  inputs: Record<string, Input<unknown> | undefined>,
): Record<string, Input<unknown> | undefined> {
  const deleteTimeoutSeconds =
    args.deleteTimeoutSeconds ?? timeoutsFrom(undefined, opts).deleteTimeoutSeconds;
  // No outputs: a guard's create waits for nothing, so it has no duration or counts to show.
  return waiterProps(
    { kubeconfig: args.kubeconfig, created: args.created },
    undefined,
    { ...inputs, deleteTimeoutSeconds },
    [],
  );
}

/** Resource options of every waiter: the kubeconfig stays secret in outputs too. */
export function waiterOptions(opts: CustomResourceOptions | undefined): CustomResourceOptions {
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "kubeconfig"] };
}

/** The `pulumi.dynamic.ResourceProvider` of a waiter. */
export function waiterProvider<I extends WaiterInputs, O, R>(
  def: WaiterDefinition<I, O, R>,
): dynamic.ResourceProvider {
  // An absent input is left out: the dynamic-provider host cannot marshal `undefined` into a Struct.
  const echo = (inputs: I) =>
    Object.fromEntries(
      def.inputKeys
        .map((k) => [k, (inputs as unknown as Record<string, unknown>)[k]] as const)
        .filter(([, v]) => v !== undefined),
    );
  // Named so as not to shadow a global: Pulumi's serializer does not capture names it finds on globalThis
  // (mocha defines a global `run`), and the deserialized provider would then call the wrong function.
  const waitAndReport = async (inputs: I) => {
    const started = Date.now();
    const waiter = `${def.kind} ${def.id(inputs)}`;
    const { result } = await checkCreatedObjects({
      kubeconfig: inputs.kubeconfig,
      server: currentServer(inputs.kubeconfig) ?? "the cluster",
      waiter,
      created: inputs.created ?? [],
    })
      .then(() =>
        def.wait({
          ...inputs,
          timeoutMs: deadlineMs(inputs.timeoutSeconds),
          onProgress: providerProgress(waiter),
        }),
      )
      .catch((e: unknown) => {
        throw explainRejectedCredentials(e, "the kubeconfig the program gives");
      });
    const outs = def.outputs(result);
    return { ...echo(inputs), ...outs, durationSeconds: Math.round((Date.now() - started) / 100) / 10 };
  };
  // Read and delete run long after the stored kubeconfig was current: they use the process's own when
  // it reaches the same cluster (see credentials.ts).
  const withCurrentCredentials = async <T>(props: I & O, operation: (props: I & O) => Promise<T>) => {
    const credentials = currentCredentials(props.kubeconfig);
    if (credentials.note) {
      const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
      void log.warn(`${def.kind} ${def.id(props)}: ${credentials.note}`);
    }
    return operation({ ...props, kubeconfig: credentials.kubeconfig }).catch((e: unknown) => {
      throw explainRejectedCredentials(e, credentials.source);
    });
  };
  return {
    async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
      const failures = [...checkCommon(news), ...def.check(news)];
      return { inputs: news, failures };
    },
    async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
      // Waiters are never replaced: a changed input means waiting again, which is an update. New
      // credentials alone (a renewed token) are not a change; another cluster is. The created objects'
      // UIDs say where to look, not what to wait for: a change of the objects changes the content hash.
      const changed = changedInputs(
        olds,
        news,
        def.inputKeys.filter((k) => k !== "kubeconfig" && k !== "created"),
      );
      const cluster = (kubeconfig: unknown) =>
        typeof kubeconfig === "string" && kubeconfig !== UNKNOWN ? clusterServer(kubeconfig) : undefined;
      const before = cluster(olds.kubeconfig);
      const after = cluster(news.kubeconfig);
      const moved = before !== undefined && after !== undefined && before !== after;
      return { changes: changed.length > 0 || moved, replaces: [], deleteBeforeReplace: false };
    },
    async create(inputs: I) {
      return { id: def.id(inputs), outs: await waitAndReport(inputs) };
    },
    async update(_id: string, _olds: I, news: I) {
      return { outs: await waitAndReport(news) };
    },
    async read(id: string, props: I & O) {
      const e = await withCurrentCredentials(props, async (current) => {
        const evaluation = await def.observe({ ...current, timeoutMs: OBSERVE_TIMEOUT_MS });
        // An observation reports failures as its state; rejected credentials are the operation's failure.
        if (rejectsCredentials(evaluation.message ?? "")) throw new Error(evaluation.message);
        return evaluation;
      });
      const result = (e.result ?? {}) as Record<string, unknown>;
      // What an observation cannot see (timings are seen only while a rollout runs) keeps its last
      // value: a refresh must not erase what the last wait learned.
      const observed = Object.fromEntries(
        Object.entries(
          (e.result === undefined ? {} : def.outputs(e.result)) as Record<string, unknown>,
        ).filter(
          ([key]) => result[key] !== undefined || (props as Record<string, unknown>)[key] === undefined,
        ),
      );
      return { id, props: { ...props, ...observed, converged: e.state === "done", status: e.message } };
    },
    async delete(_id: string, props: I & O) {
      const remove = def.remove;
      if (remove) await withCurrentCredentials(props, (current) => remove(current));
    },
  };
}

/** The inputs every removal guard has. */
export interface RemovalInputs extends WaiterInputs {
  deleteTimeoutSeconds?: number;
}

/** What a removal guard is: a waiter with nothing to do on create that waits on delete. */
export interface RemovalDefinition<I extends RemovalInputs, R> {
  kind: string;
  /** Its own input keys (the kubeconfig and the delete's deadline are added). */
  inputKeys: string[];
  check(inputs: Record<string, unknown>): CheckFailure[];
  id(inputs: I): string;
  /** What `read` reports. */
  observe(options: I & { timeoutMs: number }): Promise<Evaluation<R>>;
  /**
   * The waiting core's wait on delete, called with the inputs, the delete's deadline and a progress
   * listener (call it through its module inside an arrow, as `WaiterDefinition.wait`).
   */
  remove(options: I & { timeoutMs: number; onProgress: ProgressListener }): Promise<unknown>;
}

/** The `pulumi.dynamic.ResourceProvider` of a removal guard. */
export function removalProvider<I extends RemovalInputs, R>(
  def: RemovalDefinition<I, R>,
): dynamic.ResourceProvider {
  return waiterProvider<I, Record<string, unknown>, R | undefined>({
    kind: def.kind,
    inputKeys: ["kubeconfig", ...def.inputKeys, "deleteTimeoutSeconds", "created"],
    check: (inputs) => [...def.check(inputs), ...checkDeleteTimeout(inputs)],
    id: (inputs) => def.id(inputs),
    // Nothing to wait for on create (what it guards is declared after it), once `created` was found.
    wait: async () => ({ result: undefined }),
    observe: (options) => def.observe(options),
    outputs: () => ({}),
    async remove(props) {
      await def.remove({
        ...props,
        timeoutMs: deadlineMs(props.deleteTimeoutSeconds),
        onProgress: providerProgress(`${def.kind} ${def.id(props)}`),
      });
    },
  });
}
