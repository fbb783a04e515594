/**
 * Dynamic resources carried out by the SDK's own dynamic-provider host
 * (@pulumi/pulumi/cmd/dynamic-provider), started as a process the way the engine starts the
 * `pulumi-resource-pulumi-nodejs` plugin and driven as a `ResourceProvider` over gRPC. The host does
 * not accept secrets (its Configure says so), so, as the engine does, values are revealed before they
 * are sent and outputs of secret inputs are marked secret again by the caller.
 */
import * as path from "node:path";
import { reveal } from "../secrets";
import { PluginProcess, startPlugin } from "./plugin-process";
import { call, fromStruct, Props, providerProto, StructLike, toStruct } from "./rpc";

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface DiffResult {
  changes: "some" | "none" | "unknown";
  replaces: string[];
  deleteBeforeReplace: boolean;
}

type Message = Record<string, (...args: unknown[]) => unknown>;

/** A request about a resource's old and new properties (Diff, Update), values revealed. */
function oldsAndNews<T extends Message>(request: T, urn: string, id: string, olds: Props, news: Props): T {
  request.setUrn(urn);
  request.setId(id);
  request.setOlds(toStruct(reveal(olds) as Props));
  request.setNews(toStruct(reveal(news) as Props));
  return request;
}

export class DynamicHost {
  private constructor(private readonly plugin: PluginProcess) {}

  /** Starts the host from the program's directory (its serialized providers' requires resolve there). */
  static async start(programDir: string, engine: string, env: NodeJS.ProcessEnv): Promise<DynamicHost> {
    const entry = path.dirname(
      require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [programDir] }),
    );
    return new DynamicHost(await startPlugin("dynamic-provider host", [entry, engine], programDir, env));
  }

  private async rpc<T>(method: string, request: unknown): Promise<T> {
    return call<unknown, T>(this.plugin.client, method, request);
  }

  async check(urn: string, olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
    const request = new providerProto.CheckRequest();
    request.setUrn(urn);
    request.setOlds(toStruct(reveal(olds) as Props));
    request.setNews(toStruct(reveal(news) as Props));
    const response = await this.rpc<Message>("check", request);
    const failures = (response.getFailuresList() as Message[]).map((f) => ({
      property: f.getProperty() as string,
      reason: f.getReason() as string,
    }));
    return { inputs: fromStruct(response.getInputs() as StructLike), failures };
  }

  async diff(urn: string, id: string, olds: Props, news: Props): Promise<DiffResult> {
    const request = oldsAndNews(new providerProto.DiffRequest(), urn, id, olds, news);
    const response = await this.rpc<Message>("diff", request);
    const changes = response.getChanges() as number;
    const { DIFF_NONE, DIFF_SOME } = providerProto.DiffResponse.DiffChanges;
    return {
      changes: changes === DIFF_SOME ? "some" : changes === DIFF_NONE ? "none" : "unknown",
      replaces: response.getReplacesList() as string[],
      deleteBeforeReplace: response.getDeletebeforereplace() as boolean,
    };
  }

  async create(urn: string, inputs: Props): Promise<{ id: string; outputs: Props }> {
    const request = new providerProto.CreateRequest();
    request.setUrn(urn);
    request.setProperties(toStruct(reveal(inputs) as Props));
    const response = await this.rpc<Message>("create", request);
    return { id: response.getId() as string, outputs: fromStruct(response.getProperties() as StructLike) };
  }

  async update(urn: string, id: string, olds: Props, news: Props): Promise<Props> {
    const request = oldsAndNews(new providerProto.UpdateRequest(), urn, id, olds, news);
    const response = await this.rpc<Message>("update", request);
    return fromStruct(response.getProperties() as StructLike);
  }

  /** Read as in a refresh: the resource's last inputs and outputs in; its id, outputs and, if the provider says, inputs back. */
  async read(
    urn: string,
    id: string,
    inputs: Props,
    props: Props,
  ): Promise<{ id: string; outputs: Props; inputs?: Props }> {
    const request = new providerProto.ReadRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setInputs(toStruct(reveal(inputs) as Props));
    request.setProperties(toStruct(reveal(props) as Props));
    const response = await this.rpc<Message>("read", request);
    const read = response.getInputs() as StructLike | undefined;
    return {
      id: response.getId() as string,
      outputs: fromStruct(response.getProperties() as StructLike),
      ...(read ? { inputs: fromStruct(read) } : {}),
    };
  }

  async delete(urn: string, id: string, props: Props): Promise<void> {
    const request = new providerProto.DeleteRequest();
    request.setUrn(urn);
    request.setId(id);
    request.setProperties(toStruct(reveal(props) as Props));
    await this.rpc<unknown>("delete", request);
  }

  /** What the host printed (its errors and the providers' own lines). */
  log(): string {
    return this.plugin.output();
  }

  stop(): void {
    this.plugin.stop();
  }
}
