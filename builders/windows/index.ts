export {
  windowsPoolSpec,
  windowsRuntimeClass,
  requireRsaPrivateKeyPem,
  requireWindowsBuild,
  WINDOWS_BUILDS,
  WMCO,
  type WindowsBuild,
  type WindowsRuntimeClassArgs,
  type WindowsRuntimeHandler,
  type WindowsServerVersion,
} from "./windows";
