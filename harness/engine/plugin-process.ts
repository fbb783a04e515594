/**
 * A provider plugin as the engine runs one: a process that prints the port of its gRPC server on its
 * first line of output, and a `ResourceProvider` client to it. Both the dynamic-provider host and the
 * component package run so.
 */
import * as grpc from "@grpc/grpc-js";
import { ChildProcess, spawn } from "node:child_process";
import { call, providerProto, providerRpc, toStruct } from "./rpc";

/**
 * Loaded into the plugin before its entry: the plugin exits when its stdin, a pipe from the harness,
 * closes, so a harness killed outright (kill -9, where no exit handler runs) leaves no plugin running.
 */
const EXIT_WITH_PARENT = `data:text/javascript,process.stdin.on("end",()=>process.exit(0)).resume()`;

export interface PluginProcess {
  child: ChildProcess;
  client: grpc.Client & Record<string, unknown>;
  /** What the plugin printed after its port (its errors and the providers' own lines). */
  output(): string;
  stop(): void;
}

/** Starts `node <args>` in `cwd`, reads its port, connects and configures it as the engine does. */
export async function startPlugin(
  label: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<PluginProcess> {
  const child = spawn(process.execPath, ["--import", EXIT_WITH_PARENT, ...args], {
    cwd,
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
      // What providers print later (their progress lines) is the plugin's own output.
      child.stdout!.on("data", (more: Buffer) => (output += more.toString()));
      resolve(Number(first.slice(0, newline).trim()));
    };
    child.stdout!.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the ${label} exited (${code}): ${output}`)));
  });
  const Client = grpc.makeGenericClientConstructor(providerRpc.ResourceProviderService, "ResourceProvider");
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
  }) as grpc.Client & Record<string, unknown>;
  const plugin: PluginProcess = {
    child,
    client,
    output: () => output,
    stop: () => {
      client.close();
      child.removeAllListeners("exit");
      process.off("exit", kill);
      child.kill();
    },
  };
  const configure = new providerProto.ConfigureRequest();
  configure.setArgs(toStruct({}));
  configure.setAcceptsecrets(true);
  configure.setAcceptresources(true);
  await call(client, "configure", configure);
  return plugin;
}
