/**
 * A component package's provider, started as the engine starts a Node.js source plugin (its language
 * host runs @pulumi/pulumi/cmd/run-plugin on the package's directory, with the engine's address) and
 * driven over gRPC: `GetSchema`, and `Construct` of a component a program registered as remote, whose
 * children the provider registers with the engine's monitor.
 */
import * as path from "node:path";
import { PluginProcess, startPlugin } from "./plugin-process";
import { call, fromStruct, Props, providerProto, StructLike, toStruct } from "./rpc";

const statusProto = require("@pulumi/pulumi/proto/status_pb");
const errorsProto = require("@pulumi/pulumi/proto/errors_pb");

type Message = Record<string, (...args: unknown[]) => unknown>;

export interface PropertyError {
  propertyPath: string;
  reason: string;
}

/** A Construct refused for its inputs: Pulumi's InputPropertiesError, with each property and why. */
export class InputPropertiesFailure extends Error {
  constructor(
    readonly heading: string,
    readonly errors: PropertyError[],
  ) {
    super([heading, ...errors.map((e) => `  ${e.propertyPath}: ${e.reason}`)].join("\n"));
  }
}

/** The InputPropertiesError a provider packed into a gRPC error's status details, if any. */
function inputPropertiesFailure(error: unknown): InputPropertiesFailure | undefined {
  const e = error as { details?: string; metadata?: { get(key: string): Buffer[] } };
  const details = e.metadata?.get("grpc-status-details-bin")[0];
  if (!details) return undefined;
  const status = statusProto.Status.deserializeBinary(details);
  const any = (status.getDetailsList() as Message[]).find((d) =>
    String(d.getTypeUrl()).endsWith("pulumirpc.InputPropertiesError"),
  );
  if (!any) return undefined;
  const detail = errorsProto.InputPropertiesError.deserializeBinary(any.getValue_asU8());
  const errors = (detail.getErrorsList() as Message[]).map((p) => ({
    propertyPath: p.getPropertyPath() as string,
    reason: p.getReason() as string,
  }));
  const heading =
    e.details || `${errors.length === 1 ? "an input is" : `${errors.length} inputs are`} invalid`;
  return new InputPropertiesFailure(heading, errors);
}

export interface ConstructRequest {
  project: string;
  stack: string;
  config: Record<string, string>;
  dryRun: boolean;
  monitor: string;
  type: string;
  name: string;
  parent: string;
  inputs: Props;
  dependencies: string[];
  /** The component's providers by package (`urn::id`), as the program's `provider`/`providers` options gave them. */
  providers: Record<string, string>;
}

export class ComponentHost {
  private constructor(private readonly plugin: PluginProcess) {}

  /** Starts the package in `pluginDir` (its PulumiPlugin.yaml), with the engine's address. */
  static async start(pluginDir: string, engine: string, env: NodeJS.ProcessEnv): Promise<ComponentHost> {
    const runner = require.resolve("@pulumi/pulumi/cmd/run-plugin", { paths: [pluginDir] });
    const entry = path.dirname(runner);
    return new ComponentHost(
      await startPlugin("component provider", [entry, pluginDir, engine], pluginDir, env),
    );
  }

  async schema(): Promise<Props> {
    const response = await call<unknown, Message>(
      this.plugin.client,
      "getSchema",
      new providerProto.GetSchemaRequest(),
    );
    return JSON.parse(response.getSchema() as string) as Props;
  }

  async construct(request: ConstructRequest): Promise<{ urn: string; state: Props }> {
    const message = new providerProto.ConstructRequest();
    message.setProject(request.project);
    message.setStack(request.stack);
    for (const [key, value] of Object.entries(request.config)) message.getConfigMap().set(key, value);
    message.setDryrun(request.dryRun);
    message.setParallel(2147483647);
    message.setMonitorendpoint(request.monitor);
    message.setType(request.type);
    message.setName(request.name);
    message.setParent(request.parent);
    message.setInputs(toStruct(request.inputs));
    message.setDependenciesList(request.dependencies);
    for (const [pkg, ref] of Object.entries(request.providers)) message.getProvidersMap().set(pkg, ref);
    message.setAcceptsOutputValues(false);
    try {
      const response = await call<unknown, Message>(this.plugin.client, "construct", message);
      return {
        urn: response.getUrn() as string,
        state: fromStruct(response.getState() as StructLike | undefined),
      };
    } catch (error) {
      throw inputPropertiesFailure(error) ?? error;
    }
  }

  /** What the provider printed. */
  log(): string {
    return this.plugin.output();
  }

  stop(): void {
    this.plugin.stop();
  }
}
