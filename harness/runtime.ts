/**
 * Runs a Pulumi program with Pulumi's own runtime in mock mode, the way the language host runs it for
 * `pulumi up`: config in place, the program's module evaluated, every registration awaited, and errors
 * (a failed registration, an input error thrown inside an apply) collected instead of crashing.
 */
import * as pulumi from "@pulumi/pulumi";
import type { ClusterSnapshot } from "../components/cluster/cluster-snapshot";
import { answerClusterReads } from "../components/cluster/preview-run";
import { Project } from "./project";
import { registerTypeScript } from "./typescript";

/** What the resource monitor knows about a registration that the mock API does not pass on. */
export interface Registration {
  urn: string;
  parent: string;
  /** URNs of the resources this one depends on (explicit and through its inputs). */
  dependencies: string[];
  additionalSecretOutputs: string[];
  /** Property paths the engine keeps at their current values on update (`ignoreChanges`). */
  ignoreChanges: string[];
}

/** A resource registration as the harness's mocks see it: Pulumi's mock args plus the monitor's facts. */
export interface HarnessResourceArgs extends pulumi.runtime.MockResourceArgs {
  registration: Registration;
}

export interface HarnessMocks {
  newResource(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult>;
  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown>;
}

export interface Evaluation {
  /** Distinct errors, in the order they happened. */
  errors: Error[];
  /** The program's exports (stack outputs), resolved; secrets stay marked. */
  outputs: Record<string, unknown>;
}

// The SDK marks these internal; they are how the language host knows every registration has finished.
const settings = require("@pulumi/pulumi/runtime/settings") as {
  waitForRPCs(): Promise<void>;
  getMonitor(): unknown;
};

interface MonitorRequest {
  getType(): string;
  getName(): string;
  getParent(): string;
  getDependenciesList?(): string[];
  getAdditionalsecretoutputsList?(): string[];
  getIgnorechangesList?(): string[];
}

type Callback = (err: unknown, response: unknown) => void;

interface MockMonitorLike {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: MonitorRequest, callback: Callback): Promise<void>;
  readResource(req: MonitorRequest, callback: Callback): Promise<void>;
}

/**
 * Installs `mocks` and hands each registration the monitor's facts. The mock monitor calls
 * `newResource` synchronously at the start of its handler, so the request seen just before is the one
 * being registered.
 */
async function installMocks(
  project: Project,
  mocks: HarnessMocks,
  record: (error: unknown) => void,
  preview: boolean,
): Promise<void> {
  let current: Registration | undefined;
  const adapter: pulumi.runtime.Mocks = {
    newResource: (args) => {
      const registration = current!;
      current = undefined;
      // A read without an answer leaves the resource's outputs pending for good: record why at once.
      return mocks.newResource({ ...args, registration }).catch((error: unknown) => {
        record(error);
        throw error;
      });
    },
    // The SDK passes an invoke's error on without its message; the harness reports it itself.
    call: (args) => {
      try {
        return mocks.call(args);
      } catch (error) {
        record(error);
        throw error;
      }
    },
  };
  await pulumi.runtime.setMocks(adapter, project.name, project.stack, preview);
  const monitor = settings.getMonitor() as MockMonitorLike;
  for (const method of ["registerResource", "readResource"] as const) {
    const original = monitor[method].bind(monitor);
    monitor[method] = (req, callback) => {
      current = {
        urn: monitor.newUrn(req.getParent(), req.getType(), req.getName()),
        parent: req.getParent(),
        dependencies: req.getDependenciesList?.() ?? [],
        additionalSecretOutputs: req.getAdditionalsecretoutputsList?.() ?? [],
        ignoreChanges: req.getIgnorechangesList?.() ?? [],
      };
      return original(req, callback);
    };
  }
}

/** Waits until every resource is registered, including those declared inside applies. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await settings.waitForRPCs();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function resolveOutputs(exports: Record<string, unknown>): Promise<Record<string, unknown>> {
  const outputs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(exports)) {
    if (key === "__esModule") continue;
    const output = pulumi.output(value) as unknown as {
      promise(): Promise<unknown>;
      isSecret: Promise<boolean>;
    };
    const [resolved, isSecret] = await Promise.all([output.promise(), output.isSecret]);
    outputs[key] = isSecret ? { secret: true } : resolved;
  }
  return outputs;
}

export interface EvaluateOptions {
  /** $KUBECONFIG while the program runs (components read it for their waiters). */
  kubeconfigPath: string;
  /** Evaluate as `pulumi preview` does (unknowns stay unknown, the components read the cluster). */
  preview?: boolean;
  /** Who answers the reads the components make themselves at a preview, instead of the cluster. */
  clusterReads?: (kubeconfig: string) => ClusterSnapshot;
}

/** Evaluates the project's program once, afresh, under `mocks`. */
export async function evaluate(
  project: Project,
  mocks: HarnessMocks,
  options: EvaluateOptions,
): Promise<Evaluation> {
  const errors: Error[] = [];
  let failed = () => {};
  const firstError = new Promise<void>((resolve) => (failed = resolve));
  const record = (reason: unknown) => {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    if (!errors.some((e) => e.message === error.message)) errors.push(error);
    failed();
  };
  // Outputs that depend on a failed registration never resolve, so nor do the registrations waiting on
  // them: as the language host ends the program at its first unhandled error, the evaluation ends once
  // errors have stopped coming (a few turns of the event loop), keeping every component's own errors.
  const untilErrorsSettle = async () => {
    await firstError;
    for (let seen = -1; seen !== errors.length;) {
      seen = errors.length;
      for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const settled = () => Promise.race([settle(), untilErrorsSettle()]);
  await installMocks(project, mocks, record, options.preview === true);
  if (options.clusterReads) answerClusterReads(settings.getMonitor() as object, options.clusterReads);
  pulumi.runtime.setAllConfig(project.config);

  const previousKubeconfig = process.env.KUBECONFIG;
  process.env.KUBECONFIG = options.kubeconfigPath;
  // The SDK turns a failed registration into an unhandled rejection on purpose; the language host
  // reports those, and so does the harness.
  process.on("unhandledRejection", record);
  let outputs: Record<string, unknown> = {};
  try {
    if (project.main.endsWith(".ts")) registerTypeScript(project.dir);
    delete require.cache[require.resolve(project.main)];
    let exports: Record<string, unknown> = {};
    try {
      exports = require(project.main) as Record<string, unknown>;
    } catch (error) {
      record(error);
    }
    await settled();
    if (errors.length === 0) outputs = await resolveOutputs(exports).catch((e) => (record(e), {}));
    await settled();
  } finally {
    process.off("unhandledRejection", record);
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
  }
  return { errors, outputs };
}
