/**
 * `npm run sim [-- --platform aws|azure --speed N --port N --crds DIR|none --protocol https|http]`
 * (`openshift-topology sim` from the package): runs
 * the simulator until Ctrl-C and explains how to point kubectl and Pulumi at it. Without CRDs (`--crds`, `OPENSHIFT_CRDS_DIR`
 * or `../shared/crds`) custom resources are served unvalidated, as a plain clone has none.
 */
import * as path from "node:path";
import { crdHint, findCrdDir } from "./schema";
import { startSimulator, SimulatorOptions } from "./simulator";

const OPTIONS = "[--platform aws|azure] [--speed N] [--port N] [--crds DIR|none] [--protocol https|http]";

function parseArgs(argv: string[], usage: string): SimulatorOptions | undefined {
  const options: SimulatorOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const [name, inline] = flag.includes("=")
      ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)]
      : [flag, undefined];
    if (name === "--help" || name === "-h") {
      console.log(usage);
      return undefined;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${name} needs a value\n${usage}`);
    switch (name) {
      case "--platform":
        if (value !== "aws" && value !== "azure")
          throw new Error(`--platform must be aws or azure, got ${value}`);
        options.platform = value;
        break;
      case "--speed":
        options.speed = Number(value);
        if (!(options.speed > 0)) throw new Error(`--speed must be a positive number, got ${value}`);
        break;
      case "--port":
        options.port = Number(value);
        if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
          throw new Error(`--port must be 0-65535, got ${value}`);
        break;
      case "--crds":
        options.crdDir = value === "none" ? false : path.resolve(value);
        break;
      case "--protocol":
        // http serves the API as `kubectl proxy` and `oc proxy` do, without TLS.
        if (value !== "https" && value !== "http")
          throw new Error(`--protocol must be https or http, got ${value}`);
        options.protocol = value;
        break;
      default:
        throw new Error(`unknown option ${name}\n${usage}`);
    }
  }
  return options;
}

/** How the user runs the commands the simulator's messages name: this repository's npm scripts, or the package's. */
export interface Commands {
  /** The simulator's own, before its options. */
  sim: string;
  /** The one that writes a cluster's CRDs, before `--out DIR`. */
  crdsExport: string;
}

const NPM_SCRIPTS: Commands = { sim: "npm run sim --", crdsExport: "npm run crds:export --" };

/**
 * Serves the simulator until SIGINT or SIGTERM, its kubeconfig in `.sim/kubeconfig` of the working
 * directory (this repository's, under npm run); resolves with the exit code once stopped.
 */
export async function main(argv: string[], commands: Commands = NPM_SCRIPTS): Promise<number> {
  const options = parseArgs(argv, `usage: ${commands.sim} ${OPTIONS}`);
  if (!options) return 0;
  options.kubeconfigPath = path.resolve(".sim", "kubeconfig");
  options.crdDir ??= findCrdDir() ?? false;
  const sim = await startSimulator(options);
  const c = sim.cluster;
  console.log(
    `OpenShift simulator (${c.platform}, ${c.region}, infrastructure ${c.infrastructureId}) serving ${sim.server}`,
  );
  console.log(`kubeconfig: ${sim.kubeconfigPath}`);
  console.log(
    options.crdDir
      ? `CRDs: ${options.crdDir} (custom resources validated and pruned as a cluster with them would)`
      : `CRDs: none, custom resources served unvalidated; ${crdHint(commands.crdsExport)}`,
  );
  console.log("");
  console.log("With kubectl:");
  console.log(`  export KUBECONFIG=${sim.kubeconfigPath}`);
  console.log("  kubectl get nodes");
  console.log("  kubectl get mcp");
  console.log("  kubectl get machinesets -n openshift-machine-api");
  console.log("");
  console.log("With Pulumi (the kubernetes provider reads KUBECONFIG):");
  console.log(`  KUBECONFIG=${sim.kubeconfigPath} pulumi up`);
  console.log("");
  console.log(`Faults: POST ${sim.server}/simulator/faults with the token, e.g.`);
  console.log(
    `  curl --cacert <(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d) \\`,
  );
  console.log(
    `    -H "Authorization: Bearer ${sim.token}" -d '{"fault":"errors","count":3,"code":503}' ${sim.server}/simulator/faults`,
  );
  console.log(`  available: ${sim.faults.names().join(", ")}`);
  console.log(
    `  errors with "seconds" instead of "count" is a storm: every request for that long, e.g. {"fault":"errors","seconds":15,"code":429}`,
  );
  console.log(
    `  rotateToken renews the token as an expired oc login does: the old one gets 401, ${sim.kubeconfigPath} holds the new one`,
  );
  console.log("");
  console.log("Ctrl-C stops it.");

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      console.log(`\n${signal}: stopping`);
      sim.stop().then(
        () => resolve(0),
        (error) => {
          console.error(error);
          resolve(1);
        },
      );
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
  });
}

/** As a command: exits with main's code, or 1 with the error's message (and the way out of a missing CRD directory). */
export function runSimulator(argv: string[], commands?: Commands): void {
  main(argv, commands).then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      if ((error as NodeJS.ErrnoException)?.code === "ENOENT") {
        console.error(
          "The CRD directory is missing: point --crds (or OPENSHIFT_CRDS_DIR) at an existing one, or run with --crds none.",
        );
      }
      process.exit(1);
    },
  );
}

if (require.main === module) runSimulator(process.argv.slice(2));
