/**
 * `@openshift-topology/pulumi/testing`: Pulumi mocks for unit tests of a stack that uses the
 * components, as Pulumi's testing guide writes them (`pulumi.runtime.setMocks` and mocha), with the
 * cluster answered from a fixtures file: the format `openshift-topology render` reads and
 * `openshift-topology fixtures capture` writes. The mocks record what the program declares, so that a
 * test reads the manifests by kind and name, the waiters, and what the preview says about each pool's
 * nodes. Not for programs: it installs mocks, process-wide, as `setMocks` does.
 */
import * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import * as path from "node:path";
import { isPoolLine } from "../builders/rollout-impact/format";
import { answerClusterReads } from "../components/cluster/preview-run";
import {
  answerInvoke,
  answerRead,
  armAnswers,
  fixtureCluster,
  type Fixtures,
  interceptArm,
  loadFixtures,
} from "../harness/fixtures";
import { kubeType } from "../harness/kube-type";
import { Renderer } from "../harness/rendering";
import { reveal } from "../harness/secrets";

export type { Fixtures } from "../harness/fixtures";

/** How the program is evaluated. */
export interface MockClusterOptions {
  /**
   * Evaluate as `pulumi preview` does: values only `up` knows stay unknown, and the components read the
   * cluster (here, the fixtures) to say what each change does to a pool's nodes. Default false, as
   * `pulumi up` evaluates.
   */
  preview?: boolean;
  /** The project name (`pulumi.getProject()`); default `project`. */
  project?: string;
  /** The stack name (`pulumi.getStack()`); default `stack`. */
  stack?: string;
  /**
   * Stack config, as `Pulumi.<stack>.yaml` holds it: `key` for the project's own keys, `namespace:key`
   * for others (`kubernetes:context`). Structured values as JSON text, as `pulumi config set --path`
   * stores them.
   */
  config?: Record<string, string>;
}

/** A Kubernetes object the program declared, as pulumi-kubernetes would apply it. */
export interface DeclaredObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  /** The Pulumi resource name that declares it. */
  resource: string;
  /** A `*Patch` resource: a patch of an object the cluster owns (the IngressController, say). */
  patch: boolean;
  /** The whole object; secrets as `[secret]`. */
  manifest: Record<string, unknown> & { metadata: { name?: string; namespace?: string } };
}

/** One of the library's waiters (a Pulumi dynamic resource): what it waits for, never run under mocks. */
export interface DeclaredWaiter {
  /** `PoolRollout`, `MachineSetReady`, `OperatorInstall`, ... */
  type: string;
  name: string;
  /** Its inputs, the kubeconfig left out and secrets as `[secret]`. */
  inputs: Record<string, unknown>;
}

/** A message the program logged, as `pulumi preview` lists it under Diagnostics. */
export interface Diagnostic {
  severity: "info" | "warning" | "error";
  message: string;
  /** The Pulumi name of the resource it is about (the component), once its URN is known. */
  resource?: string;
}

/** Components need a kubeconfig for their waiters, which never run under mocks: one that names no cluster. */
const PLACEHOLDER_KUBECONFIG = fs.readFileSync(
  path.join(__dirname, "..", "harness", "render-kubeconfig.yaml"),
  "utf8",
);

// The SDK marks this internal; it is the only way to know every registration has reached the mocks.
const { waitForRPCs } = require("@pulumi/pulumi/runtime/settings") as { waitForRPCs: () => Promise<void> };

type Log = (
  message: string,
  resource?: pulumi.Resource,
  streamId?: number,
  ephemeral?: boolean,
) => Promise<void>;

/** The mocks whose logs are recorded now: the last installed. */
let recording: MockCluster | undefined;
/** The fetch installed to answer Resource Manager requests, and the one it found (and falls back on). */
let arm: { wrapper: typeof fetch; real: typeof fetch } | undefined;
/** Each mocks' answers to Resource Manager requests, as a fetch falling back on the real one. */
const armAnswering = new WeakMap<MockCluster, typeof fetch>();
const original = { info: pulumi.log.info, warn: pulumi.log.warn, error: pulumi.log.error };

/**
 * The mocks Pulumi's runtime answers with now (`setMocks` installs a MockMonitor holding them). Mocha
 * runs many suites in one process: once another suite installs its own mocks, or none, what these
 * mocks put in place must step aside.
 */
