/**
 * The harness's state between revisions, as Pulumi's backend keeps it: per resource its URN, inputs,
 * outputs and dependencies, in the order the resources finished (a dependency order). Secrets stay
 * marked as Pulumi marks them on the wire; the file is written readable by its owner only.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface ResourceState {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** What deleting it does: a Kubernetes object (patch or whole) or a dynamic provider's delete. */
  kind: "kubernetes" | "dynamic";
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  dependencies: string[];
}

export interface StackState {
  version: 1;
  project: string;
  stack: string;
  resources: ResourceState[];
}

export function emptyState(project: string, stack: string): StackState {
  return { version: 1, project, stack, resources: [] };
}

export function loadState(file: string | undefined, project: string, stack: string): StackState {
  if (!file || !fs.existsSync(file)) return emptyState(project, stack);
  const state = JSON.parse(fs.readFileSync(file, "utf8")) as StackState;
  if (state.version !== 1 || state.project !== project || state.stack !== stack) {
    throw new Error(`${file} holds the state of ${state.project}/${state.stack}, not of ${project}/${stack}`);
  }
  return state;
}

export function saveState(file: string, state: StackState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}
