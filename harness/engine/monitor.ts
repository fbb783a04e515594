/**
 * The engine's side of the language protocol: a gRPC server with the `ResourceMonitor` and `Engine`
 * services that the SDK's language entry point (@pulumi/pulumi/cmd/run) talks to. It turns requests
 * into `Registration`s with URNs computed as the engine computes them and hands them to a `Host`,
 * which decides what to do; answers and failures go back over the wire.
 */
import * as grpc from "@grpc/grpc-js";
import {
  emptyProto,
  engineProto,
  engineRpc,
  fromStruct,
  Props,
  providerProto,
  resourceProto,
  resourceRpc,
  StructLike,
  toStruct,
} from "./rpc";

export const STACK_TYPE = "pulumi:pulumi:Stack";

export interface Registration {
  urn: string;
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  /** A component of a package that the engine asks the package's provider to Construct. */
  remote: boolean;
  /** Set for a read (`.get`): the id to read. */
  readId?: string;
  inputs: Props;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** `urn::id` of an explicit provider, or empty for the default one. */
  provider: string;
  /** A component's providers by package, `urn::id` each, which its children of that package use. */
  providers: Record<string, string>;
  additionalSecretOutputs: string[];
  /** The program's `deleteBeforeReplace`, undefined when it gives none (the provider decides then). */
  deleteBeforeReplace?: boolean;
  /** Property paths kept at their current values on update (`ignoreChanges`). */
  ignoreChanges: string[];
  /** Property paths whose change replaces the resource (`replaceOnChanges`). */
  replaceOnChanges: string[];
  /** The `import` option: the id of an existing object to adopt instead of creating one. */
  importId: string;
  /** `customTimeouts`, in seconds (0 when not given), as the engine keeps them in state. */
  customTimeouts: CustomTimeouts;
  protect: boolean;
  retainOnDelete: boolean;
  /** URNs the resource had before (`aliases`, as the SDK computes them, parents' included). */
  aliases: string[];
}

export interface CustomTimeouts {
  create: number;
  update: number;
  delete: number;
}

/** A Go duration as the SDK sends `customTimeouts` ("10m", "1h30m", "90s", "500ms"), in seconds. */
export function durationSeconds(text: string): number {
  if (!text) return 0;
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, ns: 1e-9 };
  let seconds = 0;
  const rest = text.replace(/(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)/g, (_all, n: string, unit: string) => {
    seconds += Number(n) * units[unit];
    return "";
  });
  if (rest !== "") throw new Error(`customTimeouts: "${text}" is not a duration such as "10m" or "90s"`);
  return seconds;
}

export interface Host {
  register(registration: Registration): Promise<{ id: string; outputs: Props }>;
  read(registration: Registration): Promise<Props>;
  invoke(token: string, args: Props): Props;
  registerOutputs(urn: string, outputs: Props): void;
  log(
    severity: "debug" | "info" | "warning" | "error",
    message: string,
    urn: string,
    ephemeral: boolean,
  ): void;
}

/**
 * What the monitor answers to SupportsFeature, as the engine does (pulumi/pulumi
 * pkg/resource/deploy/source_eval.go, supportsFeatureID): secrets travel marked, and a resource in a
 * value travels as a reference (a component package's provider rehydrates it, e.g. a program's
 * Kubernetes provider given as a component's `provider`); the rest take the SDK's older paths.
 */
const FEATURES = new Set(["secrets", "resourceReferences"]);

const SEVERITIES = ["debug", "info", "warning", "error"] as const;

interface Request {
  request: Record<string, (...args: unknown[]) => unknown>;
}
type Reply = (error: Partial<grpc.ServiceError> | null, value?: unknown) => void;

function mapOfLists(map: { forEach(fn: (value: { getUrnsList(): string[] }, key: string) => void): void }) {
  const result: Record<string, string[]> = {};
  map.forEach((value, key) => (result[key] = value.getUrnsList()));
  return result;
}

export function urnOf(stack: string, project: string, parentType: string, type: string, name: string) {
  const qualified = parentType && parentType !== STACK_TYPE ? `${parentType}$${type}` : type;
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}

/** The qualified type in a URN (`parent$child`), for its children's URNs. */
export function qualifiedType(urn: string): string {
  return urn.split("::")[2] ?? "";
}

export interface Monitor {
  address: string;
  /** URN of the stack resource, once the program registered it. */
  rootUrn(): string;
  stop(): Promise<void>;
}

interface TimeoutsMessage {
  getCreate(): string;
  getUpdate(): string;
  getDelete(): string;
}

function timeouts(message: TimeoutsMessage | undefined): CustomTimeouts {
  return {
    create: durationSeconds(message?.getCreate() ?? ""),
    update: durationSeconds(message?.getUpdate() ?? ""),
    delete: durationSeconds(message?.getDelete() ?? ""),
  };
}