function installedMocks(): unknown {
  return (pulumi.runtime.getMonitor() as { mocks?: unknown } | undefined)?.mocks;
}

/**
 * Records what the components log while the recording mocks are installed. Under mocks the SDK has no
 * engine to send it to and prints it; warnings and errors are still printed, so that a failing test
 * shows them. Under other mocks, every message is printed as the SDK prints it.
 */
function recordLogs(): void {
  const wrap =
    (severity: Diagnostic["severity"], sdk: Log, print: boolean): Log =>
    (message, resource, streamId, ephemeral) => {
      if (recording === undefined || installedMocks() !== recording)
        return sdk(message, resource, streamId, ephemeral);
      recording.logged(severity, message, resource);
      return print ? sdk(message, resource, streamId, ephemeral) : Promise.resolve();
    };
  pulumi.log.info = wrap("info", original.info, false);
  pulumi.log.warn = wrap("warning", original.warn, true);
  pulumi.log.error = wrap("error", original.error, true);
}

/**
 * Pulumi's mocks for one test, answering from `fixtures`: reads of cluster objects (the Infrastructure
 * `cluster`, the installer's worker MachineSets, the pools and node configuration a preview reads, the
 * catalog's PackageManifests), cloud lookups (`invokes`) and Azure Resource Manager requests (`arm`).
 * A read or lookup the fixtures do not answer fails the output that needs it at once, naming it and
 * where to add it:
 * `openshift-topology fixtures capture` writes them from a live cluster. Every other resource is
 * created with its inputs as outputs.
 */
export class MockCluster implements pulumi.runtime.Mocks {
  private readonly renderer = new Renderer();
  private readonly logs: Diagnostic[] = [];

  constructor(readonly fixtures: Fixtures) {}

  /** Pulumi's mock of a registration: a read is answered from the fixtures, anything else recorded. */
  newResource(args: pulumi.runtime.MockResourceArgs): pulumi.runtime.MockResourceResult {
    if (args.id !== undefined && args.id !== "") {
      const k8s = kubeType(args.type);
      if (!k8s)
        throw new Error(`${args.name}: the mocks answer reads of Kubernetes objects only, not ${args.type}`);
      return { id: args.id, state: answerRead(this.fixtures, k8s.apiVersion, k8s.kind, args.id) };
    }
    this.renderer.add(args.type, args.name, args.inputs);
    return { id: `${args.name}-id`, state: args.inputs };
  }

