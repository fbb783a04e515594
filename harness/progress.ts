/**
 * The waiters run in the dynamic-provider host, a process of their own; with
 * OPENSHIFT_TOPOLOGY_PROGRESS_FILE set they append each progress event to that file as a JSON line
 * (provider/dynamic/common.ts, providerProgress). This follows such a file for the harness's displays.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ProgressEvent } from "../provider/waiting";

/** A progress event as the provider host writes it: the waiter resource's kind and id come along. */
export type HostProgressEvent = ProgressEvent & { resource?: string };

export interface ProgressFile {
  /** The environment that makes the host write the file (and not log the same lines). */
  env: NodeJS.ProcessEnv;
  /** The events written since the last call, complete lines only. */
  read(): HostProgressEvent[];
  /** Removes the file. */
  remove(): void;
}

/** A new, empty progress file (in `dir`, else a temporary directory of its own). */
export function progressFile(dir?: string): ProgressFile {
  const own =
    dir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "openshift-topology-progress-")) : undefined;
  const file = path.join(dir ?? own!, "progress.jsonl");
  fs.writeFileSync(file, "");
  let offset = 0;
  return {
    env: { OPENSHIFT_TOPOLOGY_PROGRESS_FILE: file, OPENSHIFT_TOPOLOGY_PROGRESS_LOG: "0" },
    read() {
      const text = fs.readFileSync(file, "utf8");
      const complete = text.lastIndexOf("\n") + 1;
      const lines = text.slice(offset, complete).split("\n").filter(Boolean);
      offset = complete;
      return lines.map((line) => JSON.parse(line) as HostProgressEvent);
    },
    remove() {
      fs.rmSync(own ?? file, { recursive: true, force: true });
    },
  };
}
