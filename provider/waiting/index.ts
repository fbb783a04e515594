/**
 * The waiting core: watch-based waits for OpenShift convergence, with no Pulumi in it. The dynamic
 * providers in `../dynamic` wrap it; anything else (a CLI, a test, a benchmark) may call it directly.
 */
export * from "./api";
export type { Clock } from "./clock";
export * from "./converge";
export * from "./kinds";
export * from "./machineset";
export * from "./operator";
export * from "./pool";
export * from "./progress";
export * from "./retry";
export * from "./waiters";
export * from "./windows";
export * from "./autoscaling";
