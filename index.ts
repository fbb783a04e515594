/**
 * OpenShift node topology for Pulumi: components at the top level, the pure manifest builders they are
 * made of under `builders`, and the convergence waiters (dynamic resources and their Pulumi-free core)
 * under `waiters`, for programs that compose their own.
 */
export * from "./components";
export * as builders from "./builders";
export * as waiters from "./provider";
