/** Running the real kubectl against a simulator from tests (asynchronously: the server shares the process). */
import { execFile, execFileSync } from "node:child_process";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The kubectl client's minor version, or undefined when kubectl is not installed. */
export function kubectlMinorVersion(): number | undefined {
  try {
    const out = execFileSync("kubectl", ["version", "--client", "-o", "json"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    const minor = (JSON.parse(out) as { clientVersion?: { minor?: string } }).clientVersion?.minor ?? "";
    return Number.parseInt(minor, 10);
  } catch {
    return undefined;
  }
}

export function kubectl(kubeconfigPath: string, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      "kubectl",
      args,
      {
        env: { ...process.env, KUBECONFIG: kubeconfigPath, HOME: process.env.HOME ?? "/tmp" },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    child.stdin?.end(input ?? "");
  });
}

/**
 * `kubectl apply --server-side -f -`. Before 1.27 kubectl validates on the client against /openapi/v2,
 * whose definitions the simulator leaves empty; older clients skip that step so the test does not
 * depend on it. Newer ones send `fieldValidation=Strict` and let the server validate.
 */
export function applyServerSide(minor: number): string[] {
  return ["apply", "--server-side", ...(minor < 27 ? ["--validate=false"] : []), "-f", "-"];
}
