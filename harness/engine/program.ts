/**
 * Runs a Pulumi program as the Node.js language host does: `node @pulumi/pulumi/cmd/run` resolved from
 * the program's directory, with the monitor and engine addresses, project, stack, working directory,
 * dry-run and parallelism as arguments, and config, secret config keys and TypeScript settings in the
 * environment.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { Project } from "../project";

export interface ProgramRun {
  /** The process's exit code: 0, or 32 when the SDK already logged the error, or another failure. */
  code: number;
  /** What the program wrote itself (console output), for failures the SDK did not log. */
  output: string;
}

export interface RunOptions {
  monitor: string;
  dryRun: boolean;
  /** Extra environment (the waiters' $KUBECONFIG). */
  env: NodeJS.ProcessEnv;
  /** Node options loaded before the program (the fixtures' answers to its Resource Manager requests). */
  imports?: string[];
}

/**
 * Node 20.20's `util.inspect` loops until memory runs out when it colours an error whose stack has a
 * frame ending in `node_modules/<file>` or `node_modules/@scope/<file>` (nodejs/node#64011, fixed in
 * later release lines only): @pulumi/pulumi's source maps point one directory too high
 * (`node_modules/@pulumi/config.ts`), and the SDK's run entry colours every uncaught error, so a missing
 * config key cost some 40 s of CPU before it was reported. Such an error is inspected without colours.
 */
export const INSPECT_GUARD = `data:text/javascript,${encodeURIComponent(`import util from "node:util";
const inspect = util.inspect;
const looping = /node_modules[\\\\/](@[^\\\\/\\n]*[\\\\/])?[^\\\\/\\n]*$/m;
util.inspect = Object.setPrototypeOf(function (value, options, ...rest) {
  if (options?.colors && value instanceof Error && looping.test(String(value.stack)))
    options = { ...options, colors: false };
  return inspect.call(this, value, options, ...rest);
}, inspect);`)}`;

/** The language host's default: as many resource operations at once as the engine allows. */
const PARALLEL = 2147483647;

export interface RunningProgram {
  done: Promise<ProgramRun>;
  /** Interrupts the program, as the language host does when the engine cancels the deployment. */
  cancel(): void;
}

export function runProgram(project: Project, options: RunOptions): RunningProgram {
  const programDir = path.dirname(project.main);
  const entry = require.resolve("@pulumi/pulumi/cmd/run", { paths: [programDir] });
  const args = [
    "--import",
    INSPECT_GUARD,
    ...(options.imports ?? []),
    entry,
    "--monitor",
    options.monitor,
    "--engine",
    options.monitor,
    "--project",
    project.name,
    "--root-directory",
    project.dir,
    "--stack",
    project.stack,
    "--pwd",
    project.dir,
    ...(options.dryRun ? ["--dry-run"] : []),
    "--parallel",
    String(PARALLEL),
    path.relative(project.dir, project.main) || ".",
  ];
  const child = spawn(process.execPath, args, {
    cwd: project.dir,
    env: {
      ...process.env,
      ...options.env,
      PULUMI_CONFIG: JSON.stringify(project.config),
      PULUMI_CONFIG_SECRET_KEYS: "[]",
      PULUMI_NODEJS_TYPESCRIPT: "true",
      // Type checking is the build's job (npm run typecheck); Pulumi.yaml's nodejs option does the same.
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A harness that exits (or is interrupted) takes its program with it, as the language host does.
  const kill = () => child.kill("SIGKILL");
  process.on("exit", kill);
  child.on("exit", () => process.off("exit", kill));
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<ProgramRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
  return {
    done,
    cancel: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGINT");
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    },
  };
}
