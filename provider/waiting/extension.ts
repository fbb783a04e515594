/**
 * When an OLM v1 ClusterExtension is installed, as operator-controller reports it
 * (operator-framework/operator-controller, controllers/common_controller.go): conditions of the current
 * generation, `Installed` True and `Progressing` True with reason `Succeeded` ("desired state reached"),
 * and the installed bundle in `status.install.bundle`. `Progressing` with reason `Retrying` is an error
 * the controller retries with backoff (resolution, a missing ServiceAccount, an apply refused): final
 * once it persists (persistence.ts); reason `Blocked` (a terminal error) is final at once.
 */
import { conditionOf, field, KubeObject } from "./kinds";
import { judgePersistence, Problem, Sightings } from "./persistence";
import { WaitState } from "./progress";

export interface ExtensionResult {
  bundle: string;
  version: string;
}

export interface ExtensionEvaluation {
  state: WaitState;
  message: string;
  result?: ExtensionResult;
  problems: Problem[];
  recheckMs?: number;
}

export function evaluateExtensionInstall(
  name: string,
  extension: KubeObject | undefined,
  since: Sightings = {},
  nowMs = 0,
): ExtensionEvaluation {
  const label = `ClusterExtension ${name}`;
  if (!extension) return { state: "waiting", message: `${label}: not created yet`, problems: [] };
  const generation = extension.metadata.generation ?? 1;
  const current = (type: string) => {
    const c = conditionOf(extension, type);
    return c && (c as { observedGeneration?: number }).observedGeneration === generation ? c : undefined;
  };
  const installed = current("Installed");
  const progressing = current("Progressing");
  if (!installed || !progressing)
    return {
      state: "waiting",
      message: `${label}: generation ${generation} not reconciled yet`,
      problems: [],
    };
  const bundle = field<string>(extension, "status", "install", "bundle", "name");
  const version = field<string>(extension, "status", "install", "bundle", "version");
  const result = bundle && version ? { result: { bundle, version } } : {};
  if (progressing.reason === "Blocked" || progressing.status === "False")
    return {
      state: "failed",
      message: `${label}: ${progressing.reason}: ${progressing.message ?? ""}`,
      problems: [],
    };
  if (installed.status === "True" && progressing.reason === "Succeeded" && bundle)
    return { state: "done", message: `${label}: ${bundle} installed`, problems: [], ...result };
  const problems: Problem[] =
    progressing.reason === "Retrying"
      ? [{ key: "Retrying", message: `Progressing Retrying: ${progressing.message ?? ""}` }]
      : [];
  const judged = judgePersistence(problems, since, nowMs);
  if (judged.persisted.length > 0)
    return { state: "failed", message: `${label}: ${judged.persisted.join("; ")}`, problems };
  const notes = [`Installed ${installed.status}: ${installed.message ?? ""}`, ...judged.pending];
  return {
    state: "waiting",
    message: `${label}: ${notes.join("; ")}`,
    problems,
    ...result,
    ...(judged.recheckMs !== undefined ? { recheckMs: judged.recheckMs } : {}),
  };
}
