/**
 * OpenShift node topology for Pulumi: components at the top level, the pure manifest builders they are
 * made of under `builders`.
 */
export * from "./components";
export * as builders from "./builders";
