import * as path from "node:path";
import { FakeCloud, mocks, RegisteredResource, resetMocks, settle } from "./mocks";

/**
 * Evaluates a Pulumi program under the shared mocks and returns the resources it created, in
 * registration order. A program is a module path (evaluated afresh each time) or a function.
 */
export async function runProgram(
  program: string | (() => void),
  cloud?: FakeCloud,
): Promise<RegisteredResource[]> {
  await resetMocks(cloud);
  if (typeof program === "string") {
    const file = require.resolve(path.resolve(program));
    delete require.cache[file];
    require(file);
  } else {
    program();
  }
  await settle();
  return mocks.resources.filter((r) => !r.id && !r.type.startsWith("openshift-topology:"));
}

/** The Kubernetes objects among registered resources: apiVersion/kind from the type token, then inputs. */
export function manifestsOf(resources: RegisteredResource[]): Array<Record<string, unknown>> {
  return resources
    .filter((r) => r.type.startsWith("kubernetes:"))
    .map((r) => {
      const [, apiVersion, kind] = /^kubernetes:(.+):([^:]+)$/.exec(r.type) ?? [];
      const group = apiVersion.replace(/^core\//, "");
      return { apiVersion: group, kind: kind.replace(/Patch$/, ""), ...r.inputs };
    });
}
