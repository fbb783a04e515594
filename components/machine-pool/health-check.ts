import { HealthCheckOptions, machineHealthCheck } from "../../builders/health-check";
import { checked } from "../errors";

/** The pool's MachineHealthCheck, its errors placed under `healthCheck`. */
export function healthCheckManifest(
  settings: HealthCheckOptions,
  name: string,
  infrastructureId: string,
  machineRole: string,
  machineSetNames: string[],
) {
  return checked(
    () => machineHealthCheck({ ...settings, name, infrastructureId, machineRole, machineSetNames }),
    (path) => (path === "healthCheck" ? path : `healthCheck.${path}`),
  );
}
