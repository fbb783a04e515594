export {
  operatorNamespace,
  operatorGroup,
  subscription,
  SUBSCRIPTION_DEFAULTS,
  TARGET_NAMESPACES,
  type InstallPlanApproval,
  type OperatorSubscriptionArgs,
} from "./subscription";
export { checkAgainstCatalog, type CatalogChoice, type PackageManifestStatus } from "./catalog";
export {
  requireSubscriptionConfig,
  SUBSCRIPTION_CONFIG_FIELDS,
  type SubscriptionConfig,
  type SubscriptionToleration,
} from "./config";
export {
  clusterExtension,
  checkExtensionAgainstCatalog,
  versionRange,
  UPGRADE_CONSTRAINT_POLICIES,
  type ClusterExtensionArgs,
  type CatalogPackageContent,
} from "./cluster-extension";