export async function startMonitor(project: string, stack: string, host: Host): Promise<Monitor> {
  let root = "";
  const urn = (parent: string, type: string, name: string) =>
    urnOf(stack, project, parent ? qualifiedType(parent) : "", type, name);
  const registration = (req: Request["request"], custom: boolean, readId?: string): Registration => ({
    urn: urn(req.getParent() as string, req.getType() as string, req.getName() as string),
    type: req.getType() as string,
    name: req.getName() as string,
    parent: req.getParent() as string,
    custom,
    remote: Boolean(req.getRemote?.()),
    readId,
    inputs: fromStruct((req.getObject ?? req.getProperties).call(req) as StructLike | undefined),
    dependencies: req.getDependenciesList() as string[],
    propertyDependencies: req.getPropertydependenciesMap
      ? mapOfLists(req.getPropertydependenciesMap() as Parameters<typeof mapOfLists>[0])
      : {},
    provider: req.getProvider() as string,
    providers: Object.fromEntries(
      (req.getProvidersMap?.() as { toArray(): Array<[string, string]> } | undefined)?.toArray() ?? [],
    ),
    additionalSecretOutputs: req.getAdditionalsecretoutputsList() as string[],
    // As the engine reads it (source_eval.go): given when defined, or true from an SDK that sets no `defined`.
    deleteBeforeReplace:
      req.getDeletebeforereplacedefined?.() || req.getDeletebeforereplace?.()
        ? Boolean(req.getDeletebeforereplace())
        : undefined,
    ignoreChanges: (req.getIgnorechangesList?.() as string[] | undefined) ?? [],
    replaceOnChanges: (req.getReplaceonchangesList?.() as string[] | undefined) ?? [],
    importId: (req.getImportid?.() as string | undefined) ?? "",
    customTimeouts: timeouts(req.getCustomtimeouts?.() as TimeoutsMessage | undefined),
    protect: Boolean(req.getProtect?.()),
    retainOnDelete: Boolean(req.getRetainondelete?.()),
    aliases: (req.getAliasurnsList?.() as string[] | undefined) ?? [],
  });
  const fail = (reply: Reply, error: unknown) =>
    reply({
      code: grpc.status.UNKNOWN,
      details: error instanceof Error ? error.message : String(error),
    });

  const monitor = {
    supportsFeature({ request }: Request, reply: Reply) {
      const response = new resourceProto.SupportsFeatureResponse();
      response.setHassupport(FEATURES.has(request.getId() as string));
      reply(null, response);
    },
    registerResource({ request }: Request, reply: Reply) {
      let r: Registration;
      try {
        r = registration(request, request.getCustom() as boolean);
      } catch (error) {
        return fail(reply, error);
      }
      host.register(r).then(
        ({ id, outputs }) => {
          const response = new resourceProto.RegisterResourceResponse();
          response.setUrn(r.urn);
          response.setId(id);
          response.setObject(toStruct(outputs));
          reply(null, response);
        },
        (error) => fail(reply, error),
      );
    },
    readResource({ request }: Request, reply: Reply) {
      const r = registration(request, true, request.getId() as string);
      host.read(r).then(
        (outputs) => {
          const response = new resourceProto.ReadResourceResponse();
          response.setUrn(r.urn);
          response.setProperties(toStruct(outputs));
          reply(null, response);
        },
        (error) => fail(reply, error),
      );
    },
    registerResourceOutputs({ request }: Request, reply: Reply) {
      host.registerOutputs(request.getUrn() as string, fromStruct(request.getOutputs() as StructLike));
      reply(null, new emptyProto.Empty());
    },
    invoke({ request }: Request, reply: Reply) {
      const response = new providerProto.InvokeResponse();
      try {
        response.setReturn(
          toStruct(host.invoke(request.getTok() as string, fromStruct(request.getArgs() as StructLike))),
        );
      } catch (error) {
        // As a provider reports a failed invoke: the SDK raises it with the reason.
        const failure = new providerProto.CheckFailure();
        failure.setReason(error instanceof Error ? error.message : String(error));
        response.setFailuresList([failure]);
      }
      reply(null, response);
    },
    signalAndWaitForShutdown(_call: Request, reply: Reply) {
      reply(null, new emptyProto.Empty());
    },
  };
  const engine = {
    log({ request }: Request, reply: Reply) {
      host.log(
        SEVERITIES[request.getSeverity() as number] ?? "info",
        request.getMessage() as string,
        request.getUrn() as string,
        request.getEphemeral() as boolean,
      );
      reply(null, new emptyProto.Empty());
    },
    getRootResource(_call: Request, reply: Reply) {
      const response = new engineProto.GetRootResourceResponse();
      response.setUrn(root);
      reply(null, response);
    },
    setRootResource({ request }: Request, reply: Reply) {
      root = request.getUrn() as string;
      reply(null, new engineProto.SetRootResourceResponse());
    },
  };

  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(
    resourceRpc.ResourceMonitorService,
    monitor as unknown as grpc.UntypedServiceImplementation,
  );
  server.addService(engineRpc.EngineService, engine as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    rootUrn: () => root,
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => server.forceShutdown(), 2000).unref();
      }),
  };
}
