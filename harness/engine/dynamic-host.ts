/**
 * Dynamic resources carried out by the SDK's own dynamic-provider host
 * (@pulumi/pulumi/cmd/dynamic-provider), started as a process the way the engine starts the
 * `pulumi-resource-pulumi-nodejs` plugin and driven as a `ResourceProvider` over gRPC. The host does
 * not accept secrets (its Configure says so), so, as the engine does, values are revealed before they
 * are sent and outputs of secret inputs are marked secret again by the caller.
 */
import * as grpc from "@grpc/grpc-js";
import { ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import { reveal } from "../secrets";
import { call, fromStruct, Props, providerProto, providerRpc, StructLike, toStruct } from "./rpc";

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

/**
 * Loaded into the host before its entry: the host exits when its stdin, a pipe from the harness, closes,
 * so a harness killed outright (kill -9, where no exit handler runs) leaves no host running.
 */
const EXIT_WITH_PARENT = `data:text/javascript,process.stdin.on("end",()=>process.exit(0)).resume()`;

/** A request about a resource's old and new properties (Diff, Update), values revealed. */
function oldsAndNews<T extends Message>(request: T, urn: string, id: string, olds: Props, news: Props): T {
  request.setUrn(urn);
  request.setId(id);
  request.setOlds(toStruct(reveal(olds) as Props));
  request.setNews(toStruct(reveal(news) as Props));
  return request;
}

export class DynamicHost {
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: grpc.Client & Record<string, unknown>,
    private readonly output: () => string,
    /** Kills the host when the harness exits first; dropped once the host is stopped. */
    private readonly killOnExit: () => void,
  ) {}

  /** Starts the host from the program's directory (its serialized providers' requires resolve there). */
  static async start(programDir: string, engine: string, env: NodeJS.ProcessEnv): Promise<DynamicHost> {
    const entry = path.dirname(
      require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [programDir] }),
    );
    const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, entry, engine], {
      cwd: programDir,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const kill = () => child.kill("SIGKILL");
    process.on("exit", kill);
    child.on("exit", () => process.off("exit", kill));
    let output = "";
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      let first = "";
      const onData = (chunk: Buffer) => {
        first += chunk.toString();
        const newline = first.indexOf("\n");
        if (newline < 0) return;
        child.stdout!.off("data", onData);
        // What providers print later (their progress lines) is the host's own output.
        child.stdout!.on("data", (more: Buffer) => (output += more.toString()));
        resolve(Number(first.slice(0, newline).trim()));
      };
      child.stdout!.on("data", onData);
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`the dynamic-provider host exited (${code}): ${output}`)));
    });
    const Client = grpc.makeGenericClientConstructor(providerRpc.ResourceProviderService, "ResourceProvider");
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 400 * 1024 * 1024,
    }) as grpc.Client & Record<string, unknown>;
    const host = new DynamicHost(child, client, () => output, kill);
    const configure = new providerProto.ConfigureRequest();
    configure.setArgs(toStruct({}));
    configure.setAcceptsecrets(true);
    configure.setAcceptresources(true);
    await host.rpc("configure", configure);
    return host;
  }

  private async rpc<T>(method: string, request: unknown): Promise<T> {
    return call<unknown, T>(this.client, method, request);
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
    return this.output();
  }

  stop(): void {
    this.client.close();
    this.child.removeAllListeners("exit");
    process.off("exit", this.killOnExit);
    this.child.kill();
  }
}
