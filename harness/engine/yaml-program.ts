/**
 * Runs a Pulumi YAML program as its language host does, for the resources of component packages: the
 * stack resource, then each resource of `resources:` registered with the engine as remote (the engine
 * then asks the package's provider to Construct it), with plain values, in the order their references
 * (`${name.output}`, whole or inside a string) require, and the stack's `outputs:`. Provider resources
 * (`pulumi:providers:<package>`) are registered as custom resources; a component's `provider` and
 * `providers` options send them by package, as `urn::id`, and a property `${name}` sends the resource
 * itself, as a resource reference (the engine supports them). Other YAML features
 * (config, variables, functions) are not modelled: a program using them is refused.
 */
import * as grpc from "@grpc/grpc-js";
import * as fs from "node:fs";
import { parse } from "yaml";
import type { Project } from "../project";
import { SECRET_SIG_KEY } from "../secrets";
import { STACK_TYPE } from "./monitor";
import type { ProgramRun, RunningProgram, RunOptions } from "./program";
import {
  call,
  engineProto,
  engineRpc,
  fromStruct,
  Props,
  RESOURCE_SIG,
  resourceProto,
  resourceRpc,
  StructLike,
  toStruct,
  UNKNOWN,
} from "./rpc";

interface YamlResource {
  type: string;
  properties?: Props;
  /** `provider: ${name}` or `providers: [${name}, ...]`, the program's provider resources. */
  options?: { provider?: string; providers?: string[] };
}

interface YamlProgram {
  resources: Record<string, YamlResource>;
  outputs: Props;
}

const KNOWN_KEYS = new Set(["name", "runtime", "description", "packages", "resources", "outputs"]);
/** A reference to a resource's output: `${infra.role}`, `${windows.machineSetNames[0]}`. */
const REFERENCE = /\$\{([A-Za-z][\w-]*)\.([^}]+)\}/g;
/** A reference to a resource itself, as resource options name providers: `${cluster}`. */
const RESOURCE = /^\$\{([A-Za-z][\w-]*)\}$/;
/** A property whose whole value is a resource itself, in a value's JSON text. */
const WHOLE_RESOURCE = /"\$\{([A-Za-z][\w-]*)\}"/g;
const PROVIDER_TYPE = "pulumi:providers:";

/** Reads the program: `resources:` and `outputs:` of Pulumi.yaml; stack config is passed, not read. */
export function readYamlProgram(project: Project): YamlProgram {
  const doc = (parse(fs.readFileSync(project.main, "utf8")) ?? {}) as Record<string, unknown>;
  const unsupported = Object.keys(doc).filter((k) => !KNOWN_KEYS.has(k));
  if (unsupported.length > 0) {
    throw new Error(`${project.main}: the harness's YAML runner does not model ${unsupported.join(", ")}`);
  }
  return {
    resources: (doc.resources ?? {}) as Record<string, YamlResource>,
    outputs: (doc.outputs ?? {}) as Props,
  };
}

/** The resources a value refers to: their outputs, or themselves. */
function referencesOf(value: unknown): string[] {
  const text = JSON.stringify(value ?? null);
  return [...text.matchAll(REFERENCE), ...text.matchAll(WHOLE_RESOURCE)].map((m) => m[1]);
}

/**
 * A resource as a value, the reference an SDK sends when the engine supports resource references
 * (pulumi/pulumi sdk/go/common/resource/plugin/rpc.go, MarshalPropertyValue): its URN, and the id of a
 * custom resource once known.
 */
function resourceReference(urn: string, id: string): Props {
  return { [SECRET_SIG_KEY]: RESOURCE_SIG, urn, ...(id && id !== UNKNOWN ? { id } : {}) };
}

/**
 * The provider resources a component's options name: `provider` joins `providers`, as the SDKs send a
 * component's options (pulumi/pulumi sdk/nodejs/runtime/resource.ts, prepareResource: a provider of
 * another package is shorthand for `providers: [provider]`).
 */
function providersOf(project: Project, resource: YamlResource): string[] {
  const { provider, providers = [] } = resource.options ?? {};
  return [...(provider === undefined ? [] : [provider]), ...providers].map((ref) => {
    const name = RESOURCE.exec(ref)?.[1];
    if (name === undefined) throw new Error(`${project.main}: a provider option is \${name}, not ${ref}`);
    return name;
  });
}

function at(value: unknown, path: string): unknown {
  return path
    .split(/\.|\[(\d+)\]/)
    .filter((key) => key !== undefined && key !== "")
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], value);
}

/**
 * The value with every reference replaced by the output it names (a whole-string reference keeps its
 * type), and each `${name}` by the resource's reference.
 */
