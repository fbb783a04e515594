#!/usr/bin/env node
/**
 * `openshift-topology <command>`: the package's command, for a platform repository that installs the
 * package (`npx openshift-topology ...`): render a program's manifests and ROLLOUT.md, capture the
 * fixtures they are rendered from, run the simulated cluster, deploy without the Pulumi CLI. Each
 * command's module is loaded only when asked for: rendering loads neither the engine nor the simulator.
 */
import { BIN as NAME, requirePeers, runCommand, SIMULATOR_PEERS } from "./cli";

const USAGE = `usage: ${NAME} <command> [args]

commands:
  render <project dir> [--baseline DIR]   the program's manifests as YAML files, without a cluster;
                                          with --baseline, ROLLOUT.md: what the change does to each pool's nodes
  fixtures capture <project dir>          write fixtures.yaml: what the program reads of a live cluster, secrets left out
  sim                                     a simulated OpenShift cluster on 127.0.0.1 (writes .sim/kubeconfig)
  deploy <preview|up|refresh|destroy|cancel|config> <project dir>
                                          run the stack without the Pulumi CLI
  crds export --out DIR                   your cluster's CRDs, for render --validate and sim --crds

${NAME} <command> --help says more.`;

const COMMANDS: Record<string, (argv: string[]) => void> = {
  render: (argv) => runCommand((require("./render") as typeof import("./render")).main, argv),
  fixtures: (argv) => runCommand((require("./capture") as typeof import("./capture")).main, argv),
  deploy: (argv) => (require("./deploy") as typeof import("./deploy")).runDeploy(argv),
  crds: (argv) => {
    if (argv[0] !== "export") throw new Error(`usage: ${NAME} crds export --out DIR [--kubeconfig FILE]`);
    runCommand((require("./export-crds") as typeof import("./export-crds")).main, argv.slice(1));
  },
  sim: (argv) => {
    // CRD validation and the serving certificate: nothing else of the package needs them.
    requirePeers(SIMULATOR_PEERS, "sim");
    const simulator = require("../simulator/main") as typeof import("../simulator/main");
    simulator.runSimulator(argv, { sim: `${NAME} sim`, crdsExport: `${NAME} crds export` });
  },
};

function run(argv: string[]): void {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    process.exit(command === undefined ? 1 : 0);
  }
  const start = COMMANDS[command];
  if (!start) {
    console.error(`unknown command ${command}\n\n${USAGE}`);
    process.exit(1);
  }
  try {
    start(rest);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

run(process.argv.slice(2));
