import { HealthCheckOptions, machineHealthCheck } from "../../builders/health-check";
import { within } from "../../builders/errors";
import { checked } from "../errors";

/** The pool's MachineHealthCheck, its errors placed under `healthCheck`. */
export function healthCheckManifest(
  settings: HealthCheckOptions,
  name: string,
  infrastructureId: string,
  machineRole: string,
  machineSetNames: string[],
) {
  return checked(() =>
    within(
      (path) => (path === "healthCheck" ? path : `healthCheck.${path}`),
      () => machineHealthCheck({ ...settings, name, infrastructureId, machineRole, machineSetNames }),
    ),
  );
}
