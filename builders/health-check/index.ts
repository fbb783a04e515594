export {
  machineHealthCheck,
  HEALTH_CHECK_DEFAULTS,
  type HealthCheckOptions,
  type MachineHealthCheckArgs,
  type MachineHealthCheckManifest,
  type UnhealthyCondition,
} from "./health-check";
