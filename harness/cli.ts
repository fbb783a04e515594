import * as fs from "node:fs";
import * as path from "node:path";

/** What every harness command does as a script: run `main` with the arguments, exit with its code, print only an error's message. */
export function runCommand(
  main: (argv: string[]) => Promise<number>,
  argv: string[] = process.argv.slice(2),
): void {
  main(argv).then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}

/** The package's command (package.json `bin`), which runs these modules compiled. */
export const BIN = "openshift-topology";

/**
 * Compiled, these modules are the package's (dist/harness, under the `bin`); this repository runs
 * its sources with ts-node. Messages name the command the user has.
 */
const PACKAGED = __filename.endsWith(".js");

/** The package command's words for this repository's npm scripts. */
const BIN_WORDS: Record<string, string> = { "crds:export": "crds export" };

/** How a user runs `script` without arguments: `openshift-topology <command>`, or `npm run <script>` here. */
export function commandName(script: string): string {
  return PACKAGED ? `${BIN} ${BIN_WORDS[script] ?? script}` : `npm run ${script}`;
}

/** How a user runs `script` with arguments: `openshift-topology <command>`, or `npm run <script> --` here. */
export function commandLine(script: string): string {
  return PACKAGED ? commandName(script) : `npm run ${script} --`;
}

/**
 * The kubeconfig of the cluster a command reaches, and where it came from: `given` (--kubeconfig),
 * else $KUBECONFIG, else the one the simulator writes in the working directory. Fails, saying how to
 * get one, when there is no such file.
 */
export function clusterKubeconfig(given: string | undefined): [file: string, source: string] {
  const [file, source] = given
    ? [path.resolve(given), "--kubeconfig"]
    : process.env.KUBECONFIG
      ? [path.resolve(process.env.KUBECONFIG), "$KUBECONFIG"]
      : [path.resolve(".sim", "kubeconfig"), commandName("sim")];
  if (!fs.existsSync(file)) {
    throw new Error(
      `no kubeconfig at ${file}: log in to a cluster (oc login), pass --kubeconfig FILE, or start the simulator with ${commandName("sim")}`,
    );
  }
  return [file, source];
}

/** What the simulator's CRD validation loads (OpenAPI schemas, CEL rules): optional peers of the package. */
export const SCHEMA_PEERS = ["ajv", "ajv-formats", "@bufbuild/cel", "@bufbuild/protobuf", "@bufbuild/re2"];
/** What the simulator loads besides: its serving certificate's. */
export const SIMULATOR_PEERS = [...SCHEMA_PEERS, "node-forge"];

/**
 * Fails, saying what to install, unless `packages` resolve: what only `purpose` (the simulator,
 * schema validation) needs is an optional peer dependency of the package, which a program never loads.
 */
export function requirePeers(packages: string[], purpose: string): void {
  const missing = [...packages].sort().filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new Error(
      `${commandName(purpose)} needs ${missing.join(", ")}, optional peer dependencies that a program does not need: npm install --save-dev ${missing.join(" ")}`,
    );
  }
}
