import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { PassThrough } from "node:stream";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { deployCommandArgs } from "../test/stack-life";
import { captureConsole } from "../test/console";
import { main, refresh } from "./deploy";
import { emptyCheckpoint, loadCheckpoint, lockDir, lockStack, saveCheckpoint } from "./engine/checkpoint";
import { INSPECT_GUARD } from "./engine/program";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const DEPLOY_CLI = path.join(__dirname, "testdata", "deploy-cli");

/** What a user reads from `npm run deploy -- <args>`, run as the script runs it. */
function deployCommand(
  sim: Simulator,
  home: string,
  args: string[],
): Promise<{ code: number | null; stdout: string[]; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      deployCommandArgs(args),
      {
        cwd: path.resolve(__dirname, ".."),
        env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: home },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (error.code as number | null) : 0, stdout: stdout.split("\n"), stderr }),
    ),
  );
}

describe("npm run deploy: the command a user runs", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let home: string;
  const suite = simulatorForSuite("harness-deploy-cli-", { speed: 500 });
  before(() => ({ sim, dir: home } = suite));

  it("remembers config set in Pulumi.<stack>.yaml", async () => {
    const program = installedProgram(DEPLOY_CLI);
    const set = await deployCommand(sim, home, ["config", "set", "motd", "hello-from-config\n", program]);
    assert.equal(set.code, 0, set.stderr);
    const file = path.join(program, "Pulumi.dev.yaml");
    assert.deepEqual(parse(fs.readFileSync(file, "utf8")), {
      config: { "harness-deploy-cli:motd": "hello-from-config\n" },
    });
  });

  // @pulumi/pulumi's source maps name frames `node_modules/@pulumi/config.ts`, and its run entry colours
  // each uncaught error with util.inspect: on Node 20.20 that loops until memory runs out (nodejs/node#64011).
  it("reports a missing config key at once: the program's errors are inspected without that loop", async () => {
    const script = `const util = require("node:util");
      const looping = new Error("Missing required configuration variable");
      looping.stack = "Error: Missing\\n    at Config.requireImpl (/p/node_modules/@pulumi/config.ts:301:19)";
      const plain = new Error("plain");
      console.log(util.inspect(looping, { colors: true }) === util.inspect(looping), util.inspect(plain, { colors: true }).includes("\\u001b["));`;
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ["--import", INSPECT_GUARD, "-e", script], (error, stdout) =>
        error ? reject(error) : resolve(stdout.trim()),
      ),
    );
    assert.equal(output, "true true", "uncoloured where Node would loop, coloured elsewhere");
  });

  it("fails a preview missing a config key with the SDK's advice and this command's way to follow it", async () => {
    const program = installedProgram(DEPLOY_CLI);
    const state = path.join(home, "no-motd.json");
    const result = await deployCommand(sim, home, ["preview", program, "--stack", "bare", "--state", state]);
    assert.equal(result.code, 1, result.stderr);
    assert.ok(
      result.stderr.includes(
        `\`pulumi config set harness-deploy-cli:motd <value>\` (without the CLI: \`npm run deploy -- config set harness-deploy-cli:motd <value> ${program}\`)`,
      ),
      result.stderr,
    );
  });

  it("deletes the locks a killed operation left, as pulumi cancel does with the diy backend (CancelCurrentUpdate)", async () => {
    const state = path.join(home, "cancelled.json");
    lockStack(state);
    const result = await deployCommand(sim, home, ["cancel", installedProgram(DEPLOY_CLI), "--state", state]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout[0], "The currently running update for 'dev' has been canceled!");
    assert.deepEqual(fs.readdirSync(lockDir(state)), []);
  });

  it("keeps the pending creates a killed up left through a refresh, and drops them with refresh --clear-pending-creates (snapshot manager's snap; refresh.go, clearPendingCreates)", async () => {
    const state = path.join(home, "pending.json");
    const program = installedProgram(DEPLOY_CLI);
    const urn = "urn:pulumi:dev::harness-deploy-cli::kubernetes:core/v1:ConfigMap::made";
    const killed = emptyCheckpoint();
    killed.deployment.pending_operations = [
      { type: "creating", resource: { urn, custom: true, type: "kubernetes:core/v1:ConfigMap", inputs: {} } },
    ];
    saveCheckpoint(state, killed);
    const kept = await refresh({
      project: loadProject(program, "dev"),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: state,
    });
    assert.deepEqual(kept.errors, []);
    assert.deepEqual(
      loadCheckpoint(state).deployment.pending_operations,
      killed.deployment.pending_operations,
    );
    const cleared = await deployCommand(sim, home, [
      "refresh",
      program,
      "--state",
      state,
      "--clear-pending-creates",
    ]);
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(loadCheckpoint(state).deployment.pending_operations, undefined);
  });

  it("previews with each resource's diagnostics, the rollout impact among them, and the planned steps", async () => {
    const result = await deployCommand(sim, home, ["preview", installedProgram(DEPLOY_CLI)]);
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.equal(out[0], "Previewing update (dev)");
    // The cluster it is about to reach, and why that one: the kubeconfig may not be the one meant.
    const server = parse(fs.readFileSync(sim.kubeconfigPath, "utf8")).clusters[0].cluster.server;
    assert.equal(out[1], `Cluster: ${server} (kubeconfig ${sim.kubeconfigPath}, from $KUBECONFIG)`);
    assert.ok(
      out.includes(" +  kubernetes:machineconfiguration.openshift.io/v1:MachineConfig 99-worker-motd create"),
      out.join("\n"),
    );
    const diagnostics = out.indexOf("Diagnostics:");
    assert.ok(diagnostics > 0, out.join("\n"));
    const owner = out.indexOf("  openshift-topology:index:MachineConfig (99-worker-motd):");
    assert.ok(owner > diagnostics, out.join("\n"));
    // The simulated cluster has 3 workers; maxUnavailable 1 (the worker pool's default).
    assert.match(
      out[owner + 1],
      /^ {4}pool worker: new render; 3 nodes drain and reboot, 1 at a time, 3 waves/,
    );
    assert.ok(out.includes("    renderedConfig: [unknown]"), out.join("\n"));
    assert.ok(out.includes("    motdText      : [secret]"), out.join("\n"));
    assert.ok(out.includes("Resources:"), out.join("\n"));
    assert.ok(
      out.some((l) => /^ {4}\+ \d+ to create$/.test(l)),
      out.join("\n"),
    );
  });

  it("shows the waiters' progress during up, then the outputs, secrets as [secret]", async () => {
    const result = await deployCommand(sim, home, ["up", installedProgram(DEPLOY_CLI)]);
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.equal(out[0], "Updating (dev)");
    const created = out.findIndex((l) =>
      /^ \+ {2}pulumi-nodejs:dynamic:PoolRollout 99-worker-motd-rollout created \(\d+\.\ds\)$/.test(l),
    );
    assert.ok(created > 0, out.join("\n"));
    const progress = out.filter((l) => l.startsWith("    PoolRollout pool/worker: pool worker: "));
    assert.ok(progress.length > 1, out.join("\n"));
    assert.ok(out.indexOf(progress[0]) < created, "progress is shown while the waiter waits");
    const rendered = sim.store
      .list("machineconfiguration.openshift.io/v1", "MachineConfigPool")
      .find((p) => p.metadata.name === "worker")!.spec as { configuration: { name: string } };
    assert.ok(out.includes(`    renderedConfig: "${rendered.configuration.name}"`), out.join("\n"));
    assert.ok(out.includes("    motdText      : [secret]"), out.join("\n"));
    assert.ok(!result.stdout.join("\n").includes("hello-from-config"), "the secret's value is never printed");
    assert.ok(
      out.some((l) => /^ {4}\+ \d+ created$/.test(l)),
      out.join("\n"),
    );
    assert.ok(
      out.some((l) => /^Duration: \d+\.\ds$/.test(l)),
      out.join("\n"),
    );
  });

  it("destroy shows what it deletes and asks first; without a terminal to ask on it needs --yes", async () => {
    const program = installedProgram(DEPLOY_CLI);
    const state = path.join(home, ".openshift-topology-harness", "harness-deploy-cli.dev.json");
    const args = ["destroy", program, "--kubeconfig", sim.kubeconfigPath, "--state", state];
    const motd = () =>
      sim.store
        .list("machineconfiguration.openshift.io/v1", "MachineConfig")
        .find((m) => m.metadata.name === "99-worker-motd");
    await assert.rejects(
      main(args, { input: new PassThrough(), output: new PassThrough(), interactive: false }),
      /^Error: --yes must be passed in to proceed when running in non-interactive mode/,
    );
    const input = new PassThrough();
    const output = new PassThrough();
    let asked = "";
    output.on("data", (chunk: Buffer) => {
      asked += chunk.toString();
      if (asked.endsWith("(yes/no) ")) input.end("no\n");
    });
    const { result, output: printed } = await captureConsole(() =>
      main(args, { input, output, interactive: true }),
    );
    assert.equal(result, 1);
    assert.equal(asked, "Do you want to perform this destroy of stack dev? (yes/no) ");
    const lines = printed.split("\n");
    assert.equal(lines[0], "Previewing destroy (dev)");
    assert.ok(lines.includes(" -  pulumi-nodejs:dynamic:PoolRollout 99-worker-motd-rollout delete"), printed);
    assert.ok(lines.includes("    - 3 to delete"), printed);
    assert.equal(lines.at(-1), "confirmation declined, not proceeding with the destroy");
    assert.ok(motd(), "nothing is deleted without a yes");
    assert.equal(loadCheckpoint(state).deployment.resources.length > 0, true);
  });

  it("destroys the stack with --yes, dependents first, and counts what it deleted", async () => {
    const result = await deployCommand(sim, home, ["destroy", installedProgram(DEPLOY_CLI), "--yes"]);
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.equal(out[0], "Destroying (dev)");
    const deleted = (resource: string) => out.findIndex((l) => l.startsWith(` -  ${resource} deleted (`));
    const waiter = deleted("pulumi-nodejs:dynamic:PoolRollout 99-worker-motd-rollout");
    const object = deleted("kubernetes:machineconfiguration.openshift.io/v1:MachineConfig 99-worker-motd");
    assert.ok(waiter > 0 && object > waiter, out.join("\n"));
    assert.ok(out.includes("    - 3 deleted"), out.join("\n"));
    assert.ok(!out.includes("Outputs:"), out.join("\n"));
    assert.equal(
      sim.store
        .list("machineconfiguration.openshift.io/v1", "MachineConfig")
        .find((m) => m.metadata.name === "99-worker-motd"),
      undefined,
    );
  });
});
