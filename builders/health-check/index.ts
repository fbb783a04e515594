export * from "./health-check";