function resolve(value: unknown, outputs: Map<string, Props>, resources: Map<string, Props>): unknown {
  if (typeof value === "string") {
    const resource = RESOURCE.exec(value);
    if (resource) return resources.get(resource[1]);
    const whole = /^\$\{([A-Za-z][\w-]*)\.([^}]+)\}$/.exec(value);
    if (whole) return at(outputs.get(whole[1]), whole[2]);
    return value.replace(REFERENCE, (_m, name: string, path: string) => String(at(outputs.get(name), path)));
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, outputs, resources));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, outputs, resources)]));
  }
  return value;
}

type Client = grpc.Client & Record<string, unknown>;

async function register(
  monitor: Client,
  request: {
    type: string;
    name: string;
    parent: string;
    remote: boolean;
    object: Props;
    dependencies: string[];
    providers?: Record<string, string>;
  },
): Promise<{ urn: string; id: string; outputs: Props }> {
  const message = new resourceProto.RegisterResourceRequest();
  message.setType(request.type);
  message.setName(request.name);
  message.setParent(request.parent);
  // A provider resource is custom; every other resource here is a package's component.
  message.setCustom(request.type.startsWith(PROVIDER_TYPE));
  message.setRemote(request.remote);
  message.setObject(toStruct(request.object));
  message.setDependenciesList(request.dependencies);
  for (const [pkg, ref] of Object.entries(request.providers ?? {})) message.getProvidersMap().set(pkg, ref);
  message.setAcceptsecrets(true);
  const response = await call<unknown, Record<string, () => unknown>>(monitor, "registerResource", message);
  return {
    urn: response.getUrn() as string,
    id: response.getId() as string,
    outputs: fromStruct(response.getObject() as StructLike | undefined),
  };
}

async function run(project: Project, options: RunOptions): Promise<ProgramRun> {
  const program = readYamlProgram(project);
  const Monitor = grpc.makeGenericClientConstructor(resourceRpc.ResourceMonitorService, "ResourceMonitor");
  const Engine = grpc.makeGenericClientConstructor(engineRpc.EngineService, "Engine");
  const monitor = new Monitor(options.monitor, grpc.credentials.createInsecure()) as Client;
  const engine = new Engine(options.monitor, grpc.credentials.createInsecure()) as Client;
  try {
    const stack = await register(monitor, {
      type: STACK_TYPE,
      name: `${project.name}-${project.stack}`,
      parent: "",
      remote: false,
      object: {},
      dependencies: [],
    });
    const root = new engineProto.SetRootResourceRequest();
    root.setUrn(stack.urn);
    await call(engine, "setRootResource", root);
    const outputs = new Map<string, Props>();
    const urns = new Map<string, string>();
    /** `urn::id` of each provider resource, as the SDKs send a provider reference. */
    const refs = new Map<string, string>();
    const references = new Map<string, Props>();
    const registered = new Map<string, Promise<void>>();
    const declare = (name: string): Promise<void> => {
      const known = registered.get(name);
      if (known) return known;
      const resource = program.resources[name];
      if (!resource) return Promise.reject(new Error(`${project.main}: no resource ${name}`));
      const providers = providersOf(project, resource);
      const after = [...new Set([...referencesOf(resource.properties), ...providers])];
      const done = Promise.all(after.map(declare)).then(async () => {
        const result = await register(monitor, {
          type: resource.type,
          name,
          parent: stack.urn,
          remote: !resource.type.startsWith(PROVIDER_TYPE),
          object: resolve(resource.properties ?? {}, outputs, references) as Props,
          dependencies: after.map((n) => urns.get(n)!),
          providers: Object.fromEntries(
            providers.map((p) => [program.resources[p].type.slice(PROVIDER_TYPE.length), refs.get(p)!]),
          ),
        });
        urns.set(name, result.urn);
        refs.set(name, `${result.urn}::${result.id}`);
        references.set(name, resourceReference(result.urn, result.id));
        outputs.set(name, result.outputs);
      });
      registered.set(name, done);
      return done;
    };
    const results = await Promise.allSettled(Object.keys(program.resources).map(declare));
    const failed = results.find((r) => r.status === "rejected");
    if (failed) {
      // The engine already reported the failure against the resource, as the CLI does.
      return { code: 32, output: String((failed as PromiseRejectedResult).reason) };
    }
    const stackOutputs = new resourceProto.RegisterResourceOutputsRequest();
    stackOutputs.setUrn(stack.urn);
    stackOutputs.setOutputs(toStruct(resolve(program.outputs, outputs, references) as Props));
    await call(monitor, "registerResourceOutputs", stackOutputs);
    return { code: 0, output: "" };
  } finally {
    monitor.close();
    engine.close();
  }
}

export function runYamlProgram(project: Project, options: RunOptions): RunningProgram {
  return {
    done: run(project, options).catch((error: Error) => ({ code: 1, output: error.message })),
    // Registrations in flight finish; nothing new starts after a failure (the engine refuses them).
    cancel: () => undefined,
  };
}