  /** Pulumi's mock of an invoke (a cloud lookup), answered from the fixtures' `invokes`. */
  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
    return answerInvoke(this.fixtures, args.token, reveal(args.inputs) as Record<string, unknown>);
  }

  /** Resolves once every resource the program declared so far, inside applies too, has been registered. */
  private async settled(): Promise<void> {
    for (let round = 0; round < 5; round++) {
      await waitForRPCs();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * The Kubernetes objects declared, of `kind` when given, by kind, namespace and name; once every
   * resource the program has declared so far (inside applies too) has reached the mocks.
   */
  async objects(kind?: string): Promise<DeclaredObject[]> {
    await this.settled();
    return this.renderer
      .rendering([])
      .manifests.map(({ resource, patch, manifest }) => {
        const m = manifest as DeclaredObject["manifest"];
        return {
          apiVersion: String(m.apiVersion),
          kind: String(m.kind),
          name: m.metadata.name ?? "",
          ...(m.metadata.namespace ? { namespace: m.metadata.namespace } : {}),
          resource,
          patch,
          manifest: m,
        };
      })
      .filter((o) => kind === undefined || o.kind === kind);
  }

  /** The object of `kind` named `name` (in `namespace`); rejects naming those of the kind there are. */
  async object(kind: string, name: string, namespace?: string): Promise<DeclaredObject> {
    const ofKind = await this.objects(kind);
    const found = ofKind.filter((o) => o.name === name && o.namespace === namespace);
    if (found.length === 1) return found[0];
    const where = namespace ? `${namespace}/${name}` : name;
    const known = ofKind.map((o) => (o.namespace ? `${o.namespace}/${o.name}` : o.name));
    throw new Error(
      found.length > 1
        ? `${found.length} ${kind} objects named ${where} were declared (resources ${found.map((o) => o.resource).join(", ")})`
        : `no ${kind} ${where} was declared; ${known.length ? `the ${kind} objects are ${known.join(", ")}` : `none of kind ${kind} was`}`,
    );
  }

  /** The waiters declared, of `type` when given (`PoolRollout`), by type and name. */
  async waiters(type?: string): Promise<DeclaredWaiter[]> {
    await this.settled();
    return this.renderer
      .rendering([])
      .waiters.filter((w) => type === undefined || w.type === type)
      .map(({ type: t, name, inputs }) => ({ type: t, name, inputs }));
  }

  /** What the program logged, in order: the diagnostics of `pulumi preview`. */
  async diagnostics(): Promise<Diagnostic[]> {
    await this.settled();
    return [...this.logs];
  }

  /**
   * What the preview says about the nodes of `pool` (every pool when not given): the lines the
   * components log starting `pool <name>:`, the rollout each change starts. Only a preview
   * (`preview: true`) reads the cluster for them.
   */
  async poolLines(pool?: string): Promise<string[]> {
    return (await this.diagnostics())
      .filter((d) => d.severity !== "error" && isPoolLine(d.message, pool))
      .map((d) => d.message);
  }

  /** @internal Called for each message the program logs while these mocks are the recording ones. */
  logged(severity: Diagnostic["severity"], message: string, resource?: pulumi.Resource): void {
    const entry: Diagnostic = { severity, message };
    this.logs.push(entry);
    resource?.urn.apply((urn) => (entry.resource = urn.split("::").pop()));
  }
}

/**
 * Installs mocks answering from the fixtures file (YAML: `objects`, the cluster's objects the program
 * reads; `invokes`, answers to cloud lookups; `arm`, to Azure Resource Manager requests) and returns
 * them, to read what the program declares.
 * Call it before the program runs (in `beforeEach`, then `require` the program or construct the
 * components): each call starts afresh, as Pulumi's `setMocks` does. The components' kubeconfig is a
 * placeholder naming no cluster unless `config` gives `kubernetes:kubeconfig`: a test never reaches a
 * cluster.
 */
export async function mockCluster(
  fixtures: string | Fixtures,
  options: MockClusterOptions = {},
): Promise<MockCluster> {
  const mocks = new MockCluster(typeof fixtures === "string" ? loadFixtures(fixtures) : fixtures);
  const project = options.project ?? "project";
  await pulumi.runtime.setMocks(mocks, project, options.stack ?? "stack", options.preview === true);
  const qualified = (key: string) => (key.includes(":") ? key : `${project}:${key}`);
  pulumi.runtime.setAllConfig({
    "kubernetes:kubeconfig": PLACEHOLDER_KUBECONFIG,
    ...Object.fromEntries(Object.entries(options.config ?? {}).map(([k, v]) => [qualified(k), v])),
  });
  answerClusterReads(pulumi.runtime.getMonitor()!, () => fixtureCluster(mocks.fixtures));
  answerArm(mocks);
  if (recording === undefined) recordLogs();
  recording = mocks;
  return mocks;
}

/**
 * Azure's cloudLookups call Resource Manager with fetch: answered from the fixtures' `arm` while `mocks`
 * are installed, and by the fetch that was there otherwise (installed once, again if replaced since).
 */
function answerArm(mocks: MockCluster): void {
  if (arm === undefined || globalThis.fetch !== arm.wrapper) {
    const real = globalThis.fetch;
    const wrapper: typeof fetch = (input, init) => {
      const installed = installedMocks();
      return ((installed instanceof MockCluster && armAnswering.get(installed)) || real)(input, init);
    };
    arm = { wrapper, real };
  }
  // interceptArm installs itself over the fetch it finds: over the real one, then kept for these mocks.
  globalThis.fetch = arm.real;
  interceptArm(armAnswers(mocks.fixtures));
  armAnswering.set(mocks, globalThis.fetch);
  globalThis.fetch = arm.wrapper;
}

/**
 * The value of an Output, for assertions; rejects with the Output's error (a bad input, a read the
 * fixtures do not answer) where an `apply` would never call back. Undefined for a value a preview does
 * not know.
 */
export async function valueOf<T>(output: pulumi.Output<T>): Promise<T | undefined> {
  const internals = output as unknown as { isKnown: Promise<boolean>; promise(): Promise<T> };
  return (await internals.isKnown) ? internals.promise() : undefined;
}
